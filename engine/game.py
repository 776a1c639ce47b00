"""The uniform game API every game implements (after OpenSpiel's ``Game``/``State``).

A :class:`State` is one whole game as a match format defines it (a Belote game to 1000, a Bauer
game from 8 down to 0, a Barbu game of 4/8/12/28 deals, N Badugi hands): deals follow each other
inside it, so rules that span deals (Geronimo's contract menu, Belote's litige pot) live in the
state. Each deal's deck order comes from ``(seed, deal index)`` only, so replaying the same seed
with the entrants' seats rotated deals the same cards to the same seats (duplicate play).
"""

from __future__ import annotations

import _random
import functools
import hashlib
import math
import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from .cards import BIT, TEXT_OF, Card, card, mask_of, texts
from .errors import IllegalAction, InvalidParams
from .frozen import FrozenList
from .frozen_ops import frozen_list
from .params import params_dict, parse_params

TERMINAL: Final = -1


@dataclass
class DealRecord:
    """What a replay needs to know about one deal (hands are private until the replay)."""

    index: int
    dealer: int
    deck: list[str]
    start: int  # index in State.history of the deal's first action
    hands: list[list[str]] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)
    scores: list[int] | None = None
    end: int | None = None  # index in State.history after the deal's last action

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "dealer": self.dealer,
            "deck": self.deck,
            "hands": self.hands,
            "info": self.info,
            "scores": self.scores,
        }


@functools.cache
def _permutation_bits(n: int) -> int:
    return math.factorial(n).bit_length() + 64


