"""Barbu (docs/rules/barbu.md): seven contracts, Geronimo, Doubling, Salad, 32 cards.

One :class:`BarbuState` is a whole game: 4 deals (base), 4n (n-repeat) or 28 / 24 (Geronimo,
standard / Salad). Each deal: the dealer declares a contract (``contract:no_queens``,
``contract:trumps:s``, ``contract:domino:6``); with Doubling the three others designate in turn
(``double:none``, ``double:2``, ``double:all``; ``double:0,2`` with any-subset); then the trick
contracts are played with the shared trick mechanics, or Domino on a layout of one run per suit.
``returns()`` is the cumulative score.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Final

from engine.cards import (
    BIT,
    CARD_BY_TEXT,
    MASK_TEXTS,
    RANK_OF,
    RANK_VALUE,
    SUIT_MASK,
    SUIT_OF,
    SUITS,
    TEXT_OF,
    Card,
    mask_texts,
)
from engine.errors import InvalidParams
from engine.frozen import FrozenDict, FrozenList
from engine.frozen_ops import EMPTY, appended, frozen_dict, frozen_list
from engine.game import TERMINAL, Game, State
from engine.games.barbu_rules import (
    DECK_32,
    DECK_52,
    DOMINO_POINTS,
    KING_OF_HEARTS,
    POSITIVE,
    RANK_TEXT,
    SALAD_CONTRACTS,
    SALAD_RULES,
    STANDARD_CONTRACTS,
    STANDARD_RULES,
    SUIT_POSITION,
    ContractRules,
    contract_actions,
    designation_choices,
    domino_fits,
    duties_feasible,
    settle_bets,
    trick_power,
)
from engine.registry import register
from engine.tricks import TrickTable

_KH_TEXT: Final = TEXT_OF[KING_OF_HEARTS]
NO_SCORES: Final[FrozenList[int]] = frozen_list([0, 0, 0, 0])
_KH_ONLY: Final[FrozenList[str]] = frozen_list([_KH_TEXT])
_PASS_ONLY: Final[FrozenList[str]] = frozen_list(["pass"])
#: a card text's bit in a hand mask (:data:`~engine.cards.BIT`)
_TEXT_BIT: Final = {TEXT_OF[c]: BIT[c] for c in range(52)}
#: ``_DOMINO_MOVE[seat][action]``: the public entry of a Domino move, made once and shared
_DOMINO_MOVE: Final = tuple(
    {a: FrozenDict(seat=seat, action=a) for a in [*TEXT_OF, "pass"]} for seat in range(4)
)
#: ``_RUN[lo][hi]``: a suit's run in the Domino layout as shown, made once and shared (ranks
#: 2..14 index it; the rows and columns 0 and 1 are never read)
_RUN: Final = tuple(
    tuple(frozen_list([RANK_TEXT.get(lo, ""), RANK_TEXT.get(hi, "")]) for hi in range(15))
    for lo in range(15)
)
#: ``_SUIT_CARDS[c]``: every card of ``c``'s suit as a mask (who can follow ``c``); compiled, a
#: tuple indexed by a card (an int) is a native look-up, a dict keyed by its suit a CPython call
_SUIT_CARDS: Final[tuple[int, ...]] = tuple(SUIT_MASK[SUIT_OF[c]] for c in range(52))
_NOT_A_CARD: Final = "not a card: play rank 2-9 T J Q K A + suit s h d c (e.g. Td, the ten is T)"


def _text_mask(hand: list[str]) -> int:
    """A hand of card texts as a bit mask of :data:`_TEXT_BIT`, in one loop. (Mapping the texts
    to cards for :func:`~engine.cards.mask_of` builds a list per hand first: twice the cost in
    the Python build.)"""
    mask = 0
    for t in hand:
        mask |= _TEXT_BIT[t]
    return mask


class Phase(StrEnum):
    DECLARE = "declare"
    DOUBLE = "double"
    PLAY = "play"  # the trick contracts
    DOMINO = "domino"
    OVER = "over"


@dataclass(frozen=True, kw_only=True)
class Params:
    """Barbu's rule options (docs/rules/barbu.md, "Rule options", with their defaults)."""

    #: base: everyone declares once (4 deals); repeat: ``repeats`` times each; geronimo: every
    #: declarer declares every contract once (28 deals, 24 with Salad)
    mode: str = field(default="base", metadata={"choices": ("base", "repeat", "geronimo")})
    repeats: int = field(default=2, metadata={"choices": (2, 3)})
    salad: bool = False  # the six Salad contracts replace the seven standard ones
    deck: int = field(default=52, metadata={"choices": (52, 32)})
    doubling: bool = False  # designation phase; requires mode="geronimo"
    #: who leads the first trick: left of the declarer (seed) or the declarer [P][W][BGA]
    first_player: str = field(default="left", metadata={"choices": ("left", "declarer")})
    #: who plays first in Domino: as ``first_player``, or forced left / declarer
    domino_first: str = field(
        default="first_player", metadata={"choices": ("first_player", "left", "declarer")}
    )
    must_trump_when_void: bool = False
    must_overtrump: bool = False
    force_kh_discard: bool = False  # a player void in the suit led must discard the K♥
    doubling_payout: str = field(
        default="symmetric", metadata={"choices": ("symmetric", "proposer_gain_only")}
    )
    doubling_any_subset: bool = False
    doubling_cap_per_deal: int = field(default=2, metadata={"range": (1, 3)})
    #: pagat's duties: only the declarer may be doubled in positive contracts, and each
    #: non-declarer must double each declarer at least twice over that declarer's contracts
    pagat_doubling_duties: bool = False
    geronimo_blocks: bool = False  # one declarer for 7 (6) consecutive deals instead of rotating

    def validate(self) -> None:
        if self.doubling and self.mode != "geronimo":
            raise InvalidParams("barbu: parameter 'doubling' requires mode='geronimo' (S0:L47)")
        if self.geronimo_blocks and self.mode != "geronimo":
            raise InvalidParams("barbu: parameter 'geronimo_blocks' requires mode='geronimo'")
        if self.repeats != 2 and self.mode != "repeat":
            raise InvalidParams("barbu: parameter 'repeats' applies only with mode='repeat'")
        if not self.doubling:
            changed = [
                name
                for name, value, default in (
                    ("doubling_payout", self.doubling_payout, "symmetric"),
                    ("doubling_any_subset", self.doubling_any_subset, False),
                    ("doubling_cap_per_deal", self.doubling_cap_per_deal, 2),
                    ("pagat_doubling_duties", self.pagat_doubling_duties, False),
                )
                if value != default
            ]
            if changed:
                raise InvalidParams(f"barbu: parameter {changed[0]!r} requires doubling=True")


