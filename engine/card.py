"""The card itself: :class:`Card`, an ``int`` subclass, and its 52 interned instances.

Kept apart from :mod:`engine.cards` (its tables and functions), which the compiled engine
(``setup.py``) compiles: mypyc compiles only classes of its own layout, not an ``int``
subclass, so this module stays Python. :mod:`engine.cards` re-exports the card and its
constants (``CARD_TEXTS`` as ``TEXT_OF``).
"""

from __future__ import annotations

RANKS = "23456789TJQKA"
SUITS = "shdc"
RANK_VALUE = {r: i + 2 for i, r in enumerate(RANKS)}  # "2" -> 2 ... "A" -> 14
#: card texts in sorted order: a card's value is the position of its text
CARD_TEXTS: tuple[str, ...] = tuple(sorted(r + s for r in RANKS for s in SUITS))


class Card(int):
    """One playing card; compare, hash and sort like its index, print as its text."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """Rank value 2..14 (ace high; games with ace low convert it)."""
        return RANK_VALUE[CARD_TEXTS[self][0]]

    @property
    def suit(self) -> str:
        return CARD_TEXTS[self][1]

    @property
    def text(self) -> str:
        return CARD_TEXTS[self]

    def __str__(self) -> str:
        return CARD_TEXTS[self]

    def __repr__(self) -> str:
        return f"Card({CARD_TEXTS[self]!r})"

    # Cards are interned values: copies are the card itself, pickles restore the interned one.
    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return _interned, (int(self),)


CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(52))


def _interned(index: int) -> Card:
    return CARDS[index]
