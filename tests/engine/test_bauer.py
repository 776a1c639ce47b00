"""Bauer: the test scenarios of RULES.md §4.8, one test each, plus the heuristic agent.

Positions are reached through the public API: a real deal and trump call, then the hands of the
players in the trick are replaced by the cards the scenario names (only the cards that matter).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

import engine
from engine import IllegalAction
from engine.cards import Card, cards, texts
from engine.games.bauer import BauerState, effective_suits, trick_power

# Deck orders (top first) for the scoring scenarios. With dealer 3, deck index k goes to seat
# k mod 4, so seat 0 calls first; every card is then played as "the first legal card in text
# order" (see play_first_legal), which yields the trick counts named in each constant.
DECK_CALLER_5_3 = (
    "9h As Qd Th Td Kh 9s 9c 7h 8d 8h Qh Qs 7d Js Kd "
    "Tc 7s Jd 8s Ah 9d 7c Ks 8c Kc Jc Ac Qc Jh Ad Ts"
)
DECK_CALLER_4_4 = (
    "Jh Kh 7d Th Kc Ac 8s As Tc Ad 9s Ts 9c 7s Jc 9d "
    "Jd 8d Td 8h Kd 7c Ks Qs Ah Qh Js 8c 7h Qd Qc 9h"
)
DECK_CALLER_3_5 = (
    "8c Ac Qc 7h Tc 9h Jh Qs Kd 9d Js 9c 8h Jd Ad As "
    "Td 7s 8d 7d 8s Ah 7c Ts Kc Th Qh Kh Qd 9s Ks Jc"
)
DECK_CALLER_6_2 = (
    "Qc 9c 7d 8d Ks 7c Td Qd Qs 8s Ac 8h Kd As Ts Ah "
    "Kc Kh Ad 8c 9s Qh Jh 9h Jc Th Tc 7s 9d Js Jd 7h"
)
DECK_NO_TRUMP_5_3 = (
    "Ah Qc Td Js Ks Tc Jd 9h Jc 8c 7c Qh Kc 8d Ac Ad "
    "7h 7s 9s 9d 8h Qd Ts Kh As 7d 9c 8s Kd Jh Th Qs"
)
DECK_NO_TRUMP_4_4 = (
    "Kc 7d 8h 7s Jc Ad Th 8c Ks Ac Ah 8s Kh 8d Jd As "
    "Qc 9s Qs Td Tc Kd Qd 7c Jh Js Qh Ts 9h 7h 9c 9d"
)
# RULES.md §4.8 scenario 8 (the ten written T).
DECK_FULL_DEAL = (
    "Qc Td Jd Qh Js Jh Ad As Kd 7s 9h Th 7h 8s 9s 8h "
    "8c Ts Qd Ah Ac Qs Ks 9d 7d 9c Kh 7c Kc 8d Tc Jc"
)


def new_state(deck: str | None = None, *, dealer: int = 0, **params: int) -> BauerState:
    game = engine.load_game("bauer", **params)
    decks = [deck.split()] if deck else None
    state = game.new_initial_state(0, decks=decks, first_dealer=dealer)
    assert isinstance(state, BauerState)
    return state


def position(trump: str | None, trick: str, hand: str) -> BauerState:
    """A state in play with ``trump`` called (or none), ``trick`` on the table and the player
    to act holding ``hand``."""
    state = new_state(dealer=0)
    if trump is None:
        for _ in range(4):
            state.apply_action("pass")
    else:
        state.apply_action(f"trump:{trump}")
    for c in cards(trick):
        give(state, [c])
        state.apply_action(str(c))
    give(state, sorted(cards(hand)))
    return state


def give(state: BauerState, hand: list[Card]) -> None:
    """Replace the hand of the player to act (the state's cached texts follow)."""
    state.hands[state.current_player()] = hand
    state._forget_caches()


def trick_winner_card(trump: str | None, trick: str) -> str:
    """Play ``trick`` from a fresh position; the card that won it."""
    state = position(trump, "", "")
    played = cards(trick)
    for c in played:
        give(state, [c])
        state.apply_action(str(c))
    last = state.observation(0)["tricks"][-1]
    winner_index = (last["winner"] - last["leader"]) % 4
    return str(last["cards"][winner_index])


def play_first_legal(state: BauerState) -> None:
    """Finish the current deal, everyone playing the first legal action in text order."""
    deal = state.deals[-1]
    while deal.scores is None:
        state.apply_action(state.legal_actions()[0])


def play(state: BauerState, sequence: Sequence[str]) -> None:
    """Apply ``seat:action`` items, checking that the named seat is the one to act."""
    for item in sequence:
        seat, action = item.split(":", 1)
        assert state.current_player() == int(seat), item
        state.apply_action(action)


# -- 1. trump order ---------------------------------------------------------------------------


def test_4_8_1_trump_order_and_the_seven_card_diamond_suit() -> None:
    trumps = cards("Jh Jd Ah Kh Qh Th 9h 8h 7h")
    power = trick_power("h", "h")
    assert sorted(trumps, key=power.__getitem__, reverse=True) == trumps
    assert all(power[c] > 100 for c in trumps)
    deck = engine.load_game("bauer").deck
    eff = effective_suits("h")
    assert [c for c in deck if eff[c] == "h"] == sorted(trumps)
    diamonds = [c for c in deck if eff[c] == "d"]
    by_power = sorted(diamonds, key=trick_power("h", "d").__getitem__, reverse=True)
    assert texts(by_power) == ["Ad", "Kd", "Qd", "Td", "9d", "8d", "7d"]


# -- 2, 3. effective suits in following ---------------------------------------------------------


def test_4_8_2_left_bauer_is_not_a_diamond() -> None:
    state = position("h", "Ad", "Jd Ks 7c")
    assert state.legal_actions() == ["7c", "Jd", "Ks"]


def test_4_8_3_left_bauer_must_follow_a_trump_lead() -> None:
    assert position("h", "7h", "Jd Ks 7c").legal_actions() == ["Jd"]
    state = position("h", "Jd", "8h Ad Ks")  # the left bauer leads trumps
    assert state.legal_actions() == ["8h"]
    with pytest.raises(IllegalAction, match="bauers count as trump"):
        state.apply_action("Ad")
    with pytest.raises(IllegalAction, match="not a card in your hand"):
        state.apply_action("As")


# -- 4, 5. trick winners ------------------------------------------------------------------------


def test_4_8_4_trick_winners_with_hearts_trump() -> None:
    assert trick_winner_card("h", "Ad Kd Jd 7c") == "Jd"
    assert trick_winner_card("h", "Ah Jd Kh Jh") == "Jh"
    assert trick_winner_card("h", "As Js 7h Ks") == "7h"


def test_4_8_5_no_trump_hands() -> None:
    assert trick_winner_card(None, "Ts Js Qs 9s") == "Qs"
    assert trick_winner_card(None, "Jd Ad 7d Kh") == "Ad"
    assert position(None, "Ad", "Jd Ks").legal_actions() == ["Jd"]  # J♦ is a plain diamond


# -- 6. trump selection -------------------------------------------------------------------------


def test_4_8_6_first_suit_named_ends_the_call_and_the_caller_leads() -> None:
    state = new_state(dealer=0)
    assert state.current_player() == 1
    assert state.legal_actions() == ["pass", "trump:c", "trump:d", "trump:h", "trump:s"]
    play(state, ["1:pass", "2:trump:s"])
    observation = state.observation(2)
    assert observation["phase"] == "play"
    assert observation["trump"] == "s" and observation["caller"] == 2
    assert [c["seat"] for c in observation["calls"]] == [1, 2]  # seats 3 and 0 never speak
    assert state.current_player() == 2 and len(state.legal_actions()) == 8


def test_4_8_6_all_pass_means_no_trump_and_the_dealer_leads() -> None:
    state = new_state(dealer=0)
    play(state, ["1:pass", "2:pass", "3:pass", "0:pass"])
    assert state.observation(0)["trump"] is None
    assert state.observation(0)["phase"] == "play"
    assert state.current_player() == 0


# -- 7. scoring ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("deck", "calls", "tricks", "points"),
    [
        pytest.param(DECK_CALLER_5_3, ["trump:h"], [5, 3], [7, 8], id="caller-5-tricks"),
        pytest.param(DECK_CALLER_4_4, ["trump:h"], [4, 4], [8, 8], id="caller-4-4"),
        pytest.param(DECK_CALLER_3_5, ["trump:h"], [3, 5], [8, 8], id="caller-3-others-gain-0"),
        pytest.param(DECK_NO_TRUMP_5_3, ["pass"] * 4, [5, 3], [7, 8], id="no-trump-5-3"),
        pytest.param(DECK_NO_TRUMP_4_4, ["pass"] * 4, [4, 4], [8, 8], id="no-trump-4-4"),
    ],
)
def test_4_8_7_scoring(deck: str, calls: list[str], tricks: list[int], points: list[int]) -> None:
    state = new_state(deck, dealer=3)  # seat 0 speaks first
    for action in calls:
        state.apply_action(action)
    play_first_legal(state)
    record = state.deals[0]
    assert record.info["team_tricks"] == tricks
    assert state.points == points
    progress = [8 - p for p in points]
    assert record.scores == [progress[s % 2] for s in range(4)]
    assert state.returns() == [float(progress[s % 2]) for s in range(4)]
    assert not state.is_terminal()
    assert state.deals[1].dealer == 0  # the deal passes to the left