class BarbuState(State):
    """One Barbu game. Hands are sorted lists of card texts (sorted texts = sorted cards), with
    each hand as a bit mask alongside in ``masks`` (who can follow suit, in one step).

    ``self.public`` holds the public part of every observation. Its values are immutable
    (scalars, :class:`~engine.frozen.FrozenList`, :class:`~engine.frozen.FrozenDict`) and
    replaced when they change, so an observation is a shallow copy of it plus the seat's own
    cards, sharing those values safely.
    """

    def __init__(self, game: BarbuGame, seed: int, decks: Any, first_dealer: int | None) -> None:
        super().__init__(game, seed, decks, first_dealer)
        self.params: Params = game.params
        p = self.params
        self.contracts = game.contracts
        self.rules_by_name: dict[str, ContractRules] = SALAD_RULES if p.salad else STANDARD_RULES
        self.num_deals = game.num_deals
        self.num_tricks = 8 if p.deck == 32 else 13
        self.low_rank = 7 if p.deck == 32 else 2
        self.scores = [0, 0, 0, 0]
        # Geronimo: the contracts each seat may still declare (frozen, replaced when they change,
        # so observations share them)
        self.left: FrozenList[FrozenList[str]] | None = (
            frozen_list([frozen_list(game.contracts)] * 4) if p.mode == "geronimo" else None
        )
        # doubled_declarer[p][d]: how often p designated d on d's deals (pagat duties)
        self.doubled_declarer = [[0] * 4 for _ in range(4)]
        self.public: dict[str, Any] = {"game": "barbu", "deals": self.num_deals, "last_deal": None}
        self._start_deal()

    # -- deal and declaration ------------------------------------------------------------------

    def _dealer_of(self, deal_index: int) -> int:
        """Dealer (= declarer) of a deal: rotating left every deal, or in Geronimo blocks."""
        if self.params.geronimo_blocks:
            return (self.first_dealer + deal_index // len(self.contracts)) % 4
        return (self.first_dealer + deal_index) % 4

    def _start_deal(self) -> None:
        index = len(self.deals)
        dealer = self._dealer_of(index)
        deck = self.deck_for(index)
        hands: list[list[str]] = [[], [], [], []]
        for k in range(4):  # deck index k goes to seat (dealer + 1 + k) mod 4, one at a time
            hands[(dealer + 1 + k) % 4] = sorted([TEXT_OF[c] for c in deck[k::4]])
        self.hands = hands
        self._forget_caches()
        record = self.start_deal_record(dealer, deck)
        record.hands = [h[:] for h in hands]
        first = dealer if self.params.first_player == "declarer" else (dealer + 1) % 4
        self.dealer = dealer
        self.first_player = first
        self.phase = Phase.DECLARE
        self._to_act = dealer
        self.contract: str | None = None
        self.rules: ContractRules | None = None
        self.trump: str | None = None
        self.domino_rank = 0
        self.designations: list[dict[str, Any]] = []
        self.designated = [0, 0, 0, 0]  # designations received in this deal (the cap)
        self.bets: list[tuple[int, int]] = []
        self.deal_scores = [0, 0, 0, 0]
        self.table = TrickTable(4, first, self.num_tricks)
        self.end_left = -1  # cards still to be taken before an early end (-1: no early end)
        self.lo = [0, 0, 0, 0]  # domino layout per suit index (0: not opened)
        self.hi = [0, 0, 0, 0]
        self.finished: list[int] = []
        self.passes = 0  # consecutive domino passes (a deadlock is impossible: asserted)
        self.public.update(
            phase=Phase.DECLARE,
            deal=index,
            dealer=dealer,
            declarer=dealer,
            first_player=first,
            contract=None,
            trump=None,
            domino_rank=None,
            designations=EMPTY,
            declarer_doubled_by=self._doubled_by() if self.params.doubling else None,
            trick=EMPTY,
            tricks=EMPTY,
            layout=None,
            domino_moves=EMPTY,
            finished=EMPTY,
            deal_scores=NO_SCORES,
            scores=frozen_list(self.scores),
            contracts_left=self.left,
        )

    def _declaration_actions(self) -> FrozenList[str]:
        names = self.left[self.dealer] if self.left is not None else self.contracts
        return frozen_list(contract_actions(names, self.low_rank))

    def _apply_declaration(self, action: str) -> None:
        _, name, *extra = action.split(":")
        rules = self.rules_by_name[name]
        self.contract = name
        self.rules = rules
        public = self.public
        if rules.trumps:
            self.trump = extra[0]
        elif rules.domino:
            self.domino_rank = RANK_VALUE[extra[0]]
            first = self.params.domino_first  # who plays first in Domino ("Rule options")
            if first == "left":
                self.first_player = (self.dealer + 1) % 4
            elif first == "declarer":
                self.first_player = self.dealer
            public["first_player"] = self.first_player
        if self.left is not None:
            left = list(self.left)
            left[self.dealer] = frozen_list([c for c in left[self.dealer] if c != name])
            self.left = public["contracts_left"] = frozen_list(left)
        rank = extra[0] if rules.domino else None
        public.update(contract=name, trump=self.trump, domino_rank=rank)
        self.deals[-1].info = {
            "declarer": self.dealer,
            "contract": name,
            "trump": self.trump,
            "domino_rank": rank,
        }
        if self.params.doubling:
            self.phase = public["phase"] = Phase.DOUBLE
            self._to_act = (self.dealer + 1) % 4
        else:
            self._start_play()

    # -- doubling ------------------------------------------------------------------------------

    def _doubled_by(self) -> FrozenList[int]:
        return frozen_list([row[self.dealer] for row in self.doubled_declarer])

    def _designation_choices(self) -> list[tuple[str, tuple[int, ...]]]:
        p, d, opts = self._to_act, self.dealer, self.params
        cap = opts.doubling_cap_per_deal
        eligible = [t for t in range(4) if t != p and self.designated[t] < cap]
        duties = opts.pagat_doubling_duties
        if duties and self.contract in POSITIVE:
            eligible = [t for t in eligible if t == d]  # positive contracts: the declarer only
        choices = designation_choices(eligible, any_subset=opts.doubling_any_subset)
        if duties:
            feasible = {False: self._duties_feasible(False), True: self._duties_feasible(True)}
            choices = [(a, ts) for a, ts in choices if feasible[d in ts]]
        return choices

    def _duties_feasible(self, names_declarer: bool) -> bool:
        """Whether pagat's "double each declarer twice" can still be met after this choice."""
        p, d, cap = self._to_act, self.dealer, self.params.doubling_cap_per_deal
        needs = {q: max(0, 2 - self.doubled_declarer[q][d]) for q in range(4) if q != d}
        if names_declarer:
            needs[p] = max(0, needs[p] - 1)
        order = [(d + k) % 4 for k in range(1, 4)]
        later = order[order.index(p) + 1 :]
        slots = cap - self.designated[d] - names_declarer
        future = len(self.left[d]) if self.left is not None else 0
        return duties_feasible(needs, later, slots, future, cap)

    def _apply_designation(self, action: str) -> None:
        p = self._to_act
        targets = next(ts for a, ts in self._designation_choices() if a == action)
        entry = {"seat": p, "targets": list(targets)}
        self.designations.append(entry)
        for t in targets:
            self.designated[t] += 1
            self.bets.append((p, t))
            if t == self.dealer:
                self.doubled_declarer[p][t] += 1
        public = self.public
        shown: FrozenDict[str, Any] = frozen_dict(seat=p, targets=frozen_list(targets))
        public["designations"] = appended(public["designations"], shown)
        public["declarer_doubled_by"] = self._doubled_by()
        if len(self.designations) == 3:
            self._start_play()
        else:
            self._to_act = (p + 1) % 4

    # -- play ----------------------------------------------------------------------------------

    def _start_play(self) -> None:
        rules = self.rules
        assert rules is not None
        if rules.domino:
            self.phase = self.public["phase"] = Phase.DOMINO
            self.public["layout"] = frozen_dict(dict.fromkeys(SUITS))
            self._to_act = self.first_player  # set for Domino by the declaration
        else:
            self.phase = self.public["phase"] = Phase.PLAY
            self._to_act = self.first_player
            self.end_left = len(rules.end_cards) or -1

    def _trick_actions(self) -> FrozenList[str]:
        """docs/rules/barbu.md, "Duties when playing a card" (Trumps: :meth:`_trumps_actions`).

        The whole hand is the seat's shared hand text, never a copy of it.
        """
        seat = self._to_act
        hand = self.hands[seat]
        trick = self.table.cards
        rules = self.rules
        assert rules is not None
        if not trick:
            if rules.no_heart_lead:  # no heart lead unless holding only hearts (S0:L21, L23)
                lead = [x for x in hand if x[1] != "h"]
                if lead and len(lead) < len(hand):
                    return frozen_list(lead)
            return self.hand_text(seat)
        led = SUIT_OF[trick[0]]
        if rules.trumps:
            allowed = self._trumps_actions(hand, trick, led)
            return self.hand_text(seat) if len(allowed) == len(hand) else frozen_list(allowed)
        mask = self.masks[seat]
        follow = mask & _SUIT_CARDS[trick[0]]
        if not follow:
            if self.params.force_kh_discard and rules.king_of_hearts_scores and _KH_TEXT in hand:
                return _KH_ONLY
            return self.hand_text(seat)
        if follow == mask:
            return self.hand_text(seat)
        return MASK_TEXTS.get(follow) or mask_texts(follow)  # the cards of the suit led

    def _trumps_actions(self, hand: list[str], trick: list[int], led: str) -> list[str]:
        trump, opts = self.trump, self.params
        follow: list[str] = mask_texts(self.masks[self._to_act] & SUIT_MASK[led])
        if follow:
            if opts.must_overtrump and led == trump:
                return _above(follow, trick, trump) or follow
            return follow
        if opts.must_trump_when_void:
            trumps = [x for x in hand if x[1] == trump]
            if trumps:
                if opts.must_overtrump and any(SUIT_OF[c] == trump for c in trick):
                    return _above(trumps, trick, trump) or trumps
                return trumps
        return hand

    def _apply_card(self, action: str) -> None:
        seat = self._to_act
        hand = self.hands[seat]
        hand.remove(action)
        self._hand_texts[seat] = frozen_list(hand)  # asked for next anyway (see _drop_card)
        c: int = CARD_BY_TEXT[action]  # an int: compiled, BIT[c] is a native look-up
        masks = self.masks
        masks[seat] = masks[seat] ^ BIT[c]  # not ^=: compiled, that is generic
        table = self.table
        public = self.public
        if not table.play(seat, c):
            self._to_act = (seat + 1) % 4
            return
        rules = self.rules
        assert rules is not None
        trick = table.cards
        number = len(table.completed) + 1
        value = rules.per_trick
        values = rules.card_values
        for c in trick:
            value += values[c]
        if number == self.num_tricks:
            value += rules.last
        elif number == self.num_tricks - 1:
            value += rules.second_last
        if self.end_left > 0:
            self.end_left -= sum(1 for c in trick if c in rules.end_cards)
        winner = table.finish(trick_power(self.trump, SUIT_OF[trick[0]]))
        deal_scores = self.deal_scores
        deal_scores[winner] = deal_scores[winner] + value  # not +=: compiled, that is generic
        public["tricks"] = table.completed
        public["deal_scores"] = frozen_list(self.deal_scores)
        if number == self.num_tricks or self.end_left == 0:
            self._end_deal()  # all tricks played, or early end (No Queens / No King of Hearts)
        else:
            self._to_act = winner

    # -- domino --------------------------------------------------------------------------------

    def _domino_actions(self) -> FrozenList[str]:
        playable = domino_fits(self.masks[self._to_act], self.domino_rank, self.lo, self.hi)
        return frozen_list(playable) if playable else _PASS_ONLY

    def _apply_domino(self, action: str) -> None:
        seat = self._to_act
        public = self.public
        public["domino_moves"] = appended(public["domino_moves"], _DOMINO_MOVE[seat][action])
        if action == "pass":
            self.passes += 1
            assert self.passes < 4, "domino deadlock: impossible with the whole pack dealt"
        else:
            self.passes = 0
            hand = self.hands[seat]
            hand.remove(action)
            self._hand_texts[seat] = None
            masks = self.masks
            masks[seat] = masks[seat] ^ _TEXT_BIT[action]
            s, r = SUIT_POSITION[action[1]], RANK_VALUE[action[0]]
            if self.lo[s] == 0:
                self.lo[s] = self.hi[s] = r
            elif r < self.lo[s]:
                self.lo[s] = r
            else:
                self.hi[s] = r
            layout = dict(public["layout"])
            layout[action[1]] = _RUN[self.lo[s]][self.hi[s]]
            public["layout"] = frozen_dict(layout)
            if not hand:
                self.finished.append(seat)
                public["finished"] = frozen_list(self.finished)
                if len(self.finished) == 3:  # the deal ends when the third player is out
                    for place, q in enumerate(self._finishing_order()):
                        self.deal_scores[q] = DOMINO_POINTS[place]
                    self._end_deal()
                    return
        hands = self.hands
        nxt = (seat + 1) % 4
        while not hands[nxt]:  # players who are out are skipped
            nxt = (nxt + 1) % 4
        self._to_act = nxt

    def _finishing_order(self) -> list[int]:
        """Seats out of cards in order, then the one still holding cards (scores -5)."""
        return [*self.finished, *(q for q in range(4) if self.hands[q])]

    # -- end of deal, end of game --------------------------------------------------------------

    def _end_deal(self) -> None:
        contract_scores = self.deal_scores
        if self.bets:
            symmetric = self.params.doubling_payout == "symmetric"
            adjust = settle_bets(contract_scores, self.bets, symmetric=symmetric)
        else:
            adjust = [0, 0, 0, 0]
        final = [s + a for s, a in zip(contract_scores, adjust, strict=True)]
        domino = self.phase is Phase.DOMINO
        finishing_order = self._finishing_order() if domino else None
        info = self.deals[-1].info
        info.update(
            designations=self.designations,
            contract_scores=contract_scores[:],
            doubling_adjustments=adjust,
            tricks_played=None if domino else len(self.table.completed),
            finishing_order=finishing_order,
        )
        self.deal_scores = final
        scores = self.scores
        for q in range(4):
            scores[q] += final[q]
        public = self.public
        # The finished deal stays visible in the next deal's observations (every card played and
        # who won each trick is public: docs/rules/barbu.md, "What your bot sees"): only public
        # fields, never the cards left unplayed (early end, the Domino loser's hand).
        last_deal: FrozenDict[str, Any] = frozen_dict(
            deal=len(self.deals) - 1,
            dealer=self.dealer,
            declarer=self.dealer,
            contract=self.contract,
            trump=self.trump,
            domino_rank=info["domino_rank"],
            designations=public["designations"],
            tricks=public["tricks"],
            layout=public["layout"],
            domino_moves=public["domino_moves"],
            finishing_order=None if finishing_order is None else frozen_list(finishing_order),
            contract_scores=frozen_list(contract_scores),
            doubling_adjustments=frozen_list(adjust),
            deal_scores=frozen_list(final),
        )
        public.update(deal_scores=last_deal["deal_scores"], scores=frozen_list(scores))
        public["last_deal"] = last_deal
        self.finish_deal_record(final)
        if len(self.deals) == self.num_deals:
            self.phase = self.public["phase"] = Phase.OVER
            self._to_act = TERMINAL
        else:
            self._start_deal()

    # -- the uniform API -----------------------------------------------------------------------

    def current_player(self) -> int:
        return self._to_act

    def is_terminal(self) -> bool:
        return self._to_act == TERMINAL

    def _legal_actions(self) -> FrozenList[str]:
        phase = self.phase
        if phase is Phase.PLAY:
            return self._trick_actions()
        if phase is Phase.DOMINO:
            return self._domino_actions()
        if phase is Phase.DECLARE:
            return self._declaration_actions()
        if phase is Phase.DOUBLE:
            return frozen_list(sorted(a for a, _ in self._designation_choices()))
        return EMPTY

    def _apply(self, action: str) -> None:
        phase = self.phase
        if phase is Phase.PLAY:
            self._apply_card(action)
        elif phase is Phase.DOMINO:
            self._apply_domino(action)
        elif phase is Phase.DECLARE:
            self._apply_declaration(action)
        else:
            self._apply_designation(action)

    def returns(self) -> list[float]:
        return [float(s) for s in self.scores]

    def observation(self, seat: int) -> dict[str, Any]:
        """The public state (contract, designations, tricks or layout, scores, Geronimo menus,
        ``last_deal``: the previous deal's public record), the seat's own hand and everyone's
        card counts."""
        obs = self.public.copy()
        to_act = self._to_act
        table = self.table
        obs["seat"] = seat
        obs["to_act"] = to_act
        obs["hand"] = self._hand_texts[seat] or self.hand_text(seat)
        obs["trick"] = table.current()
        if self.phase is Phase.DOMINO:  # no tricks: hands shrink one by one
            hands = self.hands
            obs["hand_sizes"] = [len(hands[0]), len(hands[1]), len(hands[2]), len(hands[3])]
        else:
            obs["hand_sizes"] = table.hand_sizes()
        obs["legal"] = (self._legal or self.legal_actions()) if to_act == seat else EMPTY
        return obs

    def _hand_strings(self, seat: int) -> list[str]:
        return self.hands[seat]  # Barbu keeps hands as sorted card texts

    def _forget_caches(self) -> None:
        super()._forget_caches()
        self.masks = [_text_mask(hand) for hand in self.hands]

    # -- why an action is illegal (error path only) ----------------------------------------------

    def _illegal_reason(self, action: str) -> str:
        phase = self.phase
        if phase is Phase.DECLARE:
            return self._declaration_reason(action)
        if phase is Phase.DOUBLE:
            return self._designation_reason(action)
        hand = self.hands[self._to_act]
        if phase is Phase.DOMINO:
            return self._domino_reason(action, hand)
        return self._card_reason(action, hand)

    def _declaration_reason(self, action: str) -> str:
        kind, _, rest = action.partition(":")
        name = rest.partition(":")[0]
        menu = self.contracts
        if kind != "contract" or (name not in STANDARD_RULES and name not in SALAD_RULES):
            forms = "" if self.params.salad else " (contract:trumps:<suit>, contract:domino:<rank>)"
            return f"declare one contract: contract:<name>, name one of {', '.join(menu)}{forms}"
        if name not in menu:
            if self.params.salad:
                return f"Salad: only the six Salad contracts can be declared ({', '.join(menu)})"
            return f"{name} can be declared only with salad=true"
        if self.left is not None and name not in self.left[self.dealer]:
            return f"Geronimo: seat {self.dealer} has already declared {name}"
        if name == "trumps":
            return (
                "Trumps needs a trump suit: contract:trumps:s, :h, :d or :c "
                "(no-trump is not allowed)"
            )
        if name == "domino":
            low = RANK_TEXT[self.low_rank]
            return (
                f"Domino needs a starting rank {low}..A (the ten is T), e.g. contract:domino:{low}"
            )
        return f"contract:{name} takes no parameter"

    def _designation_reason(self, action: str) -> str:
        p, opts = self._to_act, self.params
        cap, any_subset = opts.doubling_cap_per_deal, opts.doubling_any_subset
        if any_subset:
            forms = "double:none or the seats to name in increasing order (double:2, double:0,3)"
        else:
            forms = "double:none, double:<seat> or double:all"
        kind, _, spec = action.partition(":")
        if kind != "double" or not spec:
            return f"designate with {forms}"
        eligible = [t for t in range(4) if t != p and self.designated[t] < cap]
        if spec == "all":
            if not eligible:
                return (
                    f"nobody is left to name: every other player has been named {cap} times "
                    f"in this deal (doubling_cap_per_deal = {cap})"
                )
            if any_subset:
                example = ",".join(map(str, eligible))
                return f"with doubling_any_subset name the players, e.g. double:{example}"
            return self._duties_reason(eligible)
        if spec == "none":
            return self._duties_reason([])
        parts = spec.split(",")
        if not all(x in ("0", "1", "2", "3") for x in parts):
            return f"seats 0-3 only: designate with {forms}"
        targets = [int(x) for x in parts]
        if p in targets:
            return f"seat {p} cannot name themself"
        if len(targets) > 1:
            if not any_subset:
                return (
                    "name nobody, one player or all (double:all); naming only some of the "
                    "others needs doubling_any_subset"
                )
            if targets != sorted(set(targets)):
                return "name each seat once, in increasing order (e.g. double:0,3)"
        for t in targets:
            if self.designated[t] >= cap:
                return (
                    f"seat {t} has already been named {self.designated[t]} times in this deal "
                    f"(doubling_cap_per_deal = {cap})"
                )
        return self._duties_reason(targets)

    def _duties_reason(self, targets: list[int]) -> str:
        d = self.dealer
        if not self.params.pagat_doubling_duties:
            return ""
        if self.contract in POSITIVE and any(t != d for t in targets):
            return (
                "pagat_doubling_duties: in a positive contract only the declarer "
                f"(seat {d}) may be named"
            )
        return (
            f"pagat_doubling_duties: every other player must double seat {d} twice over seat "
            f"{d}'s contracts, which this choice would make impossible"
        )

    def _card_reason(self, action: str, hand: list[str]) -> str:
        if action not in hand:
            return "not a card in your hand" if action in CARD_BY_TEXT else _NOT_A_CARD
        trick = self.table.cards
        if not trick:
            return f"no heart lead while holding another suit ({self.contract})"
        led = SUIT_OF[trick[0]]
        follows = any(x[1] == led for x in hand)
        if follows and action[1] != led:
            return f"must follow the suit led ({led})"
        rules = self.rules
        assert rules is not None
        trump = self.trump
        if rules.trumps:
            if follows or action[1] == trump:  # a trump, but not above the trumps in the trick
                top = max((c for c in trick if SUIT_OF[c] == trump), key=RANK_OF.__getitem__)
                return f"must_overtrump: play a trump above {TEXT_OF[top]}"
            return f"must_trump_when_void: void in {led}, play a trump"
        return f"force_kh_discard: void in {led}, discard the {_KH_TEXT}"

    def _domino_reason(self, action: str, hand: list[str]) -> str:
        if action == "pass":
            return "pass only when no card fits the layout"
        if action not in hand:
            return "not a card in your hand" if action in CARD_BY_TEXT else _NOT_A_CARD + " or pass"
        suit = action[1]
        s = SUIT_POSITION[suit]
        lo, hi = self.lo[s], self.hi[s]
        if lo == 0:
            rank = RANK_TEXT[self.domino_rank]
            return f"suit {suit} is not open: it opens only with the declared rank {rank}"
        ends = [RANK_TEXT[r] + suit for r in (lo - 1, hi + 1) if self.low_rank <= r <= 14]
        fits = f"only {' or '.join(ends)} fit" if ends else "it is complete"
        return f"suit {suit} runs {RANK_TEXT[lo]}..{RANK_TEXT[hi]}: {fits}"


class BarbuGame(Game):
    name = "barbu"
    title = "Barbu"
    Params = Params
    state_class = BarbuState
    example_params: ClassVar[list[dict[str, Any]]] = [
        {},
        {"mode": "repeat", "repeats": 3},
        {"mode": "geronimo"},
        {"mode": "geronimo", "doubling": True},
        {
            "mode": "geronimo",
            "doubling": True,
            "doubling_any_subset": True,
            "doubling_payout": "proposer_gain_only",
            "doubling_cap_per_deal": 1,
        },
        {
            "mode": "geronimo",
            "doubling": True,
            "pagat_doubling_duties": True,
            "geronimo_blocks": True,
        },
        {"salad": True},
        {"salad": True, "mode": "geronimo", "deck": 32, "doubling": True},
        {"deck": 32, "mode": "repeat", "repeats": 2},
        {
            "first_player": "declarer",
            "domino_first": "left",
            "must_trump_when_void": True,
            "must_overtrump": True,
            "force_kh_discard": True,
        },
    ]

    @property
    def deck(self) -> list[Card]:
        return list(DECK_32 if self.params.deck == 32 else DECK_52)

    @property
    def contracts(self) -> tuple[str, ...]:
        return SALAD_CONTRACTS if self.params.salad else STANDARD_CONTRACTS

    @property
    def num_deals(self) -> int:
        p = self.params
        if p.mode == "geronimo":
            return 4 * len(self.contracts)
        return 4 * (p.repeats if p.mode == "repeat" else 1)


def _above(candidates: list[str], trick: list[int], trump: str | None) -> list[str]:
    """The trumps among ``candidates`` that rank above every trump already in ``trick``."""
    top = max((RANK_OF[c] for c in trick if SUIT_OF[c] == trump), default=0)
    return [x for x in candidates if RANK_VALUE[x[0]] > top]


register(BarbuGame)
