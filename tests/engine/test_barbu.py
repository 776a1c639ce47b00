"""Barbu (RULES.md §1): the §1.11 scenarios, contract totals, schedules, options, observations."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

import engine
from engine import IllegalAction, InvalidParams
from engine.cards import BIT, CARD_BY_TEXT, RANK_VALUE, TEXT_OF, cards
from engine.games.barbu import BarbuGame, BarbuState
from engine.games.barbu_rules import (
    DECK_32,
    DECK_52,
    SALAD_RULES,
    domino_fits,
    domino_playable,
    trick_value,
)

STANDARD = ["no_tricks", "no_hearts", "no_queens", "no_king_of_hearts", "no_last_two", "trumps",
            "domino"]
SALAD = ["no_tricks", "no_hearts", "no_queens", "no_king_of_hearts", "no_last_trick", "salad"]
TOTALS = {  # RULES.md §1.6 / §1.8.5 / scenario 1.11.1
    (False, 52): dict(zip(STANDARD, [-26, -30, -24, -20, -30, 65, 65], strict=True)),
    (False, 32): dict(zip(STANDARD, [-16, -20, -24, -20, -30, 40, 65], strict=True)),
    (True, 52): dict(zip(SALAD, [-65, -130, -80, -50, -30, -355], strict=True)),
    (True, 32): dict(zip(SALAD, [-40, -80, -80, -50, -30, -280], strict=True)),
}


# -- helpers --------------------------------------------------------------------------------------


def ten(text: str) -> str:
    """RULES.md writes the ten as ``10``; the engine's card text is ``T``."""
    return text.replace("10", "T")


def new_state(
    *, dealer: int = 0, decks: list[list[str]] | None = None, seed: int = 0, **params: Any
) -> BarbuState:
    state = engine.load_game("barbu", **params).new_initial_state(
        seed, decks=decks, first_dealer=dealer
    )
    assert isinstance(state, BarbuState)
    return state


def deck_from_hands(hands: dict[int, str], dealer: int = 0) -> list[str]:
    """The deck order that deals ``hands``: deck index k goes to seat (dealer + 1 + k) mod 4."""
    split = {seat: ten(text).split() for seat, text in hands.items()}
    size = len(split[0])
    assert all(len(h) == size for h in split.values())
    return [split[(dealer + 1 + k) % 4][k // 4] for k in range(4 * size)]


def complete(partial: dict[int, str], voids: dict[int, str] | None = None, size: int = 13) -> dict[
    int, str
]:
    """Fill ``partial`` hands up to ``size`` cards with the remaining cards, keeping ``voids``."""
    voids = voids or {}
    deck = DECK_52 if size == 13 else DECK_32
    hands = {seat: ten(partial.get(seat, "")).split() for seat in range(4)}
    used = {c for h in hands.values() for c in h}
    for text in (TEXT_OF[c] for c in deck):
        if text in used:
            continue
        seats = [s for s in range(4) if len(hands[s]) < size and text[1] not in voids.get(s, "")]
        hands[min(seats, key=lambda s: len(hands[s]))].append(text)
    assert all(len(h) == size for h in hands.values()), hands
    return {seat: " ".join(h) for seat, h in hands.items()}


def play(state: BarbuState, moves: str) -> None:
    """Apply ``seat:action`` moves, checking that each seat is the one to act."""
    for move in ten(moves).replace("(out)", "").split():
        seat, action = move.split(":", 1)
        assert state.current_player() == int(seat), f"{move}: seat {state.current_player()} acts"
        state.apply_action(action)


def drive(state: BarbuState, scripts: dict[int, Any], tricks: int = 99) -> None:
    """Play the current deal on (up to ``tricks`` completed tricks): each seat plays its scripted
    cards in order, then its first legal action (scripted cards must be legal; the engine checks).
    The scripts are consumed, so a second call carries on where the first stopped.
    """
    for seat, text in scripts.items():
        if isinstance(text, str):
            scripts[seat] = ten(text).split()
    queues: dict[int, list[str]] = scripts
    deal = len(state.deals)
    while len(state.deals) == deal and len(state.table.completed) < tricks:
        seat = state.current_player()
        queue = queues.get(seat)
        state.apply_action(queue.pop(0) if queue else state.legal_actions()[0])


def set_hand(state: BarbuState, seat: int, text: str) -> None:
    """Give ``seat`` exactly these cards (for the legal-set scenarios stated mid-deal); the
    state's caches (legal list, hand texts, hand masks) follow."""
    state.hands[seat] = sorted(ten(text).split())
    state._forget_caches()


def finish_deal_randomly(state: BarbuState, rng: random.Random) -> None:
    deal = len(state.deals)
    while len(state.deals) == deal and not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(rng.choice(legal))


def last_scores(state: BarbuState, index: int = 0) -> list[int]:
    scores = state.deals[index].scores
    assert scores is not None
    return scores


# -- RULES.md §1.11 scenarios ---------------------------------------------------------------------


@pytest.mark.parametrize(("salad", "deck"), sorted(TOTALS))
def test_1_11_1_contract_totals(salad: bool, deck: int) -> None:
    totals = TOTALS[(salad, deck)]
    rng = random.Random(f"{salad}{deck}")
    for name, total in totals.items():
        for seed in range(6):
            state = new_state(seed=seed, dealer=seed % 4, salad=salad, deck=deck)
            options = [a for a in state.legal_actions() if a.split(":")[1] == name]
            state.apply_action(rng.choice(options))
            finish_deal_randomly(state, rng)
            assert sum(last_scores(state)) == total, (name, state.deals[0].info)


@pytest.mark.parametrize(
    "params",
    [
        {"mode": "repeat", "repeats": 3},
        {"mode": "geronimo"},
        {"mode": "geronimo", "doubling": True},
        {"mode": "geronimo", "doubling": True, "doubling_any_subset": True},
        {"mode": "geronimo", "salad": True, "deck": 32, "doubling": True},
        {"mode": "geronimo", "deck": 32, "geronimo_blocks": True},
    ],
)
def test_1_11_1_every_deal_of_a_game_sums_to_its_contract_total(params: dict[str, Any]) -> None:
    totals = TOTALS[(params.get("salad", False), params.get("deck", 52))]
    state = new_state(seed=17, dealer=1, **params)
    finish_game_randomly(state, random.Random(3))
    cumulative = [0, 0, 0, 0]
    for record in state.deals:
        info = record.info
        assert sum(info["contract_scores"]) == totals[info["contract"]]
        assert sum(last_scores(state, record.index)) == totals[info["contract"]]  # symmetric
        cumulative = [a + b for a, b in zip(cumulative, record.scores or [], strict=True)]
    assert state.returns() == [float(s) for s in cumulative]


def finish_game_randomly(state: BarbuState, rng: random.Random) -> None:
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))


