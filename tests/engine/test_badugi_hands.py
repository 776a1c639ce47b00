"""Badugi hand evaluation (RULES.md §2.1, scenarios 1–6 and 13 of §2.7)."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from engine.games.badugi import hand_kind, hand_name, hand_value
from engine.games.badugi_hands import CLASSES, all_hand_values, best_subset

RANKS = "A23456789TJQK"  # ace low: A=1 ... K=13
SUITS = "shdc"
DECK = [r + s for r in RANKS for s in SUITS]
LOW = {r: i + 1 for i, r in enumerate(RANKS)}


def canonical_key(hand: tuple[str, ...]) -> tuple[int, tuple[int, ...]]:
    """RULES.md §2.1's normative algorithm, literally: smaller key = better hand."""
    for k in (4, 3, 2, 1):
        best = None
        for sub in combinations(hand, k):
            ranks = [LOW[c[0]] for c in sub]
            suits = [c[1] for c in sub]
            if len(set(ranks)) == k and len(set(suits)) == k:
                key = (4 - k, tuple(sorted(ranks, reverse=True)))
                best = key if best is None else min(best, key)
        if best is not None:
            return best
    raise AssertionError("every card alone is a badugi subset")


def parse(text: str) -> list[str]:
    """Cards written as in RULES.md (``10`` for the ten, suit symbols allowed)."""
    symbols = {"\u2660": "s", "\u2665": "h", "\u2666": "d", "\u2663": "c"}
    out = []
    for token in text.split():
        if token[0] in symbols:  # "♠A" → "As"
            token = token[1:] + symbols[token[0]]
        out.append(token.replace("10", "T"))
    return out


def v(text: str) -> int:
    return hand_value(parse(text))


def test_every_hand_agrees_with_the_exhaustive_definition() -> None:
    """All 270,725 hands: same order and same ties as the canonical best-subset key."""
    value_of_key: dict[tuple[int, tuple[int, ...]], int] = {}
    key_of_value: dict[int, tuple[int, tuple[int, ...]]] = {}
    for hand in combinations(DECK, 4):
        key = canonical_key(hand)
        value = hand_value(hand)
        assert value_of_key.setdefault(key, value) == value, hand
        assert key_of_value.setdefault(value, key) == key, hand
    assert len(value_of_key) == 1092
    best_first = sorted(value_of_key)
    values = [value_of_key[k] for k in best_first]
    assert values == sorted(values, reverse=True), "a better key must have a greater value"
    assert values[0] == 1091 and values[-1] == 0


def test_scenario_13_census() -> None:
    table = all_hand_values()
    assert len(table) == 270_725
    kinds = Counter(hand_kind(value) for value in table)
    assert kinds == {"made": 17_160, "base": 154_440, "two-base": 96_252, "none": 2_873}
    assert len(set(table)) == 1092 == len(CLASSES)
    assert hand_name(["As", "2h", "3d", "4c"]) == "4 made (4-3-2-A)"
    assert max(table) == v("As 2h 3d 4c") and min(table) == v("Ks Kh Kd Kc")


@pytest.mark.parametrize(
    ("hand", "name"),
    [
        ("♠A ♣4 ♦5 ♥6", "6 made (6-5-4-A)"),
        ("♠A ♣4 ♦5 ♦6", "5 base (5-4-A)"),
        ("♠A ♣A ♦5 ♦6", "A-5 two-base"),
        ("♠4 ♠5 ♦6 ♥7", "7 base (7-6-4)"),
        ("♠4 ♣5 ♦6 ♥6", "6 base (6-5-4)"),
        ("♠2 ♦4 ♥4 ♥J", "J base (J-4-2)"),
    ],
)
def test_scenario_1_seed_examples(hand: str, name: str) -> None:
    assert hand_name(parse(hand)) == name


@pytest.mark.parametrize(
    ("winner", "loser"),
    [
        ("♥A ♣3 ♦6 ♠7", "♥2 ♣4 ♦5 ♠8"),
        ("♥A ♣2 ♦5 ♠7", "♥2 ♣4 ♦6 ♠7"),
        ("♥A ♣2 ♦5 ♠7", "♥A ♣3 ♦5 ♠7"),
        ("♥A ♣3 ♦5 ♠7", "♥2 ♣3 ♦5 ♠7"),
    ],
)
def test_scenario_2_seed_comparisons(winner: str, loser: str) -> None:
    assert v(winner) > v(loser)


