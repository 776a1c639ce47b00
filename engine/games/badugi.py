"""Badugi (docs/rules/badugi.md): 2–6 players, fixed-limit triple draw, ace-low four-card hands.

A :class:`BadugiState` is one match of ``hands`` hands (default 100) with the button moving one seat
clockwise after every hand; the first button is ``first_dealer``. Every hand starts from fresh
stacks ("Stakes, blinds and stacks"), so ``returns()`` is each seat's net chips won over the
match. Hand ``k`` is dealt from ``deck_for(k)`` only and its reshuffles draw on
``deal_rng(k, "reshuffle")``, so a duplicate rotation of the same seed deals the same cards to the
same seats.

Per hand ("How a hand is played"): blinds, four cards each, a betting round, then three times a
draw and a betting round (small bet in rounds 1–2, big bet in 3–4, at most ``max_bets_per_round``
bets a round), and a showdown with split pots; the hand ends as soon as all but one player have
folded. Actions: ``fold``, ``check``, ``call``, ``bet``, ``raise`` and ``draw:`` + the discarded
cards in sorted order (``draw:9s,Kd``; ``draw:`` stands pat). With ``korean_betting`` ("Korean
betting mode") antes replace the blinds and ``half`` (하프, half the pot) joins ``bet`` (삥, one
ante) and ``raise`` (따당).

Rule choices beyond the sources (documented in docs/rules/badugi.md, "Rule options"):

* ``unlimited_heads_up`` lifts the cap while exactly two players are left in the hand; as in
  [RRP], a round capped while three or more were in stays capped after a fold leaves two.
* ``never_return_own_discards``: a player receiving cards passes over those they discarded earlier
  in the hand (they stay in the stub for the others); when only such cards are left, the stub and
  the discards are reshuffled as usual (the drawer's own discards always excluded).
* Stacks (``stack`` chips every hand) only matter with the capped fixed-limit game, where they are
  validated to cover the most a player can put in, so nobody is ever all-in. With
  ``unlimited_heads_up`` or ``korean_betting`` stacks are unbounded (pokerkit's ``inf``), and
  observations report ``stacks`` as ``null``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, Final

from ..cards import CARD_BY_TEXT, CARDS, TEXT_OF, Card
from ..errors import InvalidParams
from ..frozen import EMPTY, FrozenDict, FrozenList
from ..frozen_ops import appended
from ..game import TERMINAL, Game, State
from ..registry import register
from .badugi_hands import best_subset, hand_kind, hand_name, hand_value, value_name

__all__ = [
    "BadugiGame",
    "BadugiParams",
    "BadugiState",
    "Phase",
    "best_subset",
    "big_blinds_per_100",
    "hand_kind",
    "hand_name",
    "hand_value",
    "value_name",
]

ROUNDS: Final = 4  # betting rounds; a draw comes between two rounds
CHECK: Final[FrozenList[str]] = FrozenList(["check"])
BET_CHECK: Final[FrozenList[str]] = FrozenList(["bet", "check"])
CHECK_RAISE: Final[FrozenList[str]] = FrozenList(["check", "raise"])  # the big blind's option
CALL_FOLD: Final[FrozenList[str]] = FrozenList(["call", "fold"])
CALL_FOLD_RAISE: Final[FrozenList[str]] = FrozenList(["call", "fold", "raise"])
KOREAN_OPEN: Final[FrozenList[str]] = FrozenList(["bet", "check", "fold", "half"])
KOREAN_FACING: Final[FrozenList[str]] = FrozenList(["call", "fold", "half", "raise"])
DREW: Final = ["drew:0", "drew:1", "drew:2", "drew:3", "drew:4"]
#: ``ACTED[seat][action]``: the public ``[seat, action]`` entry, made once and shared
ACTED: Final = tuple(
    {a: FrozenList([seat, a]) for a in ["bet", "call", "check", "fold", "half", "raise", *DREW]}
    for seat in range(6)
)


class Phase(Enum):
    BET = "bet"
    DRAW = "draw"
    OVER = "over"

    # Members are singletons: hash them by identity, in C, instead of Enum's Python-level hash
    # of the name (every observation looks its phase up in PHASE_TEXT).
    __hash__ = object.__hash__


PHASE_TEXT: Final = {phase: phase.value for phase in Phase}
#: a corrected ten-hand game's total is shared on this many stake units (BadugiGame.corrected_scale)
CORRECTED_SCALE_UNITS: Final = 10


@dataclass(frozen=True, kw_only=True)
class BadugiParams:
    """Rule options (docs/rules/badugi.md, "Rule options"), the stakes and the match length."""

    #: seats at the table (2–6, BDG-7)
    players: int = field(default=2, metadata={"range": (2, 6)})
    #: hands in the match; the button moves one seat clockwise after each
    hands: int = field(default=100, metadata={"range": (1, 1_000_000)})
    #: fixed limit: blinds in chips; the small bet equals the big blind
    small_blind: int = field(default=1, metadata={"range": (1, 1_000_000)})
    big_blind: int = field(default=2, metadata={"range": (1, 1_000_000)})
    #: fixed limit: bet unit of betting rounds 3 and 4
    big_bet: int = field(default=4, metadata={"range": (1, 1_000_000)})
    #: chips every player starts each hand with (capped fixed limit only); 0 = 100 big blinds
    stack: int = field(default=0, metadata={"range": (0, 10**12)})
    #: a bet and up to this many minus one raises per round (round 1: the big blind is the bet)
    max_bets_per_round: int = field(default=4, metadata={"range": (1, 100)})
    #: the cap of betting round 1 (pre-draw) alone; 0 = ``max_bets_per_round`` (pokerkit: 5)
    max_bets_predraw: int = field(default=0, metadata={"range": (0, 100)})
    #: no cap while only two players are left in the hand, unless the round was capped before a
    #: fold left two [RRP]
    unlimited_heads_up: bool = False
    #: a player never receives a card they discarded earlier in the hand [PS]
    never_return_own_discards: bool = False
    #: Korean house betting ("Korean betting mode"): antes, check / 삥 bet / 하프 half /
    #: 따당 raise / call / fold
    korean_betting: bool = False
    #: Korean betting: the ante every player puts in, which is also the 삥 bet
    ante: int = field(default=1, metadata={"range": (1, 1_000_000)})
    #: Korean betting: raises allowed after the opening bet of a round
    max_raises_per_round: int = field(default=4, metadata={"range": (0, 100)})

    def validate(self) -> None:
        if self.small_blind > self.big_blind:
            raise InvalidParams("badugi: parameter 'small_blind' must not exceed 'big_blind'")
        if self.big_bet < self.big_blind:
            raise InvalidParams("badugi: parameter 'big_bet' must be at least 'big_blind'")
        if self.capped and self.starting_stack < self.most_put_in:
            raise InvalidParams(
                f"badugi: parameter 'stack' must be at least {self.most_put_in} chips, the most a "
                "player can put in a hand, so that nobody is ever all-in "
                f"(it is {self.starting_stack}; 0 means 100 big blinds)"
            )

    @property
    def capped(self) -> bool:
        """Fixed limit with a cap in every situation: stacks are finite and never run out."""
        return not self.korean_betting and not self.unlimited_heads_up

    @property
    def starting_stack(self) -> int:
        """Chips each player has at the start of every hand (100 big blinds by default:
        docs/rules/badugi.md, "Stakes, blinds and stacks")."""
        return self.stack or 100 * self.big_blind

    @property
    def round_caps(self) -> tuple[int, int, int, int]:
        """Fixed limit: the most bets in each of the four betting rounds."""
        cap = self.max_bets_per_round
        return (self.max_bets_predraw or cap, cap, cap, cap)

    @property
    def most_put_in(self) -> int:
        first, second, third, fourth = self.round_caps
        return (first + second) * self.big_blind + (third + fourth) * self.big_bet


def big_blinds_per_100(result: Any) -> list[float]:
    """Per-entrant big blinds (Korean betting: antes) per 100 hands of a Badugi match result."""
    return next(iter(result.rates.values()))


class BadugiState(State):
    def __init__(self, game: BadugiGame, seed: int, decks: Any, first_dealer: int | None) -> None:
        super().__init__(game, seed, decks, first_dealer)
        self.params: BadugiParams = game.params
        p = self.params
        self.korean = p.korean_betting
        self.caps = (p.max_raises_per_round + 1,) * ROUNDS if self.korean else p.round_caps
        self.cap = self.caps[0]
        self.net = [0] * self.num_players
        self._stack = p.starting_stack if p.capped else 0  # 0: unbounded
        # Every observation starts as a copy of this dict (never changed, so clones share it):
        # placeholders that fix where the first keys go, then the facts that hold for the whole
        # match; observation() sets the rest in order. Copying a dict and setting its values is
        # several times faster than a dict display (which also merged these facts each time).
        self._template: dict[str, Any] = {
            "game": "badugi",
            "seat": None,
            "phase": None,
            "to_act": None,
            "hand": None,
            "legal": None,
            "hands": p.hands,
            "players": self.num_players,
            "betting": "korean" if self.korean else "fixed_limit",
            "blinds": None if self.korean else FrozenList([p.small_blind, p.big_blind]),
            "stakes": None if self.korean else FrozenList([p.big_blind, p.big_bet]),
            "ante": p.ante if self.korean else 0,
        }
        self.button = self.first_dealer
        self.last_hand: FrozenDict[str, Any] | None = None
        self._start_hand()

    # -- the hand's course ------------------------------------------------------------------

    def _start_hand(self) -> None:
        n = self.num_players
        b = self.button
        deck = self.deck_for(len(self.deals))
        dealt = 4 * n
        hands: list[list[Card]] = [[] for _ in range(n)]
        for offset in range(n):  # deck index k goes to seat (button + 1 + k) mod n
            hands[(b + 1 + offset) % n] = sorted(deck[offset:dealt:n])
        self.hands = hands
        self._forget_caches()
        self.stub = deck[: dealt - 1 : -1]  # undealt cards, the top of the stub last
        self.muck: list[Card] = []
        self._rng: random.Random | None = None
        self.reshuffles = 0
        #: each reshuffled stub's order, top card first, as the replay records it
        self.reshuffled_stubs: list[list[str]] = []
        record = self.start_deal_record(b, deck)
        record.hands = [[TEXT_OF[c] for c in h] for h in hands]
        self.folded = [False] * n
        self.folded_hands: list[list[Card]] = [[] for _ in range(n)]
        self.live = n
        self.drawn: FrozenList[FrozenList[int]] = FrozenList([EMPTY] * n)  # replaced at draws
        self.discards: list[list[Card]] = [[] for _ in range(n)]
        self.public: FrozenList[FrozenList[Any]] = EMPTY  # this hand's [seat, action] pairs
        self.street = 0
        p = self.params
        if self.korean:
            self.committed = [p.ante] * n
            self.pot = p.ante * n
            self._start_round(first=(b + 1) % n)
            return
        if n == 2:  # heads-up: the button posts the small blind and acts first
            small, big, first = b, (b + 1) % 2, b
        else:
            small, big, first = (b + 1) % n, (b + 2) % n, (b + 3) % n
        self.committed = [0] * n
        self._start_round(first)
        self.put[small] = self.committed[small] = p.small_blind
        self.put[big] = self.committed[big] = p.big_blind
        self.pot = p.small_blind + p.big_blind
        self.level = p.big_blind
        self.bets = 1  # the big blind is the round's first bet
        self.sealed = self.bets >= self.cap and n > 2

    def _start_round(self, first: int) -> None:
        n = self.num_players
        self.phase = Phase.BET
        self.put = [0] * n
        self.level = 0
        self.bets = 0
        self.cap = self.caps[self.street]
        self.sealed = False  # capped with 3+ players in: a fold to heads-up does not uncap
        self.last_size = 0  # Korean: size of the last bet or raise
        self.limited = [False] * n  # Korean: checked or called this round
        self.pending = self.live  # players who still have to act in this round
        self.to_act = first

    def _next_live(self, seat: int) -> int:
        n = self.num_players
        folded = self.folded
        seat = (seat + 1) % n
        while folded[seat]:
            seat = (seat + 1) % n
        return seat

    def current_player(self) -> int:
        return self.to_act

    def is_terminal(self) -> bool:
        return self.to_act == TERMINAL

    # -- legal actions ----------------------------------------------------------------------

    def _legal_actions(self) -> FrozenList[str]:
        phase = self.phase
        if phase is Phase.DRAW:
            return FrozenList(draw_actions(self.hands[self.to_act]))
        if phase is Phase.OVER:
            return EMPTY
        seat = self.to_act
        to_call = self.level - self.put[seat]
        if self.korean:
            if self.level == 0:
                return KOREAN_OPEN
            if to_call <= 0:
                return CHECK
            if self.limited[seat] or self.bets >= self.cap:
                return CALL_FOLD
            return KOREAN_FACING
        can_raise = self.bets < self.cap or (
            self.live == 2 and not self.sealed and self.params.unlimited_heads_up
        )
        if to_call > 0:
            return CALL_FOLD_RAISE if can_raise else CALL_FOLD
        if not can_raise:
            return CHECK
        return BET_CHECK if self.level == 0 else CHECK_RAISE

    def _illegal_reason(self, action: str) -> str:
        if self.phase is Phase.DRAW:
            if action.startswith("draw:"):
                return (
                    "a draw names distinct cards of your hand in sorted order, comma-separated, "
                    "e.g. draw:9s,Kd; draw: stands pat"
                )
            return "it is a draw: discard with draw:<cards> or stand pat with draw:"
        if action.startswith("draw:"):
            return "it is a betting round, not a draw"
        to_call = self.level - self.put[self.to_act]
        if action in ("bet", "raise", "half"):
            if self.korean and self.limited[self.to_act]:
                return "a player who checked or called in this round may only call or fold"
            if action == "bet" and self.level > 0:
                return "there is already a bet: raise instead"
            if action == "raise" and self.level == 0:
                return "nothing has been bet: bet instead"
            return f"the betting is capped at {self.cap} bets in this round"
        if action == "check" and to_call > 0:
            return f"there is a bet of {to_call} to call"
        if action == "call" and to_call <= 0:
            return "nothing to call: check instead"
        if action == "fold" and to_call <= 0:
            return "nothing to call: check instead of folding"
        return ""

    # -- applying actions -------------------------------------------------------------------

    def _apply(self, action: str) -> None:
        if self.phase is Phase.BET:
            self._apply_bet(action)
        else:
            self._apply_draw(action)

    def _apply_bet(self, action: str) -> None:
        seat = self.to_act
        self.public = appended(self.public, ACTED[seat][action])
        if action == "fold":
            self.folded[seat] = True
            self.folded_hands[seat] = hand = self.hands[seat]
            self.muck.extend(hand)
            self.hands[seat] = []
            self._hand_texts[seat] = None
            self.live -= 1
            self.pending -= 1
            if self.live == 1:
                self._win_uncontested()
                return
        elif action == "call" or action == "check":
            self._pay(seat, self.level - self.put[seat])
            self.limited[seat] = True
            self.pending -= 1
        else:
            self._pay(seat, self._raise_amount(seat, action))
            self.bets += 1
            if self.bets >= self.cap and self.live > 2:
                self.sealed = True
            self.pending = self.live - 1
        if self.pending == 0:
            self._end_round()
        else:
            self.to_act = self._next_live(seat)

    def _raise_amount(self, seat: int, action: str) -> int:
        """Chips ``seat`` puts in for a bet or raise (fixed limit or Korean); sets the level."""
        to_call = self.level - self.put[seat]
        if not self.korean:
            p = self.params
            unit = p.big_blind if self.street < 2 else p.big_bet
            self.level += unit
            return to_call + unit
        if action == "bet":
            size = self.params.ante
        elif action == "raise":
            size = self.last_size
        else:  # half: half of the pot after calling
            size = (self.pot + to_call) // 2
        self.last_size = size
        self.level += size
        return to_call + size

    def _pay(self, seat: int, amount: int) -> None:
        self.put[seat] += amount
        self.committed[seat] += amount
        self.pot += amount

    def _end_round(self) -> None:
        if self.street == ROUNDS - 1:
            self._showdown()
            return
        self.phase = Phase.DRAW
        self.pending = self.live
        self.to_act = self._next_live(self.button)

    def _apply_draw(self, action: str) -> None:
        seat = self.to_act
        if len(action) > 5:
            out = [CARD_BY_TEXT[t] for t in action[5:].split(",")]
            hand = self.hands[seat]
            for c in out:
                hand.remove(c)
            self.discards[seat].extend(out)
            self.muck.extend(out)
            hand.extend(self._receive(seat, len(out)))
            hand.sort()
            self._hand_texts[seat] = None
            count = len(out)
        else:
            count = 0
        drawn = list(self.drawn)
        drawn[seat] = appended(drawn[seat], count)
        self.drawn = FrozenList(drawn)
        self.public = appended(self.public, ACTED[seat][DREW[count]])
        self.pending -= 1
        if self.pending:
            self.to_act = self._next_live(seat)
        else:
            self.street += 1
            self._start_round(self._next_live(self.button))

    # -- the stub ---------------------------------------------------------------------------

    def _receive(self, seat: int, count: int) -> list[Card]:
        """``count`` cards from the top of the stub for ``seat``, reshuffling when it runs out."""
        stub = self.stub
        if len(stub) >= count and not self.params.never_return_own_discards:
            got = stub[-count:]
            del stub[-count:]
            return got
        got = []
        own = set(self.discards[seat])
        passing_over = self.params.never_return_own_discards
        while len(got) < count:
            stub = self.stub
            index = len(stub) - 1
            if passing_over:
                while index >= 0 and stub[index] in own:
                    index -= 1
            if index < 0:
                self._reshuffle(own)
                continue
            got.append(stub.pop(index))
        return got

    def _reshuffle(self, own: set[Card]) -> None:
        """A new stub: the discarded and folded cards (and any stub left) minus ``own``."""
        pool = self.stub + self.muck
        fresh = [c for c in pool if c not in own]
        if not fresh:  # pragma: no cover - impossible with 52 cards and at most 6 players
            raise AssertionError("no card left to reshuffle")
        if self._rng is None:
            self._rng = self.deal_rng(len(self.deals) - 1, "reshuffle")
        self._rng.shuffle(fresh)
        self.stub = fresh
        self.muck = [c for c in pool if c in own]
        self.reshuffles += 1
        self.reshuffled_stubs.append([TEXT_OF[c] for c in reversed(fresh)])  # top = last

    # -- the end of a hand ------------------------------------------------------------------

    def _win_uncontested(self) -> None:
        won = [0] * self.num_players
        won[self.folded.index(False)] = self.pot
        self._finish_hand(won, None)

    def _showdown(self) -> None:
        n = self.num_players
        order = [(self.button + 1 + i) % n for i in range(n)]  # clockwise from the button's left
        values = {s: hand_value(self.hands[s]) for s in order if not self.folded[s]}
        best = max(values.values())
        winners = [s for s in values if values[s] == best]
        share, odd = divmod(self.pot, len(winners))
        won = [0] * n
        for i, s in enumerate(winners):
            won[s] = share + (1 if i < odd else 0)  # odd chips one by one from the button's left
        self._finish_hand(won, values)

    def _finish_hand(self, won: list[int], shown: dict[int, int] | None) -> None:
        n = self.num_players
        net = [won[s] - self.committed[s] for s in range(n)]
        for s in range(n):
            self.net[s] += net[s]
        revealed: list[list[str] | None] = [None] * n
        names: list[str | None] = [None] * n
        for s, value in (shown or {}).items():
            revealed[s] = [TEXT_OF[c] for c in self.hands[s]]
            names[s] = value_name(value)
        winners = [s for s in range(n) if won[s] > 0]
        pot = self.pot
        drawn = [list(d) for d in self.drawn]
        final = [[TEXT_OF[c] for c in (self.folded_hands[s] or self.hands[s])] for s in range(n)]
        self.deals[-1].info = {
            "pot": pot,
            "winners": winners,
            "revealed": revealed,
            "names": names,
            "final_hands": final,
            "drawn": drawn,
            "reshuffles": self.reshuffles,
            "reshuffled_stubs": self.reshuffled_stubs,
        }
        self.finish_deal_record(net)
        self.last_hand = FrozenDict(
            hand_number=len(self.deals) - 1,
            button=self.button,
            actions=self.public,
            drawn=self.drawn,
            pot=pot,
            winners=FrozenList(winners),
            revealed=FrozenList([None if r is None else FrozenList(r) for r in revealed]),
            names=FrozenList(names),
            net=FrozenList(net),
        )
        if len(self.deals) < self.params.hands:
            self.button = (self.button + 1) % n
            self._start_hand()
        else:
            self.phase = Phase.OVER
            self.to_act = TERMINAL

    # -- results, observations, copies --------------------------------------------------------

    def returns(self) -> list[float]:
        return [float(x) for x in self.net]

    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` knows (JSON-serialisable; treat it as read-only, parts are shared).

        Keys: ``game``, ``seat``, ``phase`` (bet / draw / over), ``to_act`` (-1 at the end),
        ``hand`` (own cards, sorted; empty after folding), ``legal`` (when ``seat`` is to act),
        ``hand_number`` (0-based) of ``hands``, ``players``, ``button``, ``betting`` (fixed_limit
        or korean), ``blinds`` [small, big] and ``stakes`` [small bet, big bet] (null in Korean
        betting), ``ante``, ``street`` (betting round 0–3; during a draw the round before it),
        ``draws_left`` (the draw in progress included), ``actions`` (this hand's public
        ``[seat, action]`` pairs, a draw shown as ``drew:<count>``), ``drawn`` (per seat, cards
        drawn at each draw), ``discards`` (own discards this hand), ``folded``, ``pot``,
        ``to_call``, ``bets`` (put in this round), ``committed`` (this hand), ``bet_count`` and
        ``max_bets`` (this round's bets and cap), ``stacks`` (null when unbounded), ``scores``
        (net chips over the match) and ``last_hand`` (the previous hand: actions, draws, pot,
        winners, the hands ``revealed`` at its showdown with their ``names``, and ``net``).
        """
        obs = self._template.copy()
        phase = self.phase
        to_act = self.to_act
        committed = self.committed
        street = self.street
        obs["seat"] = seat
        obs["phase"] = PHASE_TEXT[phase]
        obs["to_act"] = to_act
        obs["hand"] = self._hand_texts[seat] or self.hand_text(seat)
        obs["legal"] = (self._legal or self.legal_actions()) if to_act == seat else EMPTY
        obs["hand_number"] = len(self.deals) - 1
        obs["button"] = self.button
        obs["street"] = street
        obs["draws_left"] = ROUNDS - 1 - street
        obs["actions"] = self.public
        obs["drawn"] = self.drawn
        obs["discards"] = [TEXT_OF[c] for c in self.discards[seat]]
        obs["folded"] = self.folded[:]
        obs["pot"] = self.pot
        obs["to_call"] = (
            self.level - self.put[seat] if phase is Phase.BET and not self.folded[seat] else 0
        )
        obs["bets"] = self.put[:]
        obs["committed"] = committed[:]
        obs["bet_count"] = self.bets
        obs["max_bets"] = self.cap
        obs["stacks"] = [self._stack - c for c in committed] if self._stack else None
        obs["scores"] = self.net[:]
        obs["last_hand"] = self.last_hand
        return obs

    def redeal_hidden(self, seat: int, rng: random.Random) -> State:
        """Permute every card ``seat`` has not seen (others' hands and discards, the stub, folds).

        The permutation is applied wherever a hidden card is recorded, so the clone stays a
        consistent state; ``seat``'s own cards, discards and folded hand stay in place.
        """
        other = self.clone()
        assert isinstance(other, BadugiState)
        known = set(self.hands[seat]) | set(self.discards[seat]) | set(self.folded_hands[seat])
        unseen = [c for c in CARDS if c not in known]
        shuffled = list(unseen)
        rng.shuffle(shuffled)
        relabel = dict(zip(unseen, shuffled, strict=True))

        def move(cards: list[Card]) -> list[Card]:
            return [relabel.get(c, c) for c in cards]

        for s in range(self.num_players):
            if s != seat:
                other.hands[s] = sorted(move(other.hands[s]))
                other.discards[s] = move(other.discards[s])
                other.folded_hands[s] = move(other.folded_hands[s])
        other.stub = move(other.stub)
        other.reshuffled_stubs = [
            [TEXT_OF[c] for c in move([CARD_BY_TEXT[t] for t in order])]
            for order in other.reshuffled_stubs
        ]
        other.muck = move(other.muck)
        other._forget_caches()
        return other