def test_1_11_2_heart_lead_restriction() -> None:
    state = new_state()
    play(state, "0:contract:no_hearts")
    set_hand(state, 1, "Ah 5h 3c Kd")
    assert state.legal_actions() == ["3c", "Kd"]
    with pytest.raises(IllegalAction, match="heart"):
        state.apply_action("Ah")
    set_hand(state, 1, "Ah 5h 2h")
    assert state.legal_actions() == ["2h", "5h", "Ah"]
    other = new_state()
    play(other, "0:contract:no_queens")
    set_hand(other, 1, "Ah 5h 3c Kd")
    assert other.legal_actions() == ["3c", "5h", "Ah", "Kd"]


def test_1_11_3_void_discards_are_free() -> None:
    state = new_state()
    play(state, "0:contract:no_hearts")
    set_hand(state, 1, "5c 7c")
    play(state, "1:5c")
    set_hand(state, 2, "Ah Kh 2d")
    assert state.legal_actions() == ["2d", "Ah", "Kh"]


def test_1_11_4_king_of_hearts_ends_the_deal_at_once() -> None:
    hands = complete({1: "2c Qd", 2: "Ac 4d", 3: "3c 9d", 0: "4c Kh"}, voids={0: "d"})
    state = new_state(decks=[deck_from_hands(hands)])
    play(state, "0:contract:no_king_of_hearts 1:2c 2:Ac 3:3c 0:4c")
    play(state, "2:4d 3:9d 0:Kh 1:Qd")
    assert last_scores(state) == [0, -20, 0, 0]
    assert state.deals[0].info["tricks_played"] == 2
    assert len(state.deals) == 2 and state.current_player() == 1  # next dealer declares


def test_1_11_5_no_queens_ends_when_all_four_are_taken() -> None:
    hands = complete(
        {1: "2s Qh 4c", 2: "Qs 5d Qc", 3: "3s Qd 2c", 0: "4s 6d 3c"}, voids={1: "d"}
    )
    state = new_state(decks=[deck_from_hands(hands)])
    play(state, "0:contract:no_queens 1:2s 2:Qs 3:3s 0:4s")
    play(state, "2:5d 3:Qd 0:6d 1:Qh")
    assert state.observation(0)["deal_scores"] == [0, 0, -6, -12]
    play(state, "3:2c 0:3c 1:4c 2:Qc")
    assert last_scores(state) == [0, 0, -12, -12]
    assert state.deals[0].info["tricks_played"] == 3


def test_1_11_6_no_last_two() -> None:
    hands_a = {
        1: "As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 3s 2c",
        2: "Ah Kh Qh Jh Th 9h 8h 7h 6h 5h 4h 3h 2h",
        3: "Ad Kd Qd Jd Td 9d 8d 7d 6d 5d 4d 3d 2d",
        0: "2s Ac Kc Qc Jc Tc 9c 8c 7c 6c 5c 4c 3c",
    }
    state = new_state(decks=[deck_from_hands(hands_a)])
    play(state, "0:contract:no_last_two")
    scripts = {1: "As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 2c 3s",
               0: "2s Kc Qc Jc Tc 9c 8c 7c 6c 5c 4c 3c Ac"}
    drive(state, scripts, tricks=12)
    assert state.observation(0)["tricks"][-1]["winner"] == 0
    assert state.observation(0)["deal_scores"] == [-10, 0, 0, 0]
    drive(state, scripts)
    assert last_scores(state) == [-30, 0, 0, 0]

    hands_b = {
        1: "As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 2d Ac",
        2: "Ah Kh Qh Jh Th 9h 8h 7h 6h 5h 4h 3h 2h",
        3: "Ad Kd Qd Jd Td 9d 8d 7d 6d 5d 4d 3d 2c",
        0: "3s 2s Kc Qc Jc Tc 9c 8c 7c 6c 5c 4c 3c",
    }
    state = new_state(decks=[deck_from_hands(hands_b)])
    play(state, "0:contract:no_last_two")
    scripts = {1: "As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 2d Ac",
               3: "Kd Qd Jd Td 9d 8d 7d 6d 5d 4d 3d Ad 2c",
               0: "3s 2s Kc Qc Jc Tc 9c 8c 7c 6c 5c 4c 3c"}
    drive(state, scripts, tricks=12)
    assert state.observation(0)["tricks"][-1]["winner"] == 3
    drive(state, scripts)
    assert last_scores(state) == [0, -20, 0, -10]


def test_1_11_7_trumps_winner_and_trump_options() -> None:
    hands = complete({1: "Ah", 2: "2h", 3: "2s", 0: "Kh"}, voids={3: "h"})
    state = new_state(decks=[deck_from_hands(hands)])
    play(state, "0:contract:trumps:s 1:Ah 2:2h 3:2s 0:Kh")
    assert state.observation(0)["tricks"][0]["winner"] == 3
    assert last_scores_so_far(state) == [0, 0, 0, 5]

    def legal_after(moves: str, hand: str, **options: Any) -> list[str]:
        s = new_state(**options)
        play(s, "0:contract:trumps:s")
        for move in moves.split():
            seat, text = move.split(":")
            set_hand(s, int(seat), f"{text} 7c")
            play(s, move)
        set_hand(s, 3 if len(moves.split()) == 2 else 2, hand)
        return s.legal_actions()

    both: dict[str, Any] = {"must_trump_when_void": True, "must_overtrump": True}
    assert legal_after("1:Ah 2:2h", "2s As 3d") == ["2s", "3d", "As"]
    assert legal_after("1:Ah 2:2h", "2s As 3d", must_trump_when_void=True) == ["2s", "As"]
    assert legal_after("1:Ah 2:9s", "2s As 3d", **both) == ["As"]
    assert legal_after("1:9s", "2s As 3d") == ["2s", "As"]
    assert legal_after("1:9s", "2s As 3d", must_overtrump=True) == ["As"]


def last_scores_so_far(state: BarbuState) -> list[int]:
    return list(state.observation(0)["deal_scores"])


