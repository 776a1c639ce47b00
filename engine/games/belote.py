"""Belote (docs/rules/belote.md): 2v2, 32 cards, trump chosen on a turned-up card, game to 1000.

A :class:`BeloteState` is one game: deals follow each other until a team passes ``target``
(1000) points. Per deal: 5 cards each in packets of 3 + 2, the upcard (deck index 20) is turned,
two bidding rounds ("take" the upcard's suit, then name another suit), the taker gets the upcard
and the rest of the pack is dealt so every hand has 8, then 8 tricks with the duties to follow
suit and to trump / overtrump when the partner is not master. ``returns()`` are the teams' match
points. Rule choices where the sources are silent or ambiguous are documented in
docs/rules/belote.md, with the options of its "Rule options" section (BEL-1 … BEL-11).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Final

from engine.cards import (
    BIT,
    CARD_BY_TEXT,
    MASK_TEXTS,
    SUIT_MASK,
    SUIT_OF,
    TEXT_OF,
    Card,
    card,
    make_deck,
    mask_of,
    mask_texts,
)
from engine.frozen import EMPTY, FrozenDict, FrozenList
from engine.frozen_ops import appended
from engine.game import TERMINAL, CardHandsState, Game
from engine.registry import register
from engine.tricks import TRUMP_BASE, TrickTable, best_index, power_table

DECK: Final = make_deck(lowest_rank=7)
SUITS: Final = "cdhs"  # in the order of their action texts
LAST_TRICK_BONUS: Final = 10  # "dix de der"
BELOTE_BONUS: Final = 20
CAPOT_BONUS: Final = 90
DEAL_POINTS: Final = 162  # card points 152 + last trick 10
TRICKS_PER_DEAL: Final = 8

# Rank characters from lowest to highest, with card points (docs/rules/belote.md, "Card order").
TRUMP_ORDER: Final = "78QKTA9J"
PLAIN_ORDER: Final = "789JQKTA"
TRUMP_POINTS: Final = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS: Final = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}

# Seat (as an offset from the dealer) of deck indices 0-19: packets of 3 then 2 from the left.
FIRST_DEAL_OFFSETS: Final = (1, 1, 1, 2, 2, 2, 3, 3, 3, 0, 0, 0, 1, 1, 2, 2, 3, 3, 0, 0)
UPCARD_INDEX: Final = 20

BID_ROUND1: Final[FrozenList[str]] = FrozenList(["pass", "take"])
BID_ROUND2: Final = {
    s: FrozenList(["pass"] + [f"trump:{t}" for t in SUITS if t != s]) for s in SUITS
}
#: ``BID[seat][action]``: the public entry of a bid, made once and shared
BID: Final = tuple(
    {a: FrozenDict(seat=seat, bid=a) for a in ["take", *BID_ROUND2["c"], "trump:c"]}
    for seat in range(4)
)


class Phase(StrEnum):
    BID1 = "bid1"  # take the upcard's suit or pass
    BID2 = "bid2"  # name another suit or pass
    PLAY = "play"
    OVER = "over"


class Outcome(StrEnum):
    """How a deal was scored (recorded in the deal's info)."""

    VOID = "void"  # all passed twice: no score
    SUCCESS = "success"
    CAPOT = "capot"  # attackers took every point
    FAILURE = "failure"
    DEFENDERS_CAPOT = "defenders_capot"
    LITIGE = "litige"  # equal totals: attackers' points wait for the next scored deal


@dataclass(frozen=True, kw_only=True)
class Params:
    """Rule options (docs/rules/belote.md, "Rule options": BEL-1 … BEL-11) and the match length."""

    #: who leads the first trick: the dealer (seed, BEL-1) or the player left of the dealer
    first_lead: str = field(default="dealer", metadata={"choices": ("dealer", "eldest")})
    #: on a trump lead a player must beat the highest trump on the table if able (BEL-4)
    overtrump_on_trump_lead: bool = True
    #: a void player who cannot overtrump must still play a (lower) trump (BEL-5)
    undertrump: bool = False
    #: on failure the attackers keep their own belote 20 (BEL-7)
    belote_stays_with_holder: bool = False
    #: capot means winning all 8 tricks rather than taking all 162 points (BEL-8)
    capot_all_tricks: bool = False
    #: defenders who take every point (every trick with ``capot_all_tricks``) get +90 (BEL-9)
    defender_capot_bonus: bool = True
    #: the game ends at ``>= target`` instead of ``> target`` (BEL-11)
    target_inclusive: bool = False
    #: match length: the game ends after a deal that leaves a team above this many points
    target: int = field(default=1000, metadata={"range": (1, 100_000)})
    #: safety net, not a rule: the game stops with the scores as they stand after this many
    #: deals (thrown-in deals included), so bots that never take cannot stall a tournament
    max_deals: int = field(default=200, metadata={"range": (1, 10_000)})


def rank_strengths(trump: bool) -> tuple[int, ...]:
    """Strength 1..8 of every card as a trump (``trump=True``) or as a plain card."""
    order = TRUMP_ORDER if trump else PLAIN_ORDER
    return tuple(order.index(t[0]) + 1 if t[0] in order else 0 for t in TEXT_OF)


def _power_table(trump: str, led: str) -> tuple[int, ...]:
    plain, trumps = rank_strengths(False), rank_strengths(True)
    return power_table(trump, led, SUIT_OF, plain.__getitem__, trumps.__getitem__)


# The per-trump tables, built once: a lookup costs a fraction of a cached call.
_TRICK_POWER: Final = {t: {led: _power_table(t, led) for led in SUITS} for t in SUITS}
_CARD_POINTS: Final = {
    trump: tuple((TRUMP_POINTS if t[1] == trump else PLAIN_POINTS).get(t[0], 0) for t in TEXT_OF)
    for trump in SUITS
}
_BELOTE_PAIR: Final = {trump: (card("K" + trump), card("Q" + trump)) for trump in SUITS}


def trick_power(trump: str, led: str) -> tuple[int, ...]:
    """Power of each card in a trick led with ``led`` (trumps 101..108, suit led 1..8)."""
    return _TRICK_POWER[trump][led]


def card_points(trump: str) -> tuple[int, ...]:
    """Card points of every card when ``trump`` is trump (docs/rules/belote.md, "Card order")."""
    return _CARD_POINTS[trump]


def belote_pair(trump: str) -> tuple[Card, Card]:
    """The king and queen of trumps."""
    return _BELOTE_PAIR[trump]


def score_deal(
    params: Params,
    attackers: int,
    points: Sequence[int],
    tricks: Sequence[int],
    belote_team: int | None,
) -> tuple[list[int], Outcome]:
    """Scores per team of one played deal, before the litige pot (docs/rules/belote.md,
    "Scoring a deal").

    ``points`` are the teams' card points including the last trick (summing to 162), ``tricks``
    the number of tricks each team won, ``belote_team`` the team whose player held K+Q of trumps.
    """
    defenders = 1 - attackers
    bel = [0, 0]
    if belote_team is not None:
        bel[belote_team] = BELOTE_BONUS
    if params.capot_all_tricks:
        capot = [tricks[0] == TRICKS_PER_DEAL, tricks[1] == TRICKS_PER_DEAL]
    else:
        capot = [points[0] == DEAL_POINTS, points[1] == DEAL_POINTS]
    total_att = points[attackers] + bel[attackers]
    total_def = points[defenders] + bel[defenders]
    scores = [0, 0]
    if capot[attackers]:
        scores[attackers] = DEAL_POINTS + CAPOT_BONUS + bel[attackers]
        scores[defenders] = bel[defenders]
        return scores, Outcome.CAPOT
    if total_att > total_def:
        scores[attackers], scores[defenders] = total_att, total_def
        return scores, Outcome.SUCCESS
    if total_att == total_def:
        scores[defenders] = total_def
        return scores, Outcome.LITIGE
    if params.belote_stays_with_holder:
        scores[attackers] = bel[attackers]
        scores[defenders] = DEAL_POINTS + bel[defenders]
    else:
        scores[defenders] = total_att + total_def
    if capot[defenders] and params.defender_capot_bonus:
        scores[defenders] += CAPOT_BONUS
        return scores, Outcome.DEFENDERS_CAPOT
    return scores, Outcome.FAILURE


def _above_masks(trump: str, led: str) -> tuple[int, ...]:
    power = trick_power(trump, led)
    return tuple(
        sum(BIT[c] for c in DECK if power[c] > top)
        for top in range(TRUMP_BASE + len(TRUMP_ORDER) + 1)
    )


_ABOVE_MASKS: Final = {t: {led: _above_masks(t, led) for led in SUITS} for t in SUITS}


def above_masks(trump: str, led: str) -> tuple[int, ...]:
    """``above_masks(trump, led)[top]``: the cards whose :func:`trick_power` beats ``top``."""
    return _ABOVE_MASKS[trump][led]


def legal_mask(hand: int, trick: Sequence[int], trump: str, params: Params) -> int:
    """The cards of ``hand`` (a bit mask, :data:`~engine.cards.BIT`) that may be played to
    ``trick``, as a mask (docs/rules/belote.md, "Play and your duties at each trick").

    Follow suit (beating the highest trump on a trump lead when able); when void, the partner
    (who played two cards before) being master leaves the choice free, otherwise a card that
    beats the trick must be played if held (only trumps can), else, with ``undertrump``, a trump.
    """
    if not trick:
        return hand
    led = SUIT_OF[trick[0]]
    power = trick_power(trump, led)
    follow = hand & SUIT_MASK[led]
    if follow:
        if led == trump and params.overtrump_on_trump_lead:
            over = follow & above_masks(trump, led)[max(power[c] for c in trick)]
            if over:
                return over
        return follow
    winner = best_index(trick, power)
    if winner == len(trick) - 2:  # the partner is master: free choice
        return hand
    beat = hand & above_masks(trump, led)[power[trick[winner]]]
    if beat:
        return beat
    if params.undertrump:
        trumps = hand & SUIT_MASK[trump]
        if trumps:
            return trumps
    return hand


def legal_cards(
    hand: Sequence[Card], trick: Sequence[Card], trump: str, params: Params
) -> list[str]:
    """Cards of ``hand`` that may be played to ``trick``, as sorted texts (:func:`legal_mask`)."""
    legal = legal_mask(mask_of(hand), trick, trump, params)
    return [TEXT_OF[c] for c in hand if BIT[c] & legal]


def trick_winner(trick: Sequence[Card], trump: str) -> int:
    """Position in ``trick`` (play order) of the winning card."""
    return best_index(trick, trick_power(trump, SUIT_OF[trick[0]]))


def game_over(scores: Sequence[int], params: Params) -> bool:
    """After a scored deal: a team passed the target; equal totals play on (docs/rules/belote.md,
    "End of the game")."""
    a, b = scores
    if a == b:
        return False
    top = max(a, b)
    return top >= params.target if params.target_inclusive else top > params.target


class BeloteState(CardHandsState):
    """One Belote game.

    Each deal's record holds the 8-card hands after the completion (the 5-card hands for a void
    deal) and ``info``: ``upcard``, ``trump``, ``taker``, ``card_points`` per team (last trick
    included), ``tricks`` per team, ``belote`` (seat of the K+Q holder or None), ``outcome``
    (:class:`Outcome`), ``litige_awarded`` (pot added to this deal's winner), ``litige_pot``
    (pot left waiting after this deal). Deal scores per seat include an awarded pot.
    """

    def __init__(self, game: BeloteGame, seed: int, decks: Any, first_dealer: int | None) -> None:
        super().__init__(game, seed, decks, first_dealer)
        self.params: Params = game.params
        self.scores = [0, 0]  # match points per team
        self.litige = 0  # attackers' points set aside by tied deals, waiting for a winner
        self.dealer = self.first_dealer
        self.last_deal: FrozenDict[str, Any] | None = None  # the previous deal, public part
        #: the observation's parts that change at most once per bid or trick, kept up to date;
        #: an observation is a copy of it plus the parts that change at every card
        self._public: dict[str, Any] = {
            "game": "belote",
            "seat": None,
            "phase": Phase.BID1,
            "to_act": None,
            "deal": 0,
            "dealer": self.dealer,
            "hand": EMPTY,
            "hand_sizes": EMPTY,
            "upcard": None,
            "bids": EMPTY,
            "taker": None,
            "trump": None,
            "trick": EMPTY,
            "tricks": EMPTY,
            "points": EMPTY,
            "belote": EMPTY,
            "scores": FrozenList(self.scores),
            "litige": 0,
            "target": self.params.target,
            "last_deal": None,
            "legal": EMPTY,
        }
        self._deal()

    # -- deal ------------------------------------------------------------------------------

    def _deal(self) -> None:
        """Five cards each (3 + 2 from the dealer's left) and the upcard; bidding starts."""
        deck = self.deck_for(len(self.deals))
        dealer = self.dealer
        hands: list[list[Card]] = [[], [], [], []]
        for k, offset in enumerate(FIRST_DEAL_OFFSETS):
            hands[(dealer + offset) % 4].append(deck[k])
        for hand in hands:
            hand.sort()
        self.upcard = deck[UPCARD_INDEX]
        self.stock = deck[UPCARD_INDEX + 1 :]  # dealt once someone takes
        record = self.start_deal_record(dealer, deck)
        record.hands = self._set_hands(hands)
        record.info = {"upcard": TEXT_OF[self.upcard]}
        self.phase = Phase.BID1
        self.bids: FrozenList[FrozenDict[str, Any]] = EMPTY
        self.taker: int | None = None
        self.trump: str | None = None
        self.points = [0, 0]  # card points (and dix de der) won by each team in this deal
        self.belote: FrozenList[FrozenDict[str, Any]] = EMPTY  # public announcements
        self.belote_seat: int | None = None
        self.table = TrickTable(4, dealer, 5)
        self.player = (dealer + 1) % 4
        self._public.update(
            phase=Phase.BID1,
            deal=len(self.deals) - 1,
            dealer=dealer,
            upcard=TEXT_OF[self.upcard],
            tricks=EMPTY,
            bids=EMPTY,
            taker=None,
            trump=None,
            points=FrozenList(self.points),
            belote=EMPTY,
        )

    def _complete_deal(self, taker: int) -> None:
        """The taker picks up the upcard; indices 21-31 go 3 each from the dealer's left.

        The taker gets only 2 of them, so that every hand has 8 cards (docs/rules/belote.md,
        "The deal").
        """
        stock = self.stock
        k = 0
        for offset in (1, 2, 3, 4):
            seat = (self.dealer + offset) % 4
            n = 2 if seat == taker else 3
            self.hands[seat].extend(stock[k : k + n])
            k += n
        self.hands[taker].append(self.upcard)
        for hand in self.hands:
            hand.sort()
        self.stock = []
        record = self.deals[-1]
        record.hands = self._set_hands(self.hands)
        record.info.update(trump=self.trump, taker=taker)

    # -- the uniform API -------------------------------------------------------------------

    def current_player(self) -> int:
        return self.player

    def _legal_actions(self) -> FrozenList[str]:
        phase = self.phase
        if phase is Phase.PLAY:
            trump = self.trump
            assert trump is not None
            seat = self.player
            hand = self.masks[seat]
            legal = legal_mask(hand, self.table.cards, trump, self.params)
            if legal == hand:  # the whole hand: share the observation's text
                return self.hand_text(seat)
            return MASK_TEXTS.get(legal) or mask_texts(legal)  # cards of one suit
        if phase is Phase.BID1:
            return BID_ROUND1
        if phase is Phase.BID2:
            return BID_ROUND2[SUIT_OF[self.upcard]]
        return EMPTY

    def _apply(self, action: str) -> None:
        phase = self.phase
        if phase is Phase.PLAY:
            self._apply_play(CARD_BY_TEXT[action])
        elif phase is Phase.BID1:
            self._apply_bid(action, SUIT_OF[self.upcard] if action == "take" else None)
        else:
            self._apply_bid(action, action[-1] if action != "pass" else None)

    # -- bidding ---------------------------------------------------------------------------

    def _apply_bid(self, action: str, trump: str | None) -> None:
        seat = self.player
        self.bids = self._public["bids"] = appended(self.bids, BID[seat][action])
        if trump is not None:
            self.trump = trump
            self.taker = seat
            self._complete_deal(seat)
            self._start_play()
        elif len(self.bids) == 4:
            self.phase = self._public["phase"] = Phase.BID2
            self.player = (self.dealer + 1) % 4
        elif len(self.bids) == 8:
            self._void_deal()
        else:
            self.player = (seat + 1) % 4

    def _void_deal(self) -> None:
        """Everyone passed twice: no score, no litige effect; the next player deals."""
        self.deals[-1].info["outcome"] = Outcome.VOID.value
        self._finish_deal(Outcome.VOID, [0, 0, 0, 0], awarded=0)
        self._next_deal_or_end(over=False)

    # -- play ------------------------------------------------------------------------------

    def _start_play(self) -> None:
        self.phase = Phase.PLAY
        leader = self.dealer if self.params.first_lead == "dealer" else (self.dealer + 1) % 4
        self.table = TrickTable(4, leader, 8)
        self.player = leader
        self._public.update(phase=Phase.PLAY, taker=self.taker, trump=self.trump)

    def _apply_play(self, c: Card) -> None:
        table = self.table
        seat = self.player
        self._drop_card(seat, c)
        trump = self.trump
        assert trump is not None
        if SUIT_OF[c] == trump and c in belote_pair(trump):
            self._announce_belote(seat, c)
        if not table.play(seat, c):
            self.player = (seat + 1) % 4
            return
        points = card_points(trump)
        won = points[table.cards[0]] + points[table.cards[1]] + points[table.cards[2]]
        won += points[table.cards[3]]
        winner = table.finish(trick_power(trump, SUIT_OF[table.cards[0]]))
        self._public["tricks"] = table.completed
        if len(table.completed) == TRICKS_PER_DEAL:
            self.points[winner % 2] += won + LAST_TRICK_BONUS
            self._public["points"] = FrozenList(self.points)
            self._score_deal()
        else:
            self.points[winner % 2] += won
            self._public["points"] = FrozenList(self.points)
            self.player = winner

    def _announce_belote(self, seat: int, c: Card) -> None:
        """Belote when the holder of K+Q of trumps plays the first of them, rebelote the second."""
        assert self.trump is not None
        king, queen = belote_pair(self.trump)
        other = queen if c == king else king
        if self.belote_seat is None:
            if other in self.hands[seat]:
                self.belote_seat = seat
                call = FrozenDict(seat=seat, call="belote", card=TEXT_OF[c])
                self.belote = self._public["belote"] = appended(self.belote, call)
        elif self.belote_seat == seat:
            call = FrozenDict(seat=seat, call="rebelote", card=TEXT_OF[c])
            self.belote = self._public["belote"] = appended(self.belote, call)

    # -- scoring ---------------------------------------------------------------------------

    def _score_deal(self) -> None:
        assert self.taker is not None
        attackers = self.taker % 2
        won = self.table.won
        tricks = [won[0] + won[2], won[1] + won[3]]
        belote_team = None if self.belote_seat is None else self.belote_seat % 2
        deal, outcome = score_deal(self.params, attackers, self.points, tricks, belote_team)
        awarded = 0
        if outcome is Outcome.LITIGE:
            bonus = BELOTE_BONUS if belote_team == attackers else 0
            self.litige += self.points[attackers] + bonus  # the attackers' total waits
        elif self.litige:
            winner = attackers if outcome in (Outcome.SUCCESS, Outcome.CAPOT) else 1 - attackers
            deal[winner] += self.litige
            awarded, self.litige = self.litige, 0
        self.scores[0] += deal[0]
        self.scores[1] += deal[1]
        self._public.update(scores=FrozenList(self.scores), litige=self.litige)
        self.deals[-1].info.update(
            card_points=list(self.points),
            tricks=tricks,
            belote=self.belote_seat,
            outcome=outcome.value,
            litige_awarded=awarded,
            litige_pot=self.litige,
        )
        self._finish_deal(outcome, [deal[0], deal[1], deal[0], deal[1]], awarded)
        self._next_deal_or_end(over=game_over(self.scores, self.params))

    def _finish_deal(self, outcome: Outcome, scores: list[int], awarded: int) -> None:
        """Record the deal's scores and keep its public part for the next deal's observations.

        When the last card is played the next deal starts at once, so without ``last_deal``
        nobody would ever see the last trick (docs/rules/belote.md, "What your bot sees").
        """
        self.finish_deal_record(scores)
        won = self.table.won
        self.last_deal = FrozenDict(
            deal=len(self.deals) - 1,
            dealer=self.dealer,
            upcard=TEXT_OF[self.upcard],
            bids=self.bids,
            taker=self.taker,
            trump=self.trump,
            tricks=self.table.completed,
            belote=self.belote,
            card_points=FrozenList(self.points),
            team_tricks=FrozenList([won[0] + won[2], won[1] + won[3]]),
            outcome=outcome.value,
            litige_awarded=awarded,
            deal_scores=FrozenList(scores),
        )
        self._public["last_deal"] = self.last_deal

    def _next_deal_or_end(self, *, over: bool) -> None:
        if over or len(self.deals) >= self.params.max_deals:
            self.phase = self._public["phase"] = Phase.OVER
            self.player = TERMINAL
        else:
            self.dealer = (self.dealer + 1) % 4
            self._deal()

    # -- results and observations ----------------------------------------------------------

    def returns(self) -> list[float]:
        a, b = float(self.scores[0]), float(self.scores[1])
        return [a, b, a, b]

    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` knows: a new dict whose lists and dicts are frozen (shared)."""
        obs = self._public.copy()
        table = self.table
        player = self.player
        obs["seat"] = seat
        obs["to_act"] = player
        obs["hand"] = self._hand_texts[seat] or self.hand_text(seat)
        obs["hand_sizes"] = table.hand_sizes()
        obs["trick"] = table.current()
        if player == seat:
            obs["legal"] = self._legal or self.legal_actions()
        return obs

    def _illegal_reason(self, action: str) -> str:
        if self.phase is Phase.BID2 and action == f"trump:{SUIT_OF[self.upcard]}":
            return "the upcard's suit cannot be named in the second round"
        if self.phase is not Phase.PLAY or not self.table.cards:
            return ""
        if CARD_BY_TEXT.get(action) not in self.hands[self.player]:
            return "not a card in your hand"
        return "must follow suit, overtrump a trump lead, or trump when the partner is not master"

    def redeal_hidden(self, seat: int, rng: random.Random) -> BeloteState:
        """Shuffle the other hands and the undealt stock, keeping the cards known to be placed.

        Known placements: the upcard in the taker's hand (until played) and, after a belote
        announcement, the other belote card in the announcer's hand (until played).
        """
        other = self.clone()
        assert isinstance(other, BeloteState)
        pinned: dict[Card, int] = {}  # card -> the seat known to hold it
        taker = other.taker
        if taker is not None and taker != seat and other.upcard in other.hands[taker]:
            pinned[other.upcard] = taker
        holder = other.belote_seat
        if holder is not None and holder != seat and other.trump is not None:
            for c in belote_pair(other.trump):
                if c in other.hands[holder]:
                    pinned[c] = holder
        for c, owner in pinned.items():
            other.hands[owner].remove(c)
        places = [other.hands[s] for s in range(4) if s != seat] + [other.stock]
        pool = [c for place in places for c in place]
        rng.shuffle(pool)
        for place in places:
            size = len(place)
            place[:] = pool[:size]
            del pool[:size]
        for c, owner in pinned.items():
            other.hands[owner].append(c)
        for s in range(4):
            other.hands[s].sort()
        other._forget_caches()
        return other


class BeloteGame(Game):
    name = "belote"
    title = "Belote"
    Params = Params
    state_class = BeloteState
    teams = ((0, 2), (1, 3))
    # a board's card points say how well its deal was played: half a deal's 162 points is the
    # margin that takes about three quarters of the board (docs/ranking.md measures the choice)
    board_margin_scale = 81.0
    example_params: ClassVar[list[dict[str, Any]]] = [
        {},
        {
            "first_lead": "eldest",
            "overtrump_on_trump_lead": False,
            "undertrump": True,
            "belote_stays_with_holder": True,
            "capot_all_tricks": True,
            "defender_capot_bonus": False,
            "target_inclusive": True,
            "target": 300,
        },
    ]

    @property
    def deck(self) -> list[Card]:
        return list(DECK)


register(BeloteGame)