# -- 8. full deal -------------------------------------------------------------------------------


def test_4_8_8_full_deal() -> None:
    state = new_state(DECK_FULL_DEAL, dealer=0)
    hands = [state.observation(s)["hand"] for s in range(4)]
    assert hands == [
        sorted("Qh As Th 8h Ah 9d 7c Jc".split()),
        sorted("Qc Js Kd 7h 8c Ac 7d Kc".split()),
        sorted("Td Jh 7s 8s Ts Qs 9c 8d".split()),
        sorted("Jd Ad 9h 9s Qd Ks Kh Tc".split()),
    ]
    play(state, ["1:trump:h"])
    play(state, ["1:7h", "2:Jh", "3:9h", "0:8h"])  # T1 → 2
    play(state, ["2:Qs", "3:9s", "0:As", "1:Js"])  # T2 → 0
    play(state, ["0:Ah", "1:7d", "2:Td"])
    assert state.legal_actions() == ["Jd", "Kh"]  # s3 follows hearts: K♥ or the left bauer
    play(state, ["3:Kh"])  # T3 → 0
    play(state, ["0:Qh", "1:8c", "2:Ts"])
    assert state.legal_actions() == ["Jd"]  # s3's only trump is forced
    play(state, ["3:Jd"])  # T4 → 3
    play(state, ["3:Ad", "0:9d", "1:Kd", "2:8d"])  # T5 → 3
    play(state, ["3:Ks", "0:7c", "1:Ac", "2:7s"])  # T6 → 3
    play(state, ["3:Qd", "0:Jc", "1:Kc", "2:8s"])  # T7 → 3
    assert [t["winner"] for t in state.observation(0)["tricks"]] == [2, 0, 0, 3, 3, 3, 3]
    play(state, ["3:Tc", "0:Th", "1:Qc", "2:9c"])  # T8 → 0 (10♥ trumps)
    record = state.deals[0]
    assert record.info == {"trump": "h", "caller": 1, "team_tricks": [4, 4]}
    assert record.scores == [0, 0, 0, 0]
    assert state.points == [8, 8]  # the calling team did not win more: unchanged