def test_1_11_8_domino_legality() -> None:
    state = new_state()
    play(state, "0:contract:domino:6")
    set_hand(state, 1, "6s 7s 5h 9d 6c")
    assert state.legal_actions() == ["6c", "6s"]
    play(state, "1:6s")
    set_hand(state, 2, "5s 7s 6h 2c")  # the seed's example: after 6s, 5s / 7s / any other 6
    assert state.legal_actions() == ["5s", "6h", "7s"]
    play(state, "2:7s")
    set_hand(state, 3, "6h 2d")
    play(state, "3:6h")
    set_hand(state, 0, "5s 8s 5h 7h 6d 6c 7d 5c")
    assert state.legal_actions() == ["5h", "5s", "6c", "6d", "7h", "8s"]
    with pytest.raises(IllegalAction, match="suit d is not open: it opens only with .* rank 6"):
        state.apply_action("7d")
    with pytest.raises(IllegalAction, match="pass"):
        state.apply_action("pass")
    layout = {"s": ["6", "7"], "h": ["6", "6"], "d": None, "c": None}
    assert state.observation(0)["layout"] == layout
    # layout spades 6..K, hearts 2..9 (a pure legality check: the hand is not a real position)
    lo, hi = [6, 2, 0, 0], [13, 9, 0, 0]  # suit order s h d c
    assert domino_playable(["As", "Ah", "2s", "3h"], 6, lo, hi) == ["As"]


@pytest.mark.parametrize("deck", [DECK_52, DECK_32])
def test_domino_fits_from_the_mask_as_domino_playable_from_the_texts(deck: Any) -> None:
    """The compiled path (:func:`domino_fits`, from the hand's bit mask) and the card-by-card
    one agree on random hands and layouts: closed suits, runs at either end, complete suits."""
    rng = random.Random(5)
    texts = [TEXT_OF[c] for c in deck]
    low_rank = min(RANK_VALUE[t[0]] for t in texts)
    for _ in range(3000):
        hand = sorted(rng.sample(texts, rng.randint(0, 13)))
        mask = 0
        for t in hand:
            mask |= BIT[CARD_BY_TEXT[t]]
        rank = rng.randint(low_rank, 14)
        lo, hi = [0, 0, 0, 0], [0, 0, 0, 0]
        for s in range(4):
            if rng.random() < 0.75:  # open: a run around the declared rank
                lo[s], hi[s] = rng.randint(low_rank, rank), rng.randint(rank, 14)
        assert domino_fits(mask, rank, lo, hi) == domino_playable(hand, rank, lo, hi)


SCENARIO_9_DECK = (
    "8s 10c 4d 5h 10s 7s 2c Ah 6c 10h As 9h 9c 4s Qd 4c 5s Ad 6h Ac 10d 7d 8h Jc Kh Jd Qc 3s Jh 9s "
    "5d 3h Js 6s 3d Qh Kd 2s 4h 9d 5c Ks 8d 8c 2h 6d 7h 3c Kc 7c 2d Qs"
)
SCENARIO_9_MOVES = (
    "1:8s 2:7s 3:8h 0:9h 1:pass 2:6s 3:7h 0:8c 1:5s 2:4s 3:6h 0:3s 1:9c 2:2s 3:8d 0:5h 1:pass "
    "2:9s 3:4h 0:3h 1:10s 2:10h 3:pass 0:9d 1:Js 2:7d 3:pass 0:Qs 1:2h 2:Ks 3:As 0:pass 1:Jh "
    "2:6d 3:5d 0:Qh 1:Kh 2:7c 3:4d 0:Ah 1:10d 2:Jd 3:3d 0:pass 1:6c 2:10c 3:2d 0:Jc 1:5c "
    "2:pass 3:Qd 0:4c 1:Kd 2:Ad(out) 3:Qc 0:3c 1:Kc(out) 3:2c(out)"
)


def test_1_11_9_domino_full_deal() -> None:
    state = new_state(decks=[ten(SCENARIO_9_DECK).split()])
    play(state, "0:contract:domino:8")
    moves = ten(SCENARIO_9_MOVES).replace("(out)", "").split()
    for move in moves[:-1]:
        if move.endswith("pass"):
            assert state.legal_actions() == ["pass"], f"{move} is not forced"
        play(state, move)
    assert state.observation(0)["hand"] == ["Ac"]
    play(state, moves[-1])
    assert state.deals[0].info["finishing_order"] == [2, 1, 3, 0]
    assert state.observation(0)["deal"] == 1  # the next deal has begun
    assert last_scores(state) == [-5, 20, 45, 5]
    assert state.returns() == [-5.0, 20.0, 45.0, 5.0]


SCENARIO_10_DECK = (
    "Ks 7h Js Ad 6c 3d Qc Qd Kc Ac Jc Ah 3c 8d 4d 7d 6h 10h 3h 9h 8h 6s 4s 2d As 10d 7s 10s 2h 8c "
    "Kd 2s Jd 8s Kh 5c 6d Qh 9s Qs 5s 9c 4h 5d 3s 9d 4c 7c Jh 10c 5h 2c"
)
SCENARIO_10_TRICKS = [
    ("1:3c 2:8c 3:4c 0:7c", 2), ("2:3d 3:4d 0:2d 1:6d", 1), ("1:3s 2:6s 3:4s 0:2s", 2),
    ("2:8d 3:Kd 0:Qd 1:Jd", 3), ("3:7s 0:10s 1:5s 2:8s", 0), ("0:2c 1:6c 2:9c 3:Jc", 3),
    ("3:9s 0:Qs 1:Ks 2:Qh", 1), ("1:Kc 2:10c 3:Qc 0:5c", 1), ("1:As 2:10h 3:Js 0:Ah", 1),
    ("1:2h 2:7h 3:5h 0:9h", 0), ("0:5d 1:Jh 2:9d 3:Kh", 2), ("2:10d 3:4h 0:7d 1:8h", 2),
    ("2:Ac 3:3h 0:Ad 1:6h", 2),
]


def test_1_11_10_no_hearts_full_deal() -> None:
    state = new_state(decks=[ten(SCENARIO_10_DECK).split()])
    play(state, "0:contract:no_hearts")
    for number, (moves, winner) in enumerate(SCENARIO_10_TRICKS, start=1):
        if number == 9:  # seat 1 holds hearts and other suits: a heart lead is rejected
            hearts = [c for c in state.observation(1)["hand"] if c[1] == "h"]
            assert hearts and not set(hearts) & set(state.legal_actions())
            with pytest.raises(IllegalAction):
                state.apply_action(hearts[0])
        if number == 10:  # seat 1 holds only hearts: the heart lead is legal
            assert all(c[1] == "h" for c in state.observation(1)["hand"])
        play(state, moves)
        if number < 13:
            assert state.observation(0)["tricks"][-1]["winner"] == winner
    assert last_scores(state) == [-8, -10, -12, 0]


