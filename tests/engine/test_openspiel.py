"""The OpenSpiel adapter (arena_openspiel/): the four games through pyspiel's own API and checks.

Skipped, with the reason, when the optional extra is not installed
(``pip install card-arena[openspiel]``).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="open_spiel is not installed: pip install card-arena[openspiel]"
)
import numpy as np  # noqa: E402  (installed with open_spiel)
from open_spiel.python.algorithms import mcts  # noqa: E402

import arena_openspiel  # noqa: E402
import engine  # noqa: E402

LOADS = [
    "arena_bauer",
    "arena_belote",
    "arena_belote(undertrump=True,first_lead=eldest)",
    "arena_barbu",
    "arena_barbu(mode=geronimo,doubling=True,doubling_any_subset=True)",
    "arena_barbu(salad=True,deck=32)",
    "arena_badugi",
    "arena_badugi(players=6,never_return_own_discards=True)",
    "arena_badugi(korean_betting=True)",
]


def test_every_engine_game_is_registered() -> None:
    assert arena_openspiel.GAMES == [f"arena_{n}" for n in engine.available_games()]
    assert set(arena_openspiel.GAMES) <= set(pyspiel.registered_names())


@pytest.mark.parametrize("load", LOADS)
def test_openspiel_consistency_checks(load: str) -> None:
    """OpenSpiel's own random simulation test: legal actions, clones, information states."""
    game = pyspiel.load_game(load)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


@pytest.mark.parametrize("load", LOADS)
def test_random_playouts_match_the_engine(load: str) -> None:
    """Through pyspiel's API: chance deals the deck, every decision is the engine's, and the
    information state of each player is its engine observation (no hidden card)."""
    game = pyspiel.load_game(load)
    players = game.num_players()
    rng = random.Random(load)
    for _ in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
                state.apply_action(rng.choice(outcomes)[0])
                continue
            player = state.current_player()
            inner = state.inner
            legal = state.legal_actions()
            assert legal == sorted(legal) and len(set(legal)) == len(legal)
            names = sorted(state.action_to_string(player, a) for a in legal)
            assert names == sorted(inner.legal_actions()), "action ids and strings disagree"
            for seat in range(players):
                text = state.information_state_string(seat)
                assert json.loads(text) == json.loads(json.dumps(inner.observation(seat)))
                tensor = np.asarray(state.information_state_tensor(seat))
                assert tensor.shape == (game.information_state_tensor_size(),)
                hand = tensor[players : players + 52]
                assert sorted(np.flatnonzero(hand)) == sorted(
                    int(engine.card(t)) for t in inner.observation(seat)["hand"]
                )
            state.apply_action(rng.choice(legal))
        assert state.returns() == [float(s) for s in state.inner.deals[0].scores]


def test_the_deck_is_dealt_by_chance_in_deck_order() -> None:
    game = pyspiel.load_game("arena_bauer(first_dealer=3)")
    state = game.new_initial_state()
    deck = [str(c) for c in engine.load_game("bauer").deck]
    random.Random(2).shuffle(deck)
    for text in deck:
        assert state.is_chance_node()
        state.apply_action(int(engine.card(text)))
    assert state.inner.deals[0].deck == deck and state.inner.dealer == 3
    assert state.information_state_string(0) == json.dumps(
        state.inner.observation(0), sort_keys=True, separators=(",", ":")
    )


def test_a_thrown_in_belote_deal_is_terminal_with_zero_returns() -> None:
    game = pyspiel.load_game("arena_belote")
    state = game.new_initial_state()
    rng = random.Random(1)
    while state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    passes = 0
    while not state.is_terminal():
        state.apply_action(52)  # "pass"
        passes += 1
    assert passes == 8 and state.returns() == [0.0] * 4


def play_mcts_against_random(load: str, deals: int, simulations: int) -> tuple[float, float]:
    """MCTS for one side (team or seat), uniform random for the rest; sides swap every deal.

    Returns the total deal scores of one MCTS seat and of one random seat.
    """
    game = pyspiel.load_game(load)
    players = game.num_players()
    searched = random_total = 0.0
    for deal in range(deals):
        rs = np.random.RandomState(deal)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
        bot = mcts.MCTSBot(
            game, uct_c=2.0, max_simulations=simulations, evaluator=evaluator, random_state=rs
        )
        rng = random.Random(deal)
        side = deal % 2  # seats with this parity search
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            elif state.current_player() % 2 == side:
                state.apply_action(bot.step(state))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        returns: list[Any] = state.returns()
        searched += returns[side]
        random_total += returns[(side + 1) % players]
    return searched, random_total


@pytest.mark.parametrize(
    ("load", "deals"), [("arena_belote", 6), ("arena_badugi", 16)], ids=["belote", "badugi"]
)
def test_openspiel_mcts_beats_the_random_agent(load: str, deals: int) -> None:
    """Seeded and bounded (about a second of CPU each): the same numbers on every run."""
    searched, random_total = play_mcts_against_random(load, deals, simulations=30)
    assert searched > random_total, (searched, random_total)
