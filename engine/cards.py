"""Playing cards as immutable values with one text form.

A card is written rank + suit: ranks ``2-9 T J Q K A``, suits ``s h d c`` (``"As"``, ``"Td"``).
:class:`Card` (:mod:`engine.card`) is an ``int`` subclass whose value is the position of its text
in sorted order, so sorting cards sorts their texts: a hand kept sorted yields legal actions
already sorted. All 52 instances are interned in :data:`CARDS`; this module's look-up tables
(:data:`RANK_OF`, :data:`SUIT_OF`, :data:`TEXT_OF`, masks) serve the hot paths of the games.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from .card import CARD_TEXTS
from .card import CARDS as CARDS  # re-exported: the card and its constants live in card.py
from .card import RANK_VALUE as RANK_VALUE
from .card import RANKS as RANKS
from .card import SUITS as SUITS
from .card import Card as Card
from .frozen import FrozenList

TEXT_OF: Final[tuple[str, ...]] = CARD_TEXTS
RANK_OF: Final[tuple[int, ...]] = tuple(RANK_VALUE[t[0]] for t in TEXT_OF)
SUIT_OF: Final[tuple[str, ...]] = tuple(t[1] for t in TEXT_OF)
_BY_TEXT: Final[dict[str, Card]] = {t: CARDS[i] for i, t in enumerate(TEXT_OF)}
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
        texts = [TEXT_OF[c] for c in range(mask.bit_length()) if mask >> c & 1]
        found = MASK_TEXTS[mask] = FrozenList(texts)
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
    return [TEXT_OF[c] for c in hand]