def scenario_11_state(**options: Any) -> BarbuState:
    hands = complete({1: "As Ad 4c 3h", 2: "Qs Qd 5c Qh", 3: "2s 2d Qc Ah", 0: "3s 3d Ac 2h"})
    state = new_state(decks=[deck_from_hands(hands)], mode="geronimo", doubling=True, **options)
    play(state, "0:contract:no_queens 1:double:0")
    assert state.legal_actions() == [
        "double:0", "double:1", "double:3", "double:all", "double:none"
    ]
    play(state, "2:double:all")
    assert state.legal_actions() == ["double:1", "double:2", "double:all", "double:none"]
    with pytest.raises(IllegalAction, match="seat 0 has already been named 2 times"):
        state.apply_action("double:0")  # seat 0 was already named twice
    play(state, "3:double:1")
    play(state, "1:As 2:Qs 3:2s 0:3s 1:Ad 2:Qd 3:2d 0:3d 1:4c 2:5c 3:Qc 0:Ac 0:2h 1:3h 2:Qh 3:Ah")
    return state


def test_1_11_11_doubling_symmetric_settlement() -> None:
    state = scenario_11_state()
    info = state.deals[0].info
    assert info["contract_scores"] == [-6, -12, 0, -6]
    assert info["designations"] == [
        {"seat": 1, "targets": [0]}, {"seat": 2, "targets": [0, 1, 3]}, {"seat": 3, "targets": [1]},
    ]
    assert info["doubling_adjustments"] == [0, -24, 24, 0]
    assert last_scores(state) == [-6, -36, 24, -6]
    assert state.returns() == [-6.0, -36.0, 24.0, -6.0]


def test_1_11_11_doubling_proposer_gain_only() -> None:
    state = scenario_11_state(doubling_payout="proposer_gain_only")
    assert state.deals[0].info["doubling_adjustments"] == [0, 0, 24, 6]
    assert last_scores(state) == [-6, -12, 24, 0]


def test_1_11_12_salad_trick_scorer() -> None:
    salad = SALAD_RULES["salad"]
    seat_2 = [cards("3s 2h Qh Kh"), cards("Ac 2c 5c 9c")]
    assert trick_value(salad, seat_2[0], 5, 13) == -105
    assert trick_value(salad, seat_2[1], 13, 13) == -35  # seat 2: -105 - 35 = -140
    rest = [c for c in DECK_52 if all(c not in t for t in seat_2)]
    seat_1 = [rest[i : i + 4] for i in range(0, 44, 4)]  # the 11 other tricks, any grouping
    numbers = [n for n in range(1, 14) if n not in (5, 13)]
    assert sum(trick_value(salad, t, n, 13) for t, n in zip(seat_1, numbers, strict=True)) == -215


def test_1_11_12_salad_full_deal_with_the_same_scores() -> None:
    """A legal deal in which, as in the scenario, seat 2 takes Q♥ K♥ 2♥ in two tricks including
    the last, and seat 1 the 11 others with the other ten hearts and Q♠ Q♦ Q♣."""
    hands = {
        1: "As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 2c 3c",
        2: "3s Ac Kc Qc Jc Tc 9c 8c 7c 6c 5c 4c 2d",
        3: "2s Qh 2h Ah Jh Th 9h 8h Kd Qd Jd Td 9d",
        0: "Kh 7h 6h 5h 4h 3h Ad 8d 7d 6d 5d 4d 3d",
    }
    state = new_state(decks=[deck_from_hands(hands)], salad=True)
    play(state, "0:contract:salad")
    drive(state, {
        1: "As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 2c 3c",
        2: "3s Qc Jc Tc 9c 8c 7c 6c 5c 4c 2d Ac Kc",
        3: "2s Ah Jh Th 9h 8h Kd Qd Jd Td 9d Qh 2h",
        0: "7h 6h 5h 4h 3h Ad 8d 7d 6d 5d 4d Kh 3d",
    })
    assert state.deals[0].info["tricks_played"] == 13
    assert last_scores(state) == [0, -215, -140, 0]


@pytest.mark.parametrize(("salad", "deals"), [(False, 28), (True, 24)])
def test_1_11_13_geronimo_schedule(salad: bool, deals: int) -> None:
    state = new_state(dealer=2, mode="geronimo", salad=salad)
    menu = SALAD if salad else STANDARD
    rng = random.Random(5)
    first = "contract:no_tricks" if salad else "contract:trumps:s"
    first_name = first.split(":")[1]
    play(state, f"2:{first}")
    finish_deal_randomly(state, rng)
    while not state.is_terminal():
        index = len(state.deals) - 1
        declarer = (2 + index) % 4
        assert state.current_player() == declarer and state.deals[-1].dealer == declarer
        names = {a.split(":")[1] for a in state.legal_actions()}
        if index == 4:  # seat 2's second declaration: everything but its first contract
            assert names == set(menu) - {first_name}
        if index >= 4 * (len(menu) - 1):  # the last declaration of each seat is forced
            assert len(names) == 1
        state.apply_action(rng.choice(state.legal_actions()))
        finish_deal_randomly(state, rng)
    assert len(state.deals) == deals
    declared = Counter((r.dealer, r.info["contract"]) for r in state.deals)
    assert declared == Counter({(seat, name): 1 for seat in range(4) for name in menu})


# -- schedules, modes and options -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "deals"),
    [({}, 4), ({"mode": "repeat"}, 8), ({"mode": "repeat", "repeats": 3}, 12),
     ({"mode": "geronimo"}, 28), ({"mode": "geronimo", "salad": True}, 24),
     ({"deck": 32, "salad": True}, 4)],
)
def test_match_length_and_dealer_rotation(params: dict[str, Any], deals: int) -> None:
    state = new_state(dealer=3, **params)
    finish_game_randomly(state, random.Random(1))
    assert [r.dealer for r in state.deals] == [(3 + i) % 4 for i in range(deals)]


