"""Playing cards as immutable values with one text form.

A card is written rank + suit: ranks ``2-9 T J Q K A``, suits ``s h d c`` (``"As"``, ``"Td"``).
:class:`Card` is an ``int`` subclass whose value is the position of its text in sorted order, so
sorting cards sorts their texts: a hand kept sorted yields legal actions already sorted.
All 52 instances are interned in :data:`CARDS`; look-up tables (:data:`RANK_OF`, :data:`SUIT_OF`,
:data:`TEXT_OF`) serve the hot paths of the games.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from mypy_extensions import mypyc_attr

from .frozen import FrozenList

RANKS: Final = "23456789TJQKA"
SUITS: Final = "shdc"
RANK_VALUE: Final = {r: i + 2 for i, r in enumerate(RANKS)}  # "2" -> 2 ... "A" -> 14

_TEXTS: Final[tuple[str, ...]] = tuple(sorted(r + s for r in RANKS for s in SUITS))


# an int subclass: compiled, the module keeps it a regular Python class (mypyc compiles only
# classes of its own layout), while its tables and functions become native
@mypyc_attr(native_class=False)
class Card(int):
    """One playing card; compare, hash and sort like its index, print as its text."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """Rank value 2..14 (ace high; games with ace low convert it)."""
        return RANK_OF[self]

    @property
    def suit(self) -> str:
        return SUIT_OF[self]

    @property
    def text(self) -> str:
        return _TEXTS[self]

    def __str__(self) -> str:
        return _TEXTS[self]

    def __repr__(self) -> str:
        return f"Card({_TEXTS[self]!r})"

    # Cards are interned values: copies are the card itself, pickles restore the interned one.
    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return _interned, (int(self),)


CARDS: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(52))


def _interned(index: int) -> Card:
    return CARDS[index]


TEXT_OF: Final[tuple[str, ...]] = _TEXTS
RANK_OF: Final[tuple[int, ...]] = tuple(RANK_VALUE[t[0]] for t in _TEXTS)
SUIT_OF: Final[tuple[str, ...]] = tuple(t[1] for t in _TEXTS)
_BY_TEXT: Final[dict[str, Card]] = {t: CARDS[i] for i, t in enumerate(_TEXTS)}
#: exact card texts to cards, for hot paths that already hold a legal (validated) action
CARD_BY_TEXT: Final[dict[str, Card]] = dict(_BY_TEXT)


#: ``BIT[c]``: card ``c`` in a bit mask of cards (a hand as one int: set operations in one step)
BIT: Final[tuple[int, ...]] = tuple(1 << c for c in range(52))
#: the mask of every card of a suit
SUIT_MASK: Final[dict[str, int]] = {
    s: sum(BIT[c] for c in range(52) if SUIT_OF[c] == s) for s in SUITS
}


def mask_of(hand: Iterable[int]) -> int:
    """``hand`` (cards) as a bit mask of :data:`BIT`."""
    mask = 0
    for c in hand:
        mask |= BIT[c]
    return mask


#: card masks seen so far -> their texts in card order, frozen (see :func:`mask_texts`)
MASK_TEXTS: Final[dict[int, FrozenList[str]]] = {}


def mask_texts(mask: int) -> FrozenList[str]:
    """The texts of the cards in ``mask``, sorted, as one shared frozen list.

    Meant for legal lists, which are cards of one suit (at most 2**13 masks per suit, so the
    cache stays small): look ``MASK_TEXTS`` up first, this builds and keeps a missing entry.
    """
    found = MASK_TEXTS.get(mask)
    if found is None:
        found = MASK_TEXTS[mask] = FrozenList([t for c, t in enumerate(_TEXTS) if mask >> c & 1])
    return found


def card(text: str) -> Card:
    """Parse one card text (``"As"``, ``"Td"``); also accepts ``10`` for the ten."""
    found = _BY_TEXT.get(text)
    if found is None:
        normalized = text.strip().replace("10", "T")
        normalized = normalized[:-1].upper() + normalized[-1:].lower()
        found = _BY_TEXT.get(normalized)
        if found is None:
            raise ValueError(f"not a card: {text!r} (expected rank 2-9 T J Q K A + suit s h d c)")
    return found


def cards(texts: str | Iterable[str]) -> list[Card]:
    """Parse cards from a whitespace-separated string or an iterable of texts."""
    if isinstance(texts, str):
        texts = texts.split()
    return [card(t) for t in texts]


def make_deck(lowest_rank: int = 2) -> list[Card]:
    """All cards of rank ``lowest_rank`` and above, in canonical (text) order."""
    return [c for c in CARDS if RANK_OF[c] >= lowest_rank]


def texts(hand: Iterable[int]) -> list[str]:
    """Card texts of ``hand`` in the given order."""
    return [_TEXTS[c] for c in hand]
