"""Differential test: random Badugi hands replayed in pokerkit with the same cards and actions.

pokerkit (a dev dependency only) is the oracle for turn order, the betting cap, pots, showdown,
split pots and odd chips. RULES.md §5's differences are bridged here: its pre-draw street gets
``max_completion_betting_or_raising_count=3`` (the big blind is our first bet, so 3 raises = our
4-bet cap), its burn cards are unknown cards, and since it draws "everyone discards, then deal"
each drawer is dealt exactly the cards our engine gave them (whatever a reshuffle produced).
"""

from __future__ import annotations

import random
import warnings
from math import inf
from typing import Any

import pytest

import engine
from engine.games.badugi import BadugiState

pokerkit = pytest.importorskip("pokerkit")

AUTOMATIONS = (
    pokerkit.Automation.ANTE_POSTING,
    pokerkit.Automation.BET_COLLECTION,
    pokerkit.Automation.BLIND_OR_STRADDLE_POSTING,
    pokerkit.Automation.HAND_KILLING,
    pokerkit.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    pokerkit.Automation.CHIPS_PUSHING,
    pokerkit.Automation.CHIPS_PULLING,
)


def oracle(params: Any) -> Any:
    """A pokerkit fixed-limit Badugi state with our stakes and cap."""
    first, later = params.round_caps[0], params.round_caps[1]
    cap = None if params.unlimited_heads_up else later
    first_cap = None if params.unlimited_heads_up else first - 1  # the big blind is a bet

    def street(first: bool, unit: int, count: int | None) -> Any:
        return pokerkit.Street(
            not first,
            (False,) * 4 if first else (),
            0,
            not first,
            pokerkit.Opening.POSITION,
            unit,
            count,
        )

    streets = (
        street(True, params.big_blind, first_cap),
        street(False, params.big_blind, cap),
        street(False, params.big_bet, cap),
        street(False, params.big_bet, cap),
    )
    stacks = inf if params.unlimited_heads_up else params.starting_stack
    return pokerkit.State(
        AUTOMATIONS,
        pokerkit.Deck.STANDARD,
        (pokerkit.BadugiHand,),
        streets,
        pokerkit.BettingStructure.FIXED_LIMIT,
        True,
        0,
        (params.small_blind, params.big_blind),
        0,
        stacks,
        params.players,
    )


def replay_hand(game: engine.Game, seed: int, rng: random.Random) -> tuple[int, int, int]:
    """Play one random hand in the engine, mirroring every step in pokerkit.

    Returns how many cards were drawn, whether there was a showdown and how many reshuffles.
    """
    params = game.params
    n = game.num_players
    state = game.new_initial_state(seed)
    assert isinstance(state, BadugiState)
    button = state.button
    seat_of = [(button + 1 + i) % n for i in range(n)]  # pokerkit index → our seat
    index_of = {seat: i for i, seat in enumerate(seat_of)}
    theirs = oracle(params)
    for seat in seat_of:  # pokerkit deals whole hands in index order
        theirs.deal_hole("".join(str(c) for c in state.hands[seat]))
    draws = 0
    pending: dict[int, list[Any]] = {}  # cards our engine dealt, until pokerkit deals them
    while not state.is_terminal() and len(state.deals) == 1:
        seat = state.current_player()
        legal = state.legal_actions()
        assert state.pot == sum(state.committed) == theirs.total_pot_amount
        if legal[0].startswith("draw:"):
            assert theirs.stand_patter_or_discarder_index == index_of[seat]
            before = list(state.hands[seat])
            action = rng.choice(legal)
            state.apply_action(action)
            thrown = action[5:].replace(",", "")
            theirs.stand_pat_or_discard(thrown)
            received = [c for c in state.hands[seat] if c not in before]
            draws += len(received)
            pending[seat] = received
            while theirs.can_burn_card() or theirs.hole_dealee_index is not None:
                if theirs.can_burn_card():
                    theirs.burn_card("??")
                    continue
                dealee = seat_of[theirs.hole_dealee_index]
                theirs.deal_hole("".join(str(c) for c in pending.pop(dealee)))
            continue
        assert theirs.actor_index == index_of[seat]
        assert ("raise" in legal or "bet" in legal) == theirs.can_complete_bet_or_raise_to()
        action = rng.choice(legal)
        state.apply_action(action)
        if action == "fold":
            theirs.fold()
        elif action in ("check", "call"):
            theirs.check_or_call()
        else:
            theirs.complete_bet_or_raise_to()
    assert not theirs.status, "pokerkit's hand is not over"
    ours = state.deals[0].scores
    assert ours is not None
    assert [ours[seat] for seat in seat_of] == list(theirs.payoffs)
    info = state.deals[0].info
    showdown = any(r is not None for r in info["revealed"])
    return draws, int(showdown), info["reshuffles"]


@pytest.mark.parametrize(
    "params",
    [
        {"players": 2},
        {"players": 3},
        {"players": 4},
        {"players": 6},
        {"players": 5, "small_blind": 5, "big_blind": 10, "big_bet": 20, "stack": 1000},
        {"players": 3, "max_bets_per_round": 6, "stack": 500},
        {"players": 3, "max_bets_predraw": 5},  # pokerkit's own default pre-draw cap
        {"players": 2, "unlimited_heads_up": True},
    ],
    ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()),
)
def test_random_hands_match_pokerkit(params: dict[str, Any]) -> None:
    game = engine.load_game("badugi", hands=1, **params)
    rng = random.Random(json_seed(params))
    draws = showdowns = reshuffles = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pokerkit warns when told which cards to deal
        for seed in range(150):
            d, s, r = replay_hand(game, seed, _passive(rng))
            draws += d
            showdowns += s
            reshuffles += r
    assert draws > 0 and showdowns > 10, "the random hands never reached the draws or showdown"
    if game.num_players == 6:
        assert reshuffles > 0, "six players drawing must exhaust the stub sometimes"


def json_seed(params: dict[str, Any]) -> int:
    return sum(ord(ch) for ch in repr(sorted(params.items())))


def _passive(rng: random.Random) -> random.Random:
    """A generator whose choices fold rarely, so that hands reach the draws and the showdown."""

    class Chooser(random.Random):
        def choice(self, seq: Any) -> Any:
            options = [a for a in seq if a != "fold"] if rng.random() < 0.9 else list(seq)
            return options[int(rng.random() * len(options))]

    return Chooser()