def test_geronimo_blocks_give_one_declarer_consecutive_deals() -> None:
    state = new_state(dealer=1, mode="geronimo", geronimo_blocks=True)
    finish_game_randomly(state, random.Random(2))
    assert [r.dealer for r in state.deals] == [(1 + i // 7) % 4 for i in range(28)]
    assert all(
        sorted(r.info["contract"] for r in state.deals[7 * k : 7 * k + 7]) == sorted(STANDARD)
        for k in range(4)
    )


def test_base_mode_allows_repeated_contracts() -> None:
    state = new_state()
    play(state, "0:contract:no_tricks")
    finish_deal_randomly(state, random.Random(0))
    assert "contract:no_tricks" in state.legal_actions()
    assert len(state.legal_actions()) == 5 + 4 + 13  # five plain, four trump suits, 13 ranks


def test_declaration_actions_are_sorted_and_cover_every_parameter() -> None:
    assert new_state().legal_actions() == sorted(
        ["contract:no_tricks", "contract:no_hearts", "contract:no_queens",
         "contract:no_king_of_hearts", "contract:no_last_two"]
        + [f"contract:trumps:{s}" for s in "shdc"]
        + [f"contract:domino:{r}" for r in "23456789TJQKA"]
    )
    short = new_state(deck=32).legal_actions()
    assert [a for a in short if a.startswith("contract:domino")] == sorted(
        f"contract:domino:{r}" for r in "789TJQKA"
    )
    assert new_state(salad=True).legal_actions() == sorted(f"contract:{n}" for n in SALAD)


def test_32_card_deck_deals_eight_cards_and_plays_eight_tricks() -> None:
    state = new_state(deck=32)
    assert state.observation(0)["hand_sizes"] == [8, 8, 8, 8]
    assert all(RANK_VALUE[c[0]] >= 7 for h in state.deals[0].hands for c in h)
    play(state, "0:contract:no_last_two")
    finish_deal_randomly(state, random.Random(4))
    info = state.deals[0].info
    assert info["tricks_played"] == 8 and sum(last_scores(state)) == -30


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"doubling": True}, "'doubling' requires mode='geronimo'"),
        ({"mode": "repeat", "doubling": True}, "'doubling'"),
        ({"geronimo_blocks": True}, "'geronimo_blocks'"),
        ({"repeats": 3}, "'repeats'"),
        ({"mode": "geronimo", "pagat_doubling_duties": True}, "'pagat_doubling_duties'"),
        ({"mode": "geronimo", "doubling_payout": "proposer_gain_only"}, "'doubling_payout'"),
        ({"deck": 36}, "'deck'"),
        ({"mode": "geronimo", "doubling": True, "doubling_cap_per_deal": 4}, "between 1 and 3"),
        ({"first_player": "right"}, "'first_player'"),
    ],
)
def test_invalid_params_name_the_parameter(params: dict[str, Any], error: str) -> None:
    with pytest.raises(InvalidParams, match=error):
        engine.load_game("barbu", **params)


def test_first_player_options() -> None:
    state = new_state(dealer=2)
    play(state, "2:contract:no_tricks")
    assert state.current_player() == 3
    state = new_state(dealer=2, first_player="declarer")
    play(state, "2:contract:no_tricks")
    assert state.current_player() == 2
    state = new_state(dealer=2, first_player="declarer")
    play(state, "2:contract:domino:8")
    assert state.current_player() == 2  # domino_first follows first_player by default
    state = new_state(dealer=2, domino_first="declarer")
    play(state, "2:contract:domino:8")
    assert state.current_player() == 2
    state = new_state(dealer=2, first_player="declarer", domino_first="left")
    play(state, "2:contract:domino:8")
    assert state.current_player() == 3


def test_force_kh_discard() -> None:
    for option, expected in ((False, ["2d", "Kh", "Qs"]), (True, ["Kh"])):
        state = new_state(force_kh_discard=option)
        play(state, "0:contract:no_king_of_hearts")
        set_hand(state, 1, "5c 7c")
        play(state, "1:5c")
        set_hand(state, 2, "Kh Qs 2d")
        assert state.legal_actions() == expected
    state = new_state(force_kh_discard=True)  # only where the K♥ scores
    play(state, "0:contract:no_tricks")
    set_hand(state, 1, "5c 7c")
    play(state, "1:5c")
    set_hand(state, 2, "Kh Qs 2d")
    assert state.legal_actions() == ["2d", "Kh", "Qs"]


def test_domino_pass_only_when_nothing_fits_and_finished_players_are_skipped() -> None:
    state = new_state(decks=[ten(SCENARIO_9_DECK).split()])
    play(state, "0:contract:domino:8")
    moves = ten(SCENARIO_9_MOVES).replace("(out)", "").split()
    play(state, " ".join(moves[:-3]))
    assert state.observation(0)["finished"] == [2]
    play(state, " ".join(moves[-3:-1]))  # 0:3c, then 1:Kc and seat 1 is out: 2 is skipped
    assert state.current_player() == 3


def test_any_subset_designations() -> None:
    state = new_state(mode="geronimo", doubling=True, doubling_any_subset=True)
    play(state, "0:contract:no_tricks")
    assert state.legal_actions() == sorted(
        ["double:none", "double:0", "double:2", "double:3", "double:0,2", "double:0,3",
         "double:2,3", "double:0,2,3"]
    )
    play(state, "1:double:0,3 2:double:0,1")
    assert "double:0" not in state.legal_actions() and "double:1,2" in state.legal_actions()
    play(state, "3:double:1,2")
    assert state.observation(0)["designations"][0] == {"seat": 1, "targets": [0, 3]}


def test_designation_cap_of_one() -> None:
    state = new_state(mode="geronimo", doubling=True, doubling_cap_per_deal=1)
    play(state, "0:contract:no_tricks 1:double:all")
    # 0, 2 and 3 already named once: ALL is seat 1 alone
    assert state.legal_actions() == ["double:1", "double:all", "double:none"]


def test_pagat_doubling_duties() -> None:
    params: dict[str, Any] = {"mode": "geronimo", "doubling": True, "pagat_doubling_duties": True}
    state = new_state(**params)
    play(state, "0:contract:trumps:h")
    # positive: the declarer only (ALL = the declarer)
    assert state.legal_actions() == ["double:0", "double:all", "double:none"]
    rng = random.Random(8)
    # everyone avoids doubling whenever allowed: the duty must force two doubles per declarer
    state = new_state(**params)
    forced = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        if state.phase == "double":
            forced += "double:none" not in legal
            state.apply_action("double:none" if "double:none" in legal else legal[0])
        else:
            state.apply_action(rng.choice(legal))
    doubles = Counter(
        (d["seat"], r.dealer) for r in state.deals for d in r.info["designations"]
        if r.dealer in d["targets"]
    )
    assert forced == 24
    assert doubles == Counter({(p, d): 2 for p in range(4) for d in range(4) if p != d})


# -- observations and records ---------------------------------------------------------------------