@pytest.mark.parametrize(
    ("hand", "name"),
    [
        ("♠A ♠3 ♥A ♥2", "A-2 two-base"),  # not 3-A
        ("♠2 ♠5 ♥2 ♦3", "5 base (5-3-2)"),  # not two-base 3-2
        ("♠A ♠2 ♠3 ♥A", "A-2 two-base"),  # not a lone A
        ("♠7 ♥7 ♦7 ♠2", "2-7 two-base"),
        ("♠A ♠2 ♥A ♥2", "A-2 two-base"),
        ("♠A ♥2 ♦3 ♣3", "3 base (3-2-A)"),
    ],
)
def test_scenario_3_greedy_traps(hand: str, name: str) -> None:
    assert hand_name(parse(hand)) == name


def test_scenario_4_made_beats_base() -> None:
    assert hand_name(parse("♠K ♥Q ♦J ♣10")) == "K made (K-Q-J-T)"
    assert v("♠K ♥Q ♦J ♣10") > v("♠A ♥2 ♦3 ♣3")


def test_scenario_5_no_hand() -> None:
    assert hand_name(parse("♠A ♠2 ♠3 ♠4")) == "none (A)"
    assert hand_name(parse("♠K ♥K ♦K ♣K")) == "none (K)"
    assert v("♠A ♠2 ♠3 ♠4") > v("♠K ♥K ♦K ♣K")
    assert v("♣5 ♣6 ♣7 ♣8") > v("♠K ♥K ♦K ♣K")
    assert v("♠A ♣A ♦5 ♦6") > v("♠2 ♠3 ♠4 ♥5")
    assert hand_name(parse("♠2 ♠3 ♠4 ♥5")) == "2-5 two-base"


def test_scenario_6_ties() -> None:
    assert v("♠A ♥2 ♦3 ♣4") == v("♥A ♠2 ♣3 ♦4")
    assert v("♠4 ♠5 ♦6 ♥7") == v("♣4 ♥6 ♦7 ♣7")
    assert hand_name(parse("♣4 ♥6 ♦7 ♣7")) == "7 base (7-6-4)"


def test_cards_texts_and_order_do_not_matter() -> None:
    from engine.cards import cards

    hand = ["Kd", "2c", "As", "9h"]
    assert hand_value(hand) == hand_value(sorted(hand)) == hand_value(cards(hand))
    assert hand_value(tuple(reversed(hand))) == hand_value(hand)


@pytest.mark.parametrize(
    "bad", [["As", "As", "2c", "3d"], ["As", "2c", "3d"], ["As", "2c", "3d", "1x"]]
)
def test_bad_hands_are_rejected(bad: list[str]) -> None:
    with pytest.raises(ValueError):
        hand_value(bad)


def test_best_subset_reaches_the_value() -> None:
    from engine.cards import TEXT_OF, cards

    assert [TEXT_OF[c] for c in best_subset(cards("As 3s Ah 2h"))] in (["As", "2h"],)
    rng = random.Random(5)
    for _ in range(500):
        hand = rng.sample(DECK, 4)
        subset = [TEXT_OF[c] for c in best_subset(cards(hand))]
        assert len(subset) == len(CLASSES[hand_value(hand)])
        key = canonical_key(tuple(hand))
        assert sorted((LOW[c[0]] for c in subset), reverse=True) == list(key[1])


def test_agrees_with_pokerkit_on_a_sample() -> None:
    pokerkit = pytest.importorskip("pokerkit")
    rng = random.Random(2024)
    hands = [rng.sample(DECK, 4) for _ in range(600)]
    hands += [parse(h) for h in ("♠A ♠3 ♥A ♥2", "♠2 ♠5 ♥2 ♦3", "♠A ♠2 ♠3 ♥A", "♠K ♥K ♦K ♣K")]
    theirs = [pokerkit.BadugiHand.from_game("".join(h)) for h in hands]
    ours = [hand_value(h) for h in hands]
    for i in range(len(hands)):
        for j in range(i + 1, min(i + 40, len(hands))):
            assert (ours[i] > ours[j]) == (theirs[i] > theirs[j]), (hands[i], hands[j])
            assert (ours[i] == ours[j]) == (theirs[i] == theirs[j]), (hands[i], hands[j])