# -- 9. game end --------------------------------------------------------------------------------


def test_4_8_9_reaching_zero_ends_the_game_at_once() -> None:
    state = new_state(DECK_CALLER_6_2, dealer=3, start_points=1)
    state.apply_action("trump:h")
    play_first_legal(state)
    assert state.deals[0].info["team_tricks"] == [6, 2]
    assert state.points == [0, 1]
    assert state.is_terminal() and state.legal_actions() == []
    assert state.returns() == [1.0, 0.0, 1.0, 0.0]
    assert len(state.deals) == 1


def test_4_8_9_a_tied_hand_at_one_point_changes_nothing_and_play_continues() -> None:
    state = new_state(DECK_CALLER_4_4, dealer=3, start_points=1)
    state.apply_action("trump:h")
    play_first_legal(state)
    assert state.deals[0].info["team_tricks"] == [4, 4]
    assert state.points == [1, 1]
    assert not state.is_terminal()
    assert state.observation(1)["phase"] == "call" and state.current_player() == 1


# -- 10. deal indices ---------------------------------------------------------------------------


def test_4_8_10_deck_index_k_goes_to_seat_dealer_plus_one_plus_k() -> None:
    deck = [str(c) for c in engine.load_game("bauer").deck]
    state = new_state(" ".join(deck), dealer=3)
    for seat in range(4):
        assert state.observation(seat)["hand"] == sorted(deck[seat::4])
    state = new_state(" ".join(deck), dealer=1)
    assert state.observation(2)["hand"] == sorted(deck[0::4])  # index 0 → seat 2


def test_max_deals_ends_a_game_that_never_reaches_zero() -> None:
    state = engine.load_game("bauer", max_deals=3).new_initial_state(8)
    rng = random.Random(8)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert len(state.deals) == 3 and all(d.scores is not None for d in state.deals)