@functools.cache
def _radix_groups(n: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The radices ``n, n-1, … 2`` of a permutation's mixed-radix digits, in groups whose product
    stays below 2**30: (product, radices) per group.

    Below 2**30 every number the decoding loop handles is a one-digit CPython int, which ``%``
    and ``//`` take a fast path for.
    """
    groups: list[tuple[int, tuple[int, ...]]] = []
    radices: list[int] = []
    product = 1
    for radix in range(n, 1, -1):
        if product * radix >= 1 << 30:
            groups.append((product, tuple(radices)))
            radices, product = [], 1
        radices.append(radix)
        product *= radix
    if radices:
        groups.append((product, tuple(radices)))
    return tuple(groups)


def shuffled(items: Sequence[Card], rng: _random.Random) -> list[Card]:
    """A uniformly random permutation of ``items``, drawn from one big random integer.

    Decoding one ``getrandbits`` draw (Fisher-Yates on its mixed-radix digits) is several times
    faster than ``rng.shuffle``; 64 spare bits make the modulo bias negligible (< 2**-64). The
    digits are peeled off the big integer a group at a time and decoded with small integers
    (the same digits as dividing the big integer by each radix in turn, only cheaper).
    """
    deck = list(items)
    n = len(deck)
    x = rng.getrandbits(_permutation_bits(n))
    i = n - 1
    for product, radices in _radix_groups(n):
        x, digits = divmod(x, product)
        for radix in radices:
            j = digits % radix
            digits //= radix
            deck[i], deck[j] = deck[j], deck[i]
            i -= 1
    return deck


def deck_generator(seed: str) -> _random.Random:
    """The generator ``random.Random(seed)`` is, for :func:`shuffled`'s one ``getrandbits``.

    ``random.Random(seed)`` hashes a text seed in Python (``Random.seed``, version 2: the text's
    UTF-8 bytes followed by their SHA-512, read as one big-endian integer) and hands the integer
    to the Mersenne Twister written in C; this does the same without the interpreted frames, so
    the generator's state, and every deck, is the very same (a deal costs some 10,000
    instructions less). ``tests/engine/test_game.py`` checks it against ``random.Random``.
    """
    data = seed.encode()
    return _random.Random(int.from_bytes(data + hashlib.sha512(data).digest(), "big"))


class Game(ABC):
    """Static facts and rule options of one game; a factory of initial states."""

    name: ClassVar[str]
    title: ClassVar[str]
    Params: ClassVar[type]
    state_class: ClassVar[type[State]]
    min_players: ClassVar[int] = 4
    max_players: ClassVar[int] = 4
    #: seat groups that share a score (partners), or None when everyone plays alone
    teams: ClassVar[tuple[tuple[int, ...], ...] | None] = None
    #: a duplicate set is scored deal by deal (``engine.boards``); False: by the set's total
    scored_by_boards: ClassVar[bool] = True
    #: between two sides, a board is shared by its margin on this scale of points
    #: (``engine.boards.margin_share``); None: won, lost or drawn
    board_margin_scale: ClassVar[float | None] = None
    #: the same for luck-corrected scores where ``board_margin_scale`` is None: the luck makes
    #: a won, lost or drawn deal a margin (``engine.boards.margin_scale``); None: by its sign
    corrected_margin_scale: ClassVar[float | None] = None
    #: luck-corrected boards of a duplicate set: every deal of every game its own board
    #: (``engine.boards.deal_boards``), not the deals paired across the set's games
    corrected_boards_each_deal: ClassVar[bool] = False

    def __init__(self, **params: Any) -> None:
        self.params: Any = parse_params(self.Params, params, game=self.name)

    @property
    def num_players(self) -> int:
        return int(getattr(self.params, "players", self.min_players))

    @property
    def deck(self) -> list[Card]:
        """The game's cards in canonical order."""
        raise NotImplementedError

    def corrected_scale(self) -> float | None:
        """``corrected_margin_scale`` for this game's parameters: the class's own, unless the
        game's scores grow with its parameters (Badugi's chip totals, with the stakes and the
        hands played)."""
        return self.corrected_margin_scale

    def params_dict(self) -> dict[str, Any]:
        return params_dict(self.params)

    def new_initial_state(
        self,
        seed: int,
        *,
        decks: Sequence[Sequence[str]] | None = None,
        first_dealer: int | None = None,
    ) -> State:
        """A new game. ``decks`` fixes the deck order (top first) of the first deals (tests)."""
        return self.state_class(self, seed, decks, first_dealer)

    def rate_scores(self, scores: Sequence[float], deals: int) -> dict[str, list[float]]:
        """Per-entrant scores as rates (Badugi: big blinds per 100 hands); none by default.

        ``deals`` is how many deals each entrant played in the match.
        """
        return {}

    def duplicate_rotations(self) -> list[list[int]]:
        """Seat → entrant maps for duplicate play: every entrant in every seat (teams: swapped)."""
        n = self.num_players
        count = 2 if self.teams is not None else n
        return [[(seat + r) % n for seat in range(n)] for r in range(count)]

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.params == self.params

    def __hash__(self) -> int:
        return hash((self.name, self.params))

    def __repr__(self) -> str:
        return f"load_game({self.name!r}, **{self.params_dict()!r})"