def test_observation_contents_and_privacy() -> None:
    state = new_state(mode="geronimo", doubling=True)
    obs = state.observation(2)
    assert obs["hand"] == state.deals[0].hands[2] and obs["legal"] == []
    assert obs["contracts_left"] == [STANDARD] * 4
    play(state, "0:contract:trumps:d 1:double:none 2:double:0 3:double:none")
    obs = state.observation(1)
    assert (obs["phase"], obs["contract"], obs["trump"]) == ("play", "trumps", "d")
    assert obs["declarer"] == obs["dealer"] == 0
    assert obs["legal"] == state.legal_actions() and obs["to_act"] == 1
    assert obs["contracts_left"][0] == [c for c in STANDARD if c != "trumps"]
    assert obs["designations"][1] == {"seat": 2, "targets": [0]}
    assert obs["declarer_doubled_by"] == [0, 0, 1, 0]
    first = obs["legal"][0]
    play(state, f"1:{first}")
    obs = state.observation(3)
    assert obs["trick"] == [{"seat": 1, "card": first}] and obs["hand_sizes"] == [13, 12, 13, 13]
    hidden = {c for s in (0, 1, 2) for c in state.hands[s]}
    assert not hidden & set(obs["hand"])
    text = repr(obs)
    assert not any(f"'{c}'" in text for c in hidden)  # no other hand anywhere in the observation


def test_domino_observation_shows_runs_moves_and_finishers() -> None:
    state = new_state(decks=[ten(SCENARIO_9_DECK).split()])
    play(state, "0:contract:domino:8 1:8s 2:7s 3:8h 0:9h 1:pass")
    obs = state.observation(0)
    assert obs["domino_rank"] == "8"
    assert obs["layout"] == {"s": ["7", "8"], "h": ["8", "9"], "d": None, "c": None}
    assert obs["domino_moves"][-1] == {"seat": 1, "action": "pass"}
    assert obs["tricks"] == [] and obs["trick"] == []


def test_deal_record_info() -> None:
    state = new_state(decks=[ten(SCENARIO_9_DECK).split()])
    play(state, "0:contract:domino:8")
    play(state, ten(SCENARIO_9_MOVES).replace("(out)", ""))
    assert state.deals[0].info == {
        "declarer": 0, "contract": "domino", "trump": None, "domino_rank": "8", "designations": [],
        "contract_scores": [-5, 20, 45, 5], "doubling_adjustments": [0, 0, 0, 0],
        "tricks_played": None, "finishing_order": [2, 1, 3, 0],
    }


def test_ties_share_places() -> None:
    """BAR-24: the match runner ranks with shared places."""
    assert engine.placings([10.0, 10.0, -5.0, -15.0]) == [1, 1, 3, 4]


# -- the heuristic agent --------------------------------------------------------------------------


def test_heuristic_beats_random_in_geronimo() -> None:
    game = engine.load_game("barbu", mode="geronimo")
    heuristic = random_side = 0.0
    for match in range(8):
        seat = match % 4
        agents = [
            engine.make_agent("barbu", "heuristic" if i == seat else "random", match * 4 + i)
            for i in range(4)
        ]
        result = engine.run_match(game, None, agents, seed=match)
        heuristic += result.scores[seat]
        random_side += (sum(result.scores) - result.scores[seat]) / 3
    assert heuristic / 8 > random_side / 8 + 100


@pytest.mark.parametrize("params", BarbuGame.example_params)
def test_heuristic_plays_every_variant(params: dict[str, Any]) -> None:
    agents = [engine.make_agent("barbu", "heuristic", i) for i in range(4)]
    result = engine.run_match("barbu", params, agents, seed=9)
    assert not result.faults and result.games[0].state.is_terminal()


# -- audit: doubling "ALL", precise errors, the previous deal in the observation ------------------


def test_all_is_offered_while_at_least_one_player_is_below_the_cap() -> None:
    """RULES.md §1.8.4(3): ALL = every other player still below the cap (at least one must
    remain), so it is a legal choice even when it names a single player."""
    state = new_state(mode="geronimo", doubling=True, doubling_cap_per_deal=1)
    play(state, "0:contract:no_tricks 1:double:all")  # seats 0, 2, 3 are capped
    assert state.legal_actions() == ["double:1", "double:all", "double:none"]
    play(state, "2:double:all")
    assert state.observation(0)["designations"][1] == {"seat": 2, "targets": [1]}
    assert state.legal_actions() == ["double:none"]  # nobody left below the cap
    with pytest.raises(IllegalAction, match="nobody is left to name"):
        state.apply_action("double:all")


@pytest.mark.parametrize(
    ("params", "moves", "action", "reason"),
    [
        ({}, "", "bogus", "declare one contract"),
        ({}, "", "contract:trumps", "Trumps needs a trump suit"),
        ({}, "", "contract:trumps:x", "Trumps needs a trump suit"),
        ({}, "", "contract:domino:10", r"starting rank 2\.\.A \(the ten is T\)"),
        ({"deck": 32}, "", "contract:domino:6", r"starting rank 7\.\.A"),
        ({}, "", "contract:no_tricks:s", "takes no parameter"),
        ({}, "", "contract:salad", "only with salad"),
        ({"salad": True}, "", "contract:trumps:s", "Salad: only"),
        ({"mode": "geronimo", "doubling": True}, "0:contract:no_tricks", "double:1",
         "cannot name themself"),
        ({"mode": "geronimo", "doubling": True}, "0:contract:no_tricks", "double:0,2",
         "doubling_any_subset"),
        ({"mode": "geronimo", "doubling": True}, "0:contract:no_tricks", "double:7",
         "seats 0-3"),
        ({"mode": "geronimo", "doubling": True}, "0:contract:no_tricks", "pass",
         "double:none, double:<seat> or double:all"),
        ({"mode": "geronimo", "doubling": True, "doubling_any_subset": True},
         "0:contract:no_tricks", "double:all", r"name the players, e\.g\. double:0,2,3"),
        ({"mode": "geronimo", "doubling": True, "doubling_any_subset": True},
         "0:contract:no_tricks", "double:3,0", "increasing order"),
        ({"mode": "geronimo", "doubling": True}, "0:contract:no_tricks 1:double:0 2:double:0",
         "double:0", r"seat 0 has already been named 2 times in this deal"),
        ({"mode": "geronimo", "doubling": True, "pagat_doubling_duties": True},
         "0:contract:trumps:s", "double:2", "only the declarer"),
    ],
)
def test_illegal_declarations_and_designations_say_exactly_why(
    params: dict[str, Any], moves: str, action: str, reason: str
) -> None:
    state = new_state(**params)
    play(state, moves)
    with pytest.raises(IllegalAction, match=reason):
        state.apply_action(action)