class BadugiGame(Game):
    name = "badugi"
    title = "Badugi"
    Params = BadugiParams
    state_class = BadugiState
    min_players = 2
    max_players = 6
    # RULES §2.5 compares a duplicate's paired hands by chips; a board's win-or-lose would drop
    # the pot size, most of what a hand says (docs/ranking.md measures it)
    scored_by_boards = False
    example_params: ClassVar[list[dict[str, Any]]] = [
        {},
        {"players": 3},
        {"players": 6, "hands": 30},
        {"players": 6, "hands": 30, "never_return_own_discards": True},
        {
            "players": 4,
            "hands": 20,
            "max_bets_per_round": 5,
            "small_blind": 5,
            "big_blind": 10,
            "big_bet": 20,
            "stack": 1000,
        },
        {"unlimited_heads_up": True, "hands": 50},
        {"players": 4, "hands": 20, "unlimited_heads_up": True},
        {"korean_betting": True, "hands": 50},
        {"players": 5, "hands": 20, "korean_betting": True, "ante": 2, "max_raises_per_round": 2},
    ]

    @property
    def deck(self) -> list[Card]:
        return list(CARDS)

    def corrected_scale(self) -> float:
        """A luck-corrected game's chip total is shared by its margin (``engine.margin_share``),
        not ranked by its sign: on ten big blinds (Korean betting: antes) per ten hands, grown
        as the square root of the hands played, as a total's spread grows; 20 chips for the
        ranking benchmark's ten-hand games at the default stakes (docs/ranking.md measures it)."""
        return CORRECTED_SCALE_UNITS * self.rate_unit[1] * math.sqrt(self.params.hands / 10)

    @property
    def rate_unit(self) -> tuple[str, int]:
        """The chip unit match results are also expressed in, per 100 hands."""
        if self.params.korean_betting:
            return "antes/100", self.params.ante
        return "bb/100", self.params.big_blind

    def rate_scores(self, scores: Sequence[float], deals: int) -> dict[str, list[float]]:
        """Scores in big blinds (Korean: antes) per 100 hands, ``deals`` hands per entrant."""
        label, unit = self.rate_unit
        if deals <= 0:
            return {label: [0.0 for _ in scores]}
        return {label: [100.0 * s / unit / deals for s in scores]}


def draw_actions(hand: list[Card]) -> list[str]:
    """The 16 draw actions of a sorted four-card hand, in sorted order.

    Card texts all have two characters and ``,`` sorts before them, so the sorted order of the
    actions is the lexicographic order of the discarded card sequences.
    """
    a, b, c, d = [TEXT_OF[x] for x in hand]
    ab = a + "," + b
    ac = a + "," + c
    bc = b + "," + c
    abc = ab + "," + c
    return [
        "draw:",
        "draw:" + a,
        "draw:" + ab,
        "draw:" + abc,
        "draw:" + abc + "," + d,
        "draw:" + ab + "," + d,
        "draw:" + ac,
        "draw:" + ac + "," + d,
        "draw:" + a + "," + d,
        "draw:" + b,
        "draw:" + bc,
        "draw:" + bc + "," + d,
        "draw:" + b + "," + d,
        "draw:" + c,
        "draw:" + c + "," + d,
        "draw:" + d,
    ]


register(BadugiGame)
