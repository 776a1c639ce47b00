"""Trick-taking mechanics shared by Barbu, Belote and Bauer (docs/rules/<game>.md, "Play").

Each game supplies its own *power table*: for a (trump, suit led) pair, a 52-entry tuple giving
every card's strength in that trick (trumps 100+, cards of the suit led 1..99, anything else 0).
The trick winner is then the card of highest power, whatever the game. Legal-move duties (follow
suit, must trump, overtrump) stay with each game; they read the trick through this table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Final

from .cards import CARDS, TEXT_OF
from .frozen import FrozenDict, FrozenList
from .frozen_ops import EMPTY, appended, frozen_dict, frozen_list

TRUMP_BASE: Final = 100

#: ``PLAYED[seat][card]``: the public entry of a card on the table, made once and shared
PLAYED: Final[tuple[tuple[FrozenDict[str, Any], ...], ...]] = tuple(
    tuple(frozen_dict(seat=seat, card=TEXT_OF[c]) for c in CARDS) for seat in range(4)
)


#: ``[tricks done][leader][cards on the table]`` → every seat's hand size, shared by observations
SizesTable = tuple[tuple[tuple[FrozenList[int], ...], ...], ...]


@cache
def hand_sizes_table(num_players: int, hand_size: int) -> SizesTable:
    """Hand sizes at every point of a deal where each seat starts with ``hand_size`` cards and
    plays one card per trick: seats that have played to the current trick hold one card less."""
    n = num_players
    return tuple(
        tuple(
            tuple(
                frozen_list([hand_size - done - ((s - leader) % n < played) for s in range(n)])
                for played in range(n)
            )
            for leader in range(n)
        )
        for done in range(hand_size + 1)
    )


def power_table(
    trump: str | None,
    led: str,
    suit_of: Sequence[str],
    plain_strength: Callable[[int], int],
    trump_strength: Callable[[int], int],
) -> tuple[int, ...]:
    """Strength of each card in a trick where ``led`` was led and ``trump`` is trump."""
    table = []
    for c in range(52):
        suit = suit_of[c]
        if trump is not None and suit == trump:
            table.append(TRUMP_BASE + trump_strength(c))
        elif suit == led:
            table.append(plain_strength(c))
        else:
            table.append(0)
    return tuple(table)


def best_index(cards: Sequence[int], power: Sequence[int]) -> int:
    """Position in ``cards`` of the strongest card (the first one on equal power)."""
    best, best_power = 0, power[cards[0]]
    for i in range(1, len(cards)):
        p = power[cards[i]]
        if p > best_power:
            best, best_power = i, p
    return best


#: per number of players, the tricks won per seat, frozen, by their code (4 bits per seat):
#: filled as they occur
_WON_LISTS: Final[dict[int, dict[int, FrozenList[int]]]] = {}


class TrickTable:
    """The trick on the table and the finished tricks of the current deal.

    The public forms are frozen so that every observation can hold them as they are (see
    :mod:`engine.frozen`): ``completed`` (the finished tricks: leader, cards in play order,
    winner) and ``won`` (tricks won per seat) are replaced at the end of each trick,
    :meth:`current` (the trick on the table: seat, card) is frozen when first asked for, and
    :meth:`hand_sizes` is a look-up, given that every seat held ``hand_size`` cards at the start.
    Seats play in turn from the leader, so the seat of ``cards[i]`` is ``leader + i``.
    ``cards`` is typed ``list[int]`` (a :class:`~engine.cards.Card` is its int): compiled code
    indexes the card tables with an ``int`` natively but with a ``Card`` through CPython's
    generic look-up (and stores plain ints here; the Python build keeps the cards).
    """

    __slots__ = (
        "num_players", "leader", "cards", "_texts", "_entries", "_current", "completed", "won",
        "_won_code", "_won_lists", "_sizes",
    )  # fmt: skip

    def __init__(self, num_players: int, leader: int, hand_size: int) -> None:
        self.num_players = num_players
        self.leader = leader
        self.cards: list[int] = []
        self._texts: list[str] = []
        self._entries: list[FrozenDict[str, Any]] = []
        self._current: FrozenList[FrozenDict[str, Any]] | None = EMPTY
        self.completed: FrozenList[FrozenDict[str, Any]] = EMPTY
        self._won_code = 0  # tricks won by seat s in bits 4s..4s+3 (13 tricks at most)
        self._won_lists = _WON_LISTS.setdefault(num_players, {})
        self.won: FrozenList[int] = self._won_list(0)
        self._sizes = hand_sizes_table(num_players, hand_size)

    @property
    def to_act(self) -> int:
        return (self.leader + len(self.cards)) % self.num_players

    @property
    def number(self) -> int:
        """1-based number of the trick being played."""
        return len(self.completed) + 1

    def play(self, seat: int, card: int) -> bool:
        """Put ``card`` (``seat``'s, whose turn it is) on the table; True when the trick is full."""
        cards = self.cards
        cards.append(card)
        self._texts.append(TEXT_OF[card])
        self._entries.append(PLAYED[seat][card])
        self._current = None
        return len(cards) == self.num_players

    def finish(self, power: tuple[int, ...]) -> int:
        """Give the full trick to its winner, who leads next; returns the winner's seat."""
        n = self.num_players
        leader = self.leader
        cards = self.cards
        best, best_power = 0, power[cards[0]]  # best_index, inlined on native ints
        for i in range(1, len(cards)):
            p = power[cards[i]]
            if p > best_power:
                best, best_power = i, p
        winner = (leader + best) % n
        # from a dict display: compiled, it is built in C; keywords would go through dict()
        trick = frozen_dict({"leader": leader, "cards": frozen_list(self._texts), "winner": winner})
        self.completed = appended(self.completed, trick)
        self._won_code = code = self._won_code + (1 << 4 * winner)
        self.won = self._won_list(code)
        self.leader = winner
        self.cards = []
        self._texts = []
        self._entries = []
        self._current = EMPTY
        return winner

    def _won_list(self, code: int) -> FrozenList[int]:
        won = self._won_lists.get(code)
        if won is None:
            n = self.num_players
            won = self._won_lists[code] = frozen_list([code >> 4 * s & 15 for s in range(n)])
        return won

    def current(self) -> FrozenList[FrozenDict[str, Any]]:
        """The trick on the table, public form (frozen: shared until the next card)."""
        current = self._current
        if current is None:
            current = self._current = frozen_list(self._entries)
        return current

    def hand_sizes(self) -> FrozenList[int]:
        """Every seat's hand size now (frozen and shared)."""
        return self._sizes[len(self.completed)][self.leader][len(self.cards)]