def test_geronimo_repeat_is_explained() -> None:
    state = new_state(mode="geronimo")
    play(state, "0:contract:no_tricks")
    for _ in range(3):
        finish_deal_randomly(state, random.Random(0))
    finish_deal_randomly(state, random.Random(0))  # deal 4: seat 0 declares again
    with pytest.raises(IllegalAction, match="seat 0 has already declared no_tricks"):
        state.apply_action("contract:no_tricks")


def test_illegal_cards_say_which_duty_applies() -> None:
    both: dict[str, Any] = {"must_trump_when_void": True, "must_overtrump": True}

    def after(moves: str, seat: int, hand: str, contract: str, **options: Any) -> BarbuState:
        s = new_state(**options)
        play(s, f"0:contract:{contract}")
        for move in moves.split():
            who, text = move.split(":")
            set_hand(s, int(who), f"{text} 7c")
            play(s, move)
        set_hand(s, seat, hand)
        return s

    cases = [
        (after("", 1, "Ah 3c", "no_hearts"), "Ah", "no heart lead while holding another suit"),
        (after("", 1, "Ah 3c", "no_hearts"), "As", "not a card in your hand"),
        (after("", 1, "Ah 3c", "no_hearts"), "10c", "not a card: .* the ten is T"),
        (after("1:5d", 2, "2d 3c", "no_tricks"), "3c", r"must follow the suit led \(d\)"),
        (after("1:9s", 2, "2s As 3d", "trumps:s", must_overtrump=True), "2s",
         "must_overtrump: play a trump above 9s"),
        (after("1:Ah 2:2h", 3, "2s As 3d", "trumps:s", must_trump_when_void=True), "3d",
         "must_trump_when_void: void in h, play a trump"),
        (after("1:Ah 2:9s", 3, "2s As 3d", "trumps:s", **both), "2s",
         "must_overtrump: play a trump above 9s"),
        (after("1:5c", 2, "Kh Qs 2d", "no_king_of_hearts", force_kh_discard=True), "Qs",
         "force_kh_discard: void in c, discard the Kh"),
    ]
    for state, action, reason in cases:
        with pytest.raises(IllegalAction, match=reason):
            state.apply_action(action)


def test_illegal_domino_moves_say_why() -> None:
    state = new_state(decks=[ten(SCENARIO_9_DECK).split()])
    play(state, "0:contract:domino:8 1:8s 2:7s 3:8h")  # spades 7..8, hearts 8..8
    assert state.legal_actions() == ["8c", "9h"]  # seat 0 holds Qs 9d, not Ks
    for action, reason in [
        ("pass", "pass only when no card fits"),
        ("Ks", "not a card in your hand"),
        ("double:none", r"not a card: .* or pass"),
        ("Qs", r"suit s runs 7\.\.8: only 6s or 9s fit"),
        ("9d", r"suit d is not open: it opens only with the declared rank 8"),
    ]:
        with pytest.raises(IllegalAction, match=reason):
            state.apply_action(action)
    lo, hi = [2, 0, 0, 0], [14, 0, 0, 0]  # a complete suit: nothing more fits
    assert domino_playable(["3h"], 8, lo, hi) == []


def test_the_previous_deal_stays_visible_without_its_unplayed_cards() -> None:
    """RULES.md §0: every card played and who won each trick is public, but a bot's next
    observation after a deal ends is already in the next deal: ``last_deal`` keeps the finished
    deal (its tricks or domino moves, scores, doubling) and never the cards left unplayed."""
    hands = complete({1: "2c Qd", 2: "Ac 4d", 3: "3c 9d", 0: "4c Kh"}, voids={0: "d"})
    state = new_state(decks=[deck_from_hands(hands)], mode="geronimo", doubling=True)
    assert state.observation(2)["last_deal"] is None
    play(state, "0:contract:no_king_of_hearts 1:double:0 2:double:none 3:double:none")
    play(state, "1:2c 2:Ac 3:3c 0:4c 2:4d 3:9d 0:Kh 1:Qd")  # K♥ taken: the deal ends early
    obs = state.observation(2)
    last = obs["last_deal"]
    assert obs["deal"] == 1 and last["deal"] == 0
    assert (last["declarer"], last["contract"], last["trump"]) == (0, "no_king_of_hearts", None)
    assert last["designations"] == [
        {"seat": 1, "targets": [0]}, {"seat": 2, "targets": []}, {"seat": 3, "targets": []}
    ]
    assert last["tricks"][-1] == {"leader": 2, "cards": ["4d", "9d", "Kh", "Qd"], "winner": 1}
    assert last["contract_scores"] == [0, -20, 0, 0]
    assert last["doubling_adjustments"] == [20, -20, 0, 0]  # bet (1, 0): d = -20
    assert last["deal_scores"] == [20, -40, 0, 0] == obs["scores"]
    unplayed = {c for h in hands.values() for c in ten(h).split()} - {
        c for t in last["tricks"] for c in t["cards"]
    }
    assert not any(f"'{c}'" in repr(last) for c in unplayed)

    state = new_state(decks=[ten(SCENARIO_9_DECK).split()])
    play(state, "0:contract:domino:8")
    play(state, ten(SCENARIO_9_MOVES).replace("(out)", ""))
    last = state.observation(1)["last_deal"]
    assert last["finishing_order"] == [2, 1, 3, 0] and last["tricks"] == []
    assert last["domino_moves"][-1] == {"seat": 3, "action": "2c"}
    assert last["layout"]["c"] == ["2", "K"]  # seat 0's A♣ stays hidden
    assert "'Ac'" not in repr(last)


def test_observation_names_who_plays_first_in_domino() -> None:
    """With ``domino_first`` the Domino starter differs from the trick contracts' first player;
    the observation's ``first_player`` names whoever actually plays first, from the declaration
    on (designators see it before betting)."""
    params: dict[str, Any] = {"mode": "geronimo", "doubling": True, "domino_first": "declarer"}
    state = new_state(dealer=2, **params)
    assert state.observation(0)["first_player"] == 3
    play(state, "2:contract:domino:8")
    assert state.observation(3)["first_player"] == 2
    play(state, "3:double:none 0:double:none 1:double:none")
    assert state.current_player() == 2 == state.observation(0)["first_player"]
    state = new_state(dealer=2, first_player="declarer", domino_first="left")
    play(state, "2:contract:domino:8")
    assert state.current_player() == 3 == state.observation(0)["first_player"]


