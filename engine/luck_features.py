"""Cheap features of a hand at a chance event, for the fitted value estimates of engine.luck.

A position is valued from each seat's cards and the little that is public at the event
(:class:`Position`): which weights apply (``key``), the seat the roles are counted from
(``anchor``: the dealer, or Belote's taker) and the suit the features are relative to (Belote's
upcard or trump). :func:`hand_features` turns one hand (card texts) into a short list of
numbers; the weights that make a value of them are fitted offline (``benchmarks/fit_luck.py``)
and stored in ``engine/luck_weights.json``.

Every function reads only the cards and the deal's own record, never a playout, so a position
costs a few dozen additions per hand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from .game import State

#: Belote's trump order, lowest first, and its card points (docs/rules/belote.md)
BELOTE_TRUMP_POINTS: Final = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
RANK_VALUES: Final = {r: v for v, r in enumerate("23456789TJQKA", start=2)}
SUITS: Final = "cdhs"
#: Bauer's left bauer: the jack of the trump's colour
SAME_COLOUR: Final = {"h": "d", "d": "h", "s": "c", "c": "s"}


@dataclass(frozen=True)
class Position:
    """What a position's value depends on besides the hands (the same in every rearrangement)."""

    key: str  # the weights' name within the game: "deal", "complete"
    anchor: int  # roles are seats counted from this one
    suit: str = ""  # the suit features are relative to, if any


def belote_position(state: State) -> Position:
    """Before the bid: the upcard's suit, roles from the dealer; after the completing deal: the
    trump, roles from the taker."""
    record = state.deals[0]
    info = record.info
    if "taker" in info:
        return Position("complete", int(info["taker"]), str(info["trump"]))
    return Position("deal", record.dealer, str(info["upcard"])[1])


def belote_hand(position: Position, hand: Sequence[str]) -> list[float]:
    """Trump holdings in ``position.suit`` (count, the jack, nine, ace, ten, the belote pair and
    the trump points), side aces, tens, kings, jacks and nines, the longest side suit, side
    voids and the best other suit's trump points (a second-round bid)."""
    trump = position.suit
    in_trump = [c[0] for c in hand if c[1] == trump]
    side = [c for c in hand if c[1] != trump]
    side_ranks = [c[0] for c in side]
    lengths = {s: 0 for s in SUITS if s != trump}
    points = {s: 0 for s in SUITS if s != trump}
    for c in side:
        lengths[c[1]] += 1
        points[c[1]] += BELOTE_TRUMP_POINTS[c[0]]
    return [
        len(in_trump),
        float("J" in in_trump),
        float("9" in in_trump),
        float("A" in in_trump),
        float("T" in in_trump),
        float("K" in in_trump and "Q" in in_trump),
        sum(BELOTE_TRUMP_POINTS[r] for r in in_trump) / 10,
        side_ranks.count("A"),
        side_ranks.count("T"),
        side_ranks.count("K"),
        side_ranks.count("J"),
        side_ranks.count("9"),
        max(lengths.values()),
        sum(1 for n in lengths.values() if n == 0),
        max(points.values()) / 10,
    ]


def bauer_position(state: State) -> Position:
    """Every card is dealt at once: roles from the dealer, no suit yet."""
    return Position("deal", state.deals[0].dealer)


def _bauer_strength(hand: Sequence[str], trump: str) -> tuple[int, int, int, int]:
    """``hand`` with ``trump`` called: its trumps (the left bauer among them), the right and
    left bauer and the trump ace."""
    right = f"J{trump}" in hand
    left = f"J{SAME_COLOUR[trump]}" in hand
    count = sum(1 for c in hand if c[1] == trump) + left
    return count, int(right), int(left), int(f"A{trump}" in hand)


def bauer_hand(position: Position, hand: Sequence[str]) -> list[float]:
    """The best trump the hand could call (trumps, bauers, ace, and their sum as a strength),
    the second best suit's strength, jacks, side aces and kings, and voids."""
    strengths = sorted(
        ((count + 2 * right + left + ace, count, right, left, ace)
         for count, right, left, ace in (_bauer_strength(hand, t) for t in SUITS)),
        reverse=True,
    )  # fmt: skip
    best, count, right, left, ace = strengths[0]
    ranks = [c[0] for c in hand]
    suits = {c[1] for c in hand}
    return [
        best,
        count,
        right,
        left,
        ace,
        strengths[1][0],
        ranks.count("J"),
        ranks.count("A"),
        ranks.count("K"),
        4 - len(suits),
    ]


def barbu_position(state: State) -> Position:
    """Every card is dealt at once and the dealer declares after: roles from the dealer."""
    return Position("deal", state.deals[0].dealer)


def barbu_hand(position: Position, hand: Sequence[str]) -> list[float]:
    """What the contracts count: hearts, the king of hearts, queens, high and low cards, the
    suits' lengths (long suits take tricks, short ones shed them) and the mean rank."""
    ranks = [RANK_VALUES[c[0]] for c in hand]
    lengths = [sum(1 for c in hand if c[1] == s) for s in SUITS]
    return [
        sum(1 for c in hand if c[1] == "h"),
        float("Kh" in hand),
        sum(1 for c in hand if c[0] == "Q"),
        ranks.count(14),
        ranks.count(13),
        sum(1 for r in ranks if r >= 10),
        sum(1 for r in ranks if r <= 5),
        max(lengths),
        min(lengths),
        lengths.count(0),
        sum(ranks) / max(len(ranks), 1) - 8,
    ]


@dataclass(frozen=True)
class GameFeatures:
    """A game's features: the position's public part and a hand's numbers."""

    position: Callable[[State], Position]
    hand: Callable[[Position, Sequence[str]], list[float]]


#: per game with a fitted value, its features
FEATURES: Final[dict[str, GameFeatures]] = {
    "belote": GameFeatures(belote_position, belote_hand),
    "bauer": GameFeatures(bauer_position, bauer_hand),
    "barbu": GameFeatures(barbu_position, barbu_hand),
}


def seat_rows(
    features: GameFeatures, position: Position, hands: Sequence[Sequence[str]]
) -> list[tuple[int, list[float]]]:
    """Per seat ``s``: its role (seats from the anchor) and its row of regressors, ``1`` then
    the features of the hands of seats ``s``, ``s + 1``, … (its own first, then the others in
    playing order), the inputs of a fitted value."""
    n = len(hands)
    per_hand = [features.hand(position, hand) for hand in hands]
    return [
        ((s - position.anchor) % n, [1.0, *(x for k in range(n) for x in per_hand[(s + k) % n])])
        for s in range(n)
    ]
