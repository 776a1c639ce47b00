"""Badugi hand evaluation (docs/rules/badugi.md, "Hand ranking"): exact, table-driven, ace low,
suits unranked.

A hand's *value* is an integer in ``0..1091``: a greater value is a stronger hand and equal values
tie. The 1,092 values are the hand *classes* (the rank sequence of the best badugi subset): 13
one-card hands (무탑), 78 two-base, 286 base and 715 made hands, each block ordered from worst to
best, so ``0`` is a lone K and ``1091`` is A-2-3-4 made.

Evaluation is one look-up in a table of all C(52,4) = 270,725 hands, indexed by the combinatorial
number system of the sorted card indices. The table is built on first use (about 0.1 s), not at
import, because every game module is imported whenever any game is loaded. It is derived from
the definition: a hand whose cards have four different ranks and suits is made; any other hand is
worth its best proper subset, i.e. the best of its 3-card subsets, recursively.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations, repeat
from math import comb
from typing import Final

from ..cards import CARDS, RANK_OF, SUIT_OF, TEXT_OF

#: ace-low rank 1..13 (A=1 … K=13) of each card index
LOW_RANK: Final[tuple[int, ...]] = tuple(1 if RANK_OF[c] == 14 else RANK_OF[c] for c in range(52))
RANK_NAMES: Final = "?A23456789TJQK"  # by ace-low rank
KIND_NAMES: Final = {4: "made", 3: "base", 2: "two-base", 1: "none"}
_SUIT_BIT: Final = {"s": 1, "h": 2, "d": 4, "c": 8}

# A card "uses" its rank bit (0..12) and its suit bit (13..16); a set of cards is a badugi subset
# exactly when no two cards use a common bit.
_RANK_BIT: Final[tuple[int, ...]] = tuple(1 << (LOW_RANK[c] - 1) for c in range(52))
_USES: Final[tuple[int, ...]] = tuple(_RANK_BIT[c] | _SUIT_BIT[SUIT_OF[c]] << 13 for c in range(52))


def _classes() -> list[tuple[int, ...]]:
    """Every class as its ranks high → low, weakest first (fewer cards, then higher ranks)."""
    found = [
        tuple(sorted(ranks, reverse=True))
        for k in (1, 2, 3, 4)
        for ranks in combinations(range(1, 14), k)
    ]
    return sorted(found, key=lambda ranks: (len(ranks), [-r for r in ranks]))


#: class ranks (high → low, ace = 1) of each value
CLASSES: Final[tuple[tuple[int, ...], ...]] = tuple(_classes())
#: value of a badugi subset, by the bit mask of its ranks
_VALUE_OF_RANKS: Final[dict[int, int]] = {
    sum(1 << (r - 1) for r in ranks): value for value, ranks in enumerate(CLASSES)
}
MADE_MIN: Final = len(CLASSES) - comb(13, 4)  # the weakest made hand's value
BEST: Final = len(CLASSES) - 1

# combinatorial number system: a sorted 4-set {a<b<c<d} has index a + C2[b] + C3[c] + C4[d]
_C2: Final = tuple(comb(n, 2) for n in range(52))
_C3: Final = tuple(comb(n, 3) for n in range(52))
_C4: Final = tuple(comb(n, 4) for n in range(52))
# keyed by the interned Card objects (an identity hit), which also serves plain ints 0..51
_INDEX: Final[dict[object, int]] = {TEXT_OF[c]: c for c in range(52)} | {
    CARDS[c]: c for c in range(52)
}
_TABLE: list[int] | None = None


def _extend(smaller: list[int], size: int) -> list[int]:
    """Values of all ``size``-card sets (colex order) from those of the ``size - 1``-card sets.

    A set that is itself a badugi subset is worth its own class; otherwise it is worth its best
    subset with one card fewer. Sets are enumerated as ``{x} | upper`` with ``x`` below every
    card of ``upper``; for a fixed ``upper`` they are contiguous in colex order, and so are the
    subsets they draw on, so the loop over ``x`` runs as C-level ``map`` calls over slices.
    """
    out: list[int] = []
    for upper in sorted(combinations(range(52), size - 1), key=lambda s: s[::-1]):
        _extend_run(out, smaller, upper, upper[0])
    return out


def _subset_index(cards: Sequence[int]) -> int:
    """Colex index of a sorted set of 1..3 card indices."""
    index = cards[0]
    if len(cards) > 1:
        index += _C2[cards[1]]
    if len(cards) > 2:
        index += _C3[cards[2]]
    return index


def _extend_run(out: list[int], smaller: list[int], upper: tuple[int, ...], count: int) -> None:
    """Append the values of the sets ``{x} | upper`` for every card ``x < upper[0]``."""
    if count == 0:
        return
    # subsets without x: just `upper`; subsets with x: x plus `upper` minus one of its cards
    without_x = smaller[_subset_index(upper)]
    runs = []
    for drop in range(len(upper)):
        rest = upper[:drop] + upper[drop + 1 :]
        start = _shifted_index(rest)
        runs.append(smaller[start : start + count])
    values = list(map(max, repeat(without_x, count), *runs))
    uses = 0
    for c in upper:
        if uses & _USES[c]:
            break
        uses |= _USES[c]
    else:  # `upper` is a badugi subset: x completes it when x shares no rank and no suit
        ranks = sum(_RANK_BIT[c] for c in upper)
        for x in range(count):
            if not uses & _USES[x]:
                values[x] = _VALUE_OF_RANKS[ranks | _RANK_BIT[x]]
    out.extend(values)


def _shifted_index(rest: tuple[int, ...]) -> int:
    """Colex index of ``{0} | rest`` (the run of ``{x} | rest`` starts there and is contiguous)."""
    index = 0
    for position, c in enumerate(rest, start=2):
        index += comb(c, position)
    return index


def _build() -> list[int]:
    global _TABLE
    singles = [_VALUE_OF_RANKS[_RANK_BIT[c]] for c in range(52)]
    pairs = _extend(singles, 2)
    triples = _extend(pairs, 3)
    _TABLE = _extend(triples, 4)
    return _TABLE


def hand_value(cards: Sequence[object]) -> int:
    """Value of four cards (texts such as ``"As"`` or :class:`Card`): greater = stronger."""
    a, b, c, d = cards
    try:
        a = _INDEX[a]
        b = _INDEX[b]
        c = _INDEX[c]
        d = _INDEX[d]
    except KeyError as err:
        raise ValueError(f"not a card: {err.args[0]!r}") from None
    if a > b:
        a, b = b, a
    if c > d:
        c, d = d, c
    if a > c:
        a, c = c, a
    if b > d:
        b, d = d, b
    if b > c:
        b, c = c, b
    if a == b or b == c or c == d:
        raise ValueError(f"a Badugi hand has four different cards, got {list(cards)!r}")
    return (_TABLE or _build())[a + _C2[b] + _C3[c] + _C4[d]]


def all_hand_values() -> list[int]:
    """The value of every four-card hand (the evaluation table, built on first use)."""
    return _TABLE or _build()


def value_ranks(value: int) -> tuple[int, ...]:
    """Ranks of the best badugi subset of a value, high → low, ace = 1."""
    return CLASSES[value]


@cache  # 1,092 values; every showdown names its hands
def value_name(value: int) -> str:
    """The human reading of a value: "6 made (6-5-4-A)", "5 base (5-4-A)", "A-5 two-base"."""
    ranks = [RANK_NAMES[r] for r in CLASSES[value]]
    kind = KIND_NAMES[len(ranks)]
    if len(ranks) == 4 or len(ranks) == 3:
        return f"{ranks[0]} {kind} ({'-'.join(ranks)})"
    if len(ranks) == 2:
        return f"{ranks[1]}-{ranks[0]} two-base"
    return f"none ({ranks[0]})"


def hand_name(cards: Sequence[object]) -> str:
    """The human reading of four cards, e.g. ``"6 made (6-5-4-A)"`` or ``"none (K)"``."""
    return value_name(hand_value(cards))


def hand_kind(value: int) -> str:
    """``"made"``, ``"base"``, ``"two-base"`` or ``"none"``."""
    return KIND_NAMES[len(CLASSES[value])]


def best_subset(cards: Iterable[int]) -> list[int]:
    """The cards (indices) of a best badugi subset, lowest first (one of them when several tie)."""
    hand = [_INDEX[c] for c in cards]
    target = hand_value(hand)
    ranks = CLASSES[target]
    for size in (4, 3, 2, 1):
        if size != len(ranks):
            continue
        for subset in combinations(hand, size):
            uses = 0
            for c in subset:
                if uses & _USES[c]:
                    break
                uses |= _USES[c]
            else:
                if sorted((LOW_RANK[c] for c in subset), reverse=True) == list(ranks):
                    return sorted(subset, key=lambda c: LOW_RANK[c])
    raise AssertionError("no subset reaches the hand's value")  # pragma: no cover
