"""Bauer (docs/rules/bauer.md): 2v2, 32 cards, right and left bauer, one trump call, 8 → 0.

Each team starts at ``start_points`` (8). Per hand the calling team (or, with no trump, the team
with more tricks) subtracts 1 when it wins 5+ of the 8 tricks; 4–4 changes nothing. The first
team at 0 wins. ``returns()`` is each seat's team progress (start − points left): higher is better.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from ..cards import (
    BIT,
    CARD_BY_TEXT,
    MASK_TEXTS,
    RANK_OF,
    SUIT_OF,
    Card,
    card,
    make_deck,
    mask_texts,
)
from ..frozen import FrozenDict, FrozenList
from ..frozen_ops import EMPTY, appended, frozen_dict, frozen_list
from ..game import TERMINAL, CardHandsState, Game
from ..registry import register
from ..tricks import TrickTable, power_table

SAME_COLOUR: Final = {"h": "d", "d": "h", "s": "c", "c": "s"}
TRUMP_ACTIONS: Final = ("trump:c", "trump:d", "trump:h", "trump:s")
CALL_ACTIONS: Final[FrozenList[str]] = frozen_list(["pass", *TRUMP_ACTIONS])
#: ``CALLED[seat][action]``: the public entry of a call, made once and shared
CALLED: Final = tuple(
    {a: frozen_dict(seat=seat, call=a) for a in CALL_ACTIONS} for seat in range(4)
)
DECK: Final = make_deck(lowest_rank=7)
JACK: Final = 11


class Phase(StrEnum):
    CALL = "call"
    PLAY = "play"
    OVER = "over"


@dataclass(frozen=True, kw_only=True)
class Params:
    """Bauer has no rule options; ``start_points`` sets the match length (8 in the rules)."""

    start_points: int = field(default=8, metadata={"range": (1, 8)})
    #: safety net, not a rule: the game stops with the points as they stand after this many
    #: hands, so bots that keep splitting the tricks 4-4 cannot stall a tournament
    max_deals: int = field(default=500, metadata={"range": (1, 10_000)})


def _effective_suits(trump: str | None) -> tuple[str, ...]:
    suits = list(SUIT_OF)
    if trump is not None:
        suits[card("J" + SAME_COLOUR[trump])] = trump
    return tuple(suits)


def _trick_power(trump: str | None, led: str) -> tuple[int, ...]:
    def trump_strength(c: int) -> int:
        if RANK_OF[c] == JACK:
            return 20 if SUIT_OF[c] == trump else 19  # right bauer, left bauer
        return RANK_OF[c]

    return power_table(trump, led, _effective_suits(trump), lambda c: RANK_OF[c], trump_strength)


# The per-trump tables (None: no trump), built once: a lookup costs a fraction of a cached call.
_TRUMPS: Final = (*SAME_COLOUR, None)
_EFFECTIVE_SUITS: Final = {t: _effective_suits(t) for t in _TRUMPS}
_SUIT_MASKS: Final = {
    t: {s: sum(BIT[c] for c in DECK if _EFFECTIVE_SUITS[t][c] == s) for s in SAME_COLOUR}
    for t in _TRUMPS
}
_TRICK_POWER: Final = {t: {led: _trick_power(t, led) for led in SAME_COLOUR} for t in _TRUMPS}
# The same by the card led, for the hot paths: compiled, a tuple indexed by a card (an int) is a
# native look-up, where a dict keyed by its suit is a call into CPython.
#: ``_FOLLOW_MASKS[trump][c]``: the cards of ``c``'s effective suit (who can follow ``c``)
_FOLLOW_MASKS: Final[dict[str | None, tuple[int, ...]]] = {
    t: tuple(_SUIT_MASKS[t][_EFFECTIVE_SUITS[t][c]] for c in range(52)) for t in _TRUMPS
}
#: ``_POWER_BY_LED[trump][c]``: :func:`trick_power` of a trick that ``c`` led
_POWER_BY_LED: Final[dict[str | None, tuple[tuple[int, ...], ...]]] = {
    t: tuple(_TRICK_POWER[t][_EFFECTIVE_SUITS[t][c]] for c in range(52)) for t in _TRUMPS
}


def effective_suits(trump: str | None) -> tuple[str, ...]:
    """Suit each card counts as: the left bauer (J of the same colour) belongs to trump."""
    return _EFFECTIVE_SUITS[trump]


def suit_masks(trump: str | None) -> dict[str, int]:
    """The cards of each effective suit (:func:`effective_suits`) as a bit mask."""
    return _SUIT_MASKS[trump]


def trick_power(trump: str | None, led: str) -> tuple[int, ...]:
    """Power of each card in a trick whose effective suit led is ``led``: trumps (the bauers
    highest) above the suit led."""
    return _TRICK_POWER[trump][led]


class BauerState(CardHandsState):
    def __init__(self, game: BauerGame, seed: int, decks: Any, first_dealer: int | None) -> None:
        super().__init__(game, seed, decks, first_dealer)
        self.params: Params = game.params
        start = self.params.start_points
        self.points = [start, start]  # per team, counting down to 0
        self.dealer = self.first_dealer
        self.last_deal: FrozenDict[str, Any] | None = None  # the previous hand, public part
        #: the observation's parts that change at most once per call or trick, kept up to date;
        #: an observation is a copy of it plus the parts that change at every card
        self._public: dict[str, Any] = {
            "game": "bauer",
            "seat": None,
            "phase": Phase.CALL,
            "to_act": None,
            "deal": 0,
            "dealer": self.dealer,
            "points": frozen_list(self.points),
            "hand": EMPTY,
            "hand_sizes": EMPTY,
            "calls": EMPTY,
            "trump": None,
            "caller": None,
            "trick": EMPTY,
            "tricks": EMPTY,
            "tricks_won": EMPTY,
            "last_deal": None,
            "legal": EMPTY,
        }
        self._deal()

    # -- deal and trump call ---------------------------------------------------------------

    def _deal(self) -> None:
        deck = self.deck_for(len(self.deals))
        hands: list[list[Card]] = [[], [], [], []]
        for k in range(4):  # one card at a time from the dealer's left
            hands[(self.dealer + 1 + k) % 4] = sorted(deck[k::4])
        record = self.start_deal_record(self.dealer, deck)
        record.hands = self._set_hands(hands)
        self.phase = Phase.CALL
        self.calls: FrozenList[FrozenDict[str, Any]] = EMPTY
        self.trump: str | None = None
        self.caller: int | None = None
        self.player = (self.dealer + 1) % 4
        self.eff = effective_suits(None)
        self.follow_masks = _FOLLOW_MASKS[None]
        self.powers = _POWER_BY_LED[None]
        self.table = TrickTable(4, self.dealer, 8)
        self._public.update(
            phase=Phase.CALL,
            deal=len(self.deals) - 1,
            dealer=self.dealer,
            calls=EMPTY,
            trump=None,
            caller=None,
            tricks=EMPTY,
            tricks_won=self.table.won,
        )

    def current_player(self) -> int:
        return self.player

    def _legal_actions(self) -> FrozenList[str]:
        phase = self.phase
        if phase is Phase.PLAY:
            seat = self.player
            cards = self.table.cards
            if cards:
                follow = self.masks[seat] & self.follow_masks[cards[0]]
                if follow:
                    return MASK_TEXTS.get(follow) or mask_texts(follow)
            return self.hand_text(seat)  # the whole hand: share the observation's text
        return CALL_ACTIONS if phase is Phase.CALL else EMPTY

    def _apply(self, action: str) -> None:
        if self.phase is not Phase.PLAY:
            self._apply_call(action)
            return
        c = CARD_BY_TEXT[action]
        table = self.table
        seat = self.player
        self._drop_card(seat, c)
        if table.play(seat, c):
            self.player = table.finish(self.powers[table.cards[0]])
            public = self._public
            public["tricks"] = table.completed
            public["tricks_won"] = table.won
            if len(table.completed) == 8:
                self._score_hand()
        else:
            self.player = (seat + 1) % 4

    def _apply_call(self, action: str) -> None:
        seat = self.player
        self.calls = self._public["calls"] = appended(self.calls, CALLED[seat][action])
        if action != "pass":
            self.trump = action[-1]
            self.caller = seat
            self.eff = effective_suits(self.trump)
            self.follow_masks = _FOLLOW_MASKS[self.trump]
            self.powers = _POWER_BY_LED[self.trump]
            self._start_play(leader=seat)
        elif len(self.calls) == 4:
            self._start_play(leader=self.dealer)  # no trump: the dealer leads
        else:
            self.player = (seat + 1) % 4

    def _start_play(self, leader: int) -> None:
        self.phase = Phase.PLAY
        self.table = TrickTable(4, leader, 8)
        self.player = leader
        self.deals[-1].info = {"trump": self.trump, "caller": self.caller}
        # tricks and tricks_won are still the empty ones of the deal's first table
        self._public.update(phase=Phase.PLAY, trump=self.trump, caller=self.caller)

    def _score_hand(self) -> None:
        won = self.table.won
        team_tricks = [won[0] + won[2], won[1] + won[3]]
        if self.caller is not None:
            team = self.caller % 2
            scorer = team if team_tricks[team] >= 5 else None
        else:
            scorer = 0 if team_tricks[0] >= 5 else 1 if team_tricks[1] >= 5 else None
        progress = [0, 0]
        if scorer is not None:
            self.points[scorer] -= 1
            progress[scorer] = 1
            self._public["points"] = frozen_list(self.points)
        self.deals[-1].info["team_tricks"] = team_tricks
        deal_scores = [progress[s % 2] for s in range(4)]
        self.finish_deal_record(deal_scores)
        self.last_deal = frozen_dict(
            deal=len(self.deals) - 1,
            dealer=self.dealer,
            calls=self.calls,
            trump=self.trump,
            caller=self.caller,
            tricks=self.table.completed,
            tricks_won=won,
            team_tricks=frozen_list(team_tricks),
            deal_scores=frozen_list(deal_scores),
        )
        self._public["last_deal"] = self.last_deal
        if 0 in self.points or len(self.deals) >= self.params.max_deals:
            self.phase = self._public["phase"] = Phase.OVER
            self.player = TERMINAL
        else:
            self.dealer = (self.dealer + 1) % 4
            self._deal()

    # -- results and observations ------------------------------------------------------------

    def returns(self) -> list[float]:
        start = self.params.start_points
        return [float(start - self.points[s % 2]) for s in range(4)]

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
        if self.phase is not Phase.PLAY:
            return ""
        if CARD_BY_TEXT.get(action) not in self.hands[self.player]:
            return "not a card in your hand"
        led = self.eff[self.table.cards[0]]
        return f"must follow the suit led ({led}; the bauers count as trump)"


class BauerGame(Game):
    name = "bauer"
    title = "Bauer"
    Params = Params
    state_class = BauerState
    teams = ((0, 2), (1, 3))
    # a deal scores 1 for the side that made it, so its luck-corrected margin is that point
    # minus a luck of about ±0.2: shared by it on half a deal's point, as Belote's boards are
    # on half its 162 card points, a tied deal stays near a tie and a won one takes 0.88 of
    # it (docs/ranking.md, "Luck-corrected scores", measures the choice)
    corrected_margin_scale = 0.5
    # with the luck taken out, a set rated deal by deal needs 0.88 and 0.87 of the deals that
    # its paired boards need (docs/ranking.md, "Luck-corrected scores"): a paired board of two
    # 1/0 deals is mostly a tie, and the deal's luck cancels in it anyway
    corrected_boards_each_deal = True

    @property
    def deck(self) -> list[Card]:
        return list(DECK)


register(BauerGame)