# -- differential check against a literal transcription of RULES.md §1.4-§1.6 ---------------------

_R = RANK_VALUE


def _spec_trick_legal(hand: list[str], trick: list[str], contract: str, trump: str | None,
                      opt: dict[str, Any]) -> list[str]:
    """RULES.md §1.4 pseudo-code, line by line (force_kh_discard where the K♥ scores)."""
    if not trick:
        if contract in ("no_hearts", "no_king_of_hearts", "salad") and any(
            c[1] != "h" for c in hand
        ):
            return sorted(c for c in hand if c[1] != "h")
        return sorted(hand)
    led = trick[0][1]
    follow = [c for c in hand if c[1] == led]

    def above(cands: list[str]) -> list[str]:
        top = max(_R[c[0]] for c in trick if c[1] == trump)
        return [c for c in cands if _R[c[0]] > top] or cands

    if follow:
        if contract == "trumps" and opt.get("must_overtrump") and led == trump:
            return sorted(above(follow))
        return sorted(follow)
    trumps = [c for c in hand if c[1] == trump]
    if contract == "trumps" and opt.get("must_trump_when_void") and trumps:
        if opt.get("must_overtrump") and any(c[1] == trump for c in trick):
            return sorted(above(trumps))
        return sorted(trumps)
    kh_scores = contract in ("no_king_of_hearts", "salad")
    if opt.get("force_kh_discard") and kh_scores and "Kh" in hand:
        return ["Kh"]
    return sorted(hand)


def _spec_trick_score(contract: str, salad: bool, cards_: list[str], n: int, last: int) -> int:
    """RULES.md §1.6 / §1.8.5: what the winner of trick ``n`` (of ``last``) scores."""
    hearts = [c for c in cards_ if c[1] == "h"]
    queens = sum(c[0] == "Q" for c in cards_)
    kh = "Kh" in cards_
    if not salad:
        return {
            "no_tricks": -2,
            "no_hearts": sum(-6 if c == "Ah" else -2 for c in hearts),
            "no_queens": -6 * queens,
            "no_king_of_hearts": -20 * kh,
            "no_last_two": -20 if n == last else -10 if n == last - 1 else 0,
            "trumps": 5,
        }[contract]
    every = contract == "salad"
    value = -5 if every or contract == "no_tricks" else 0
    value += -10 * len(hearts) if every or contract == "no_hearts" else 0
    value += -20 * queens if every or contract == "no_queens" else 0
    value += -50 * kh if every or contract == "no_king_of_hearts" else 0
    value += -30 if (every or contract == "no_last_trick") and n == last else 0
    return value


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"deck": 32},
        {"salad": True},
        {"salad": True, "deck": 32},
        {"must_overtrump": True},
        {"must_trump_when_void": True},
        {"must_overtrump": True, "must_trump_when_void": True, "deck": 32},
        {"force_kh_discard": True, "salad": True},
        {"first_player": "declarer", "force_kh_discard": True},
        {"domino_first": "declarer"},
    ],
)
def test_engine_agrees_with_the_rules_text_on_random_deals(params: dict[str, Any]) -> None:
    """Every legal set, trick winner, early end, Domino turn and deal score of random games."""
    rng = random.Random(str(params))
    last_trick = 8 if params.get("deck") == 32 else 13
    salad = params.get("salad", False)
    for seed in range(4):
        state = new_state(seed=seed, dealer=seed % 4, **params)
        while not state.is_terminal():
            index = len(state.deals) - 1
            record = state.deals[index]
            dealer = record.dealer
            for k, c in enumerate(record.deck):  # §1.2: deck index k -> seat dealer + 1 + k
                assert c in record.hands[(dealer + 1 + k) % 4]
            state.apply_action(rng.choice(state.legal_actions()))
            contract, trump = state.contract or "", state.trump
            hands = [list(h) for h in record.hands]
            if contract == "domino":
                domino_first = params.get("domino_first", params.get("first_player", "left"))
                starter = dealer if domino_first == "declarer" else (dealer + 1) % 4
                seat, runs, out = starter, {}, []
                while len(out) < 3:
                    assert state.current_player() == seat
                    fits = sorted(
                        c for c in hands[seat]
                        if (c[1] not in runs and _R[c[0]] == state.domino_rank)
                        or (c[1] in runs and _R[c[0]] in (runs[c[1]][0] - 1, runs[c[1]][1] + 1))
                    )
                    assert state.legal_actions() == (fits or ["pass"])
                    action = rng.choice(fits or ["pass"])
                    state.apply_action(action)
                    if action != "pass":
                        hands[seat].remove(action)
                        lo, hi = runs.get(action[1], (_R[action[0]], _R[action[0]]))
                        runs[action[1]] = (min(lo, _R[action[0]]), max(hi, _R[action[0]]))
                        out += [] if hands[seat] else [seat]
                    seat = (seat + 1) % 4
                    while not hands[seat]:
                        seat = (seat + 1) % 4
                expected = [0, 0, 0, 0]
                for place, q in enumerate(out + [q for q in range(4) if q not in out]):
                    expected[q] = (45, 20, 5, -5)[place]
            else:
                first = dealer if params.get("first_player") == "declarer" else (dealer + 1) % 4
                leader, expected, taken = first, [0, 0, 0, 0], []
                for n in range(1, last_trick + 1):
                    trick: list[str] = []
                    for i in range(4):
                        seat = (leader + i) % 4
                        assert state.current_player() == seat
                        legal = _spec_trick_legal(hands[seat], trick, contract, trump, params)
                        assert state.legal_actions() == legal, (contract, hands[seat], trick)
                        trick.append(rng.choice(legal))
                        hands[seat].remove(trick[-1])
                        state.apply_action(trick[-1])

                    def power(c: str, led: str = trick[0][1], trump: str | None = trump) -> int:
                        return 200 + _R[c[0]] if c[1] == trump else _R[c[0]] * (c[1] == led)

                    leader = (leader + max(range(4), key=lambda i: power(trick[i]))) % 4
                    expected[leader] += _spec_trick_score(contract, salad, trick, n, last_trick)
                    taken += trick
                    if contract == "no_queens" and sum(c[0] == "Q" for c in taken) == 4:
                        break
                    if contract == "no_king_of_hearts" and "Kh" in taken:
                        break
                assert state.deals[index].info["tricks_played"] == n
            assert state.deals[index].scores == expected, (contract, record.info)