class State(ABC):
    """One game in progress. Subclasses implement the ``_``-prefixed rule methods."""

    def __init__(
        self,
        game: Game,
        seed: int,
        decks: Sequence[Sequence[str]] | None,
        first_dealer: int | None,
    ) -> None:
        self.game = game
        self.seed = seed
        self.num_players = game.num_players
        self.history: list[tuple[int, str]] = []
        self.deals: list[DealRecord] = []
        self._fixed_decks = [[card(t) for t in d] for d in decks] if decks else []
        if first_dealer is None:
            first_dealer = random.Random(f"{seed}:dealer").randrange(self.num_players)
        elif not 0 <= first_dealer < self.num_players:
            raise InvalidParams(f"first_dealer must be a seat 0..{self.num_players - 1}")
        self.first_dealer = first_dealer
        self._legal: FrozenList[str] | None = None
        self._hand_texts: list[FrozenList[str] | None] = [None] * self.num_players

    # -- randomness: only from the seed ------------------------------------------------------

    def deal_rng(self, deal_index: int, purpose: str) -> random.Random:
        """A generator that depends only on the seed, the deal and what it is for."""
        return random.Random(self._rng_seed(deal_index, purpose))

    def _rng_seed(self, deal_index: int, purpose: str) -> str:
        """The text that seeds a deal's generator for ``purpose`` (``deck``: its shuffle)."""
        return f"{self.seed}:{deal_index}:{purpose}"

    def deck_for(self, deal_index: int) -> list[Card]:
        """Deck order (index 0 = top) of a deal: fixed by the caller, else seeded shuffle."""
        if deal_index < len(self._fixed_decks):
            deck = list(self._fixed_decks[deal_index])
            if sorted(deck) != sorted(self.game.deck):
                raise InvalidParams(f"deck {deal_index} is not a permutation of the game's cards")
            return deck
        return shuffled(self.game.deck, deck_generator(self._rng_seed(deal_index, "deck")))

    def start_deal_record(self, dealer: int, deck: Sequence[Card]) -> DealRecord:
        record = DealRecord(
            index=len(self.deals),
            dealer=dealer,
            deck=texts(deck),
            start=len(self.history),
        )
        self.deals.append(record)
        return record

    def finish_deal_record(self, scores: Sequence[int]) -> None:
        record = self.deals[-1]
        record.scores = list(scores)
        record.end = len(self.history)

    # -- the uniform API -----------------------------------------------------------------------

    @abstractmethod
    def current_player(self) -> int:
        """Seat to act, or ``TERMINAL`` (-1) when the game is over."""

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def legal_actions(self) -> FrozenList[str]:
        """Legal actions of the player to act, sorted; empty only when the game is over.

        The list is read-only (a :class:`~engine.frozen.FrozenList`) and is the very list the
        acting seat's observation holds as ``legal``: computed once per decision, never copied.
        """
        legal = self._legal
        if legal is None:
            legal = self._legal = self._legal_actions()
        return legal

    def apply_action(self, action: str) -> None:
        """Verify ``action`` and apply it; raises :class:`IllegalAction` saying why not."""
        legal = self._legal
        if legal is None:
            legal = self._legal_actions()
        if action not in legal:
            raise IllegalAction(self._explain_illegal(action, legal))
        self.history.append((self.current_player(), action))
        self._legal = None
        self._apply(action)

    @abstractmethod
    def returns(self) -> list[float]:
        """Per-seat match score so far (final when terminal); higher is better."""

    @abstractmethod
    def observation(self, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may know, as a JSON-serialisable dict, and nothing more."""

    def hand_text(self, seat: int) -> FrozenList[str]:
        """``seat``'s hand as sorted card texts, built once and shared until the hand changes.

        Games set ``self._hand_texts[seat] = None`` when one hand changes and call
        :meth:`_forget_caches` when several do.
        """
        text = self._hand_texts[seat]
        if text is None:
            text = self._hand_texts[seat] = frozen_list(self._hand_strings(seat))
        return text

    def _hand_strings(self, seat: int) -> list[str]:
        """``seat``'s hand as card texts; the default reads ``self.hands`` (lists of cards)."""
        hand: list[Card] = self.hands[seat]  # type: ignore[attr-defined]
        return [TEXT_OF[c] for c in hand]

    def _forget_caches(self) -> None:
        """Drop everything computed from the hands (new deal, or hidden cards re-dealt)."""
        self._legal = None
        self._hand_texts = [None] * self.num_players

    def clone(self) -> State:
        """An independent copy: the game replayed from its seed, decks and actions, which fix
        everything a state holds. (A compiled state, see ``setup.py``, has no ``__dict__`` to
        copy; replaying gives the same state in both builds.)"""
        other = self.game.new_initial_state(
            self.seed,
            decks=[[c.text for c in deck] for deck in self._fixed_decks] or None,
            first_dealer=self.first_dealer,
        )
        for _, action in self.history:
            other.apply_action(action)
        return other

    def __deepcopy__(self, memo: object) -> State:
        return self.clone()

    def redeal_hidden(self, seat: int, rng: random.Random) -> State:
        """A clone where every card ``seat`` cannot see is shuffled among the unseen places.

        If ``observation(seat)`` differs between this clone and the original, the observation
        leaks hidden information (the conformance suite checks this). The default covers games
        whose only hidden cards are the other players' hands, kept in ``self.hands``.
        """
        other = self.clone()
        # cards, or card texts (Barbu keeps its hands as texts): either sorts as the cards do
        hands: list[list[Any]] = other.hands  # type: ignore[attr-defined]
        seats = [s for s in range(self.num_players) if s != seat]
        pool = [c for s in seats for c in hands[s]]
        rng.shuffle(pool)
        for s in seats:
            size = len(hands[s])
            hands[s] = sorted(pool[:size])
            del pool[:size]
        other._forget_caches()
        return other

    # -- for subclasses --------------------------------------------------------------------------

    @abstractmethod
    def _legal_actions(self) -> FrozenList[str]:
        """The sorted legal actions, :data:`~engine.frozen.EMPTY` when the game is over.

        Computed at most once per decision (:meth:`legal_actions` caches it), so it may build
        its list; constant lists are shared module constants.
        """

    @abstractmethod
    def _apply(self, action: str) -> None: ...

    def _explain_illegal(self, action: str, legal: list[str]) -> str:
        if self.is_terminal():
            return f"{action!r}: the game is over"
        reason = self._illegal_reason(action)
        seat = self.current_player()
        because = f" ({reason})" if reason else ""
        return f"{action!r} is not legal for seat {seat}{because}; legal: {', '.join(legal)}"

    def _illegal_reason(self, action: str) -> str:
        """A rule-specific explanation; games override it for their common mistakes."""
        return ""


class CardHandsState(State):
    """A state whose hands are sorted lists of :class:`Card`, their texts and masks alongside.

    Playing a card deletes it from both lists, so the hand's text is never rebuilt card by card
    (only frozen, once, when an observation or the legal list asks for it). ``masks[seat]`` is
    the hand as a bit mask (:data:`~engine.cards.BIT`), for legality checks by suit. Code that
    replaces ``self.hands`` calls :meth:`_forget_caches`.
    """

    hands: list[list[Card]]

    def _forget_caches(self) -> None:
        super()._forget_caches()
        self._texts = [[TEXT_OF[c] for c in hand] for hand in self.hands]
        self.masks = [mask_of(hand) for hand in self.hands]

    def _hand_strings(self, seat: int) -> list[str]:
        return self._texts[seat]

    def _set_hands(self, hands: list[list[Card]]) -> list[list[str]]:
        """New sorted ``hands`` (a deal); returns a copy of their texts for the deal record."""
        self.hands = hands
        State._forget_caches(self)
        texts = self._texts = [[TEXT_OF[c] for c in hand] for hand in hands]
        self.masks = [mask_of(hand) for hand in hands]
        return [text[:] for text in texts]

    def _drop_card(self, seat: int, c: Card) -> None:
        """Take ``c`` out of ``seat``'s hand. Its frozen text is rebuilt at once: the seat's next
        observation and legal list ask for it anyway, and the lazy path costs two calls more."""
        hand = self.hands[seat]
        index = hand.index(c)
        hand.pop(index)  # pop, not del: compiled, pop is a list operation and del a generic one
        texts = self._texts[seat]
        texts.pop(index)
        i: int = c  # compiled: BIT[i] is a native look-up, BIT[c] (a Card) a generic one
        masks = self.masks
        masks[seat] = masks[seat] ^ BIT[i]  # not ^=: on a list item, compiled, that is generic
        self._hand_texts[seat] = frozen_list(texts)
