"""A replay as one seat knew it: the view a bot's owner or a spectator may see of that seat.

A full replay holds everything (the deck order, every hand, every discard, the seed that fixes
them all). :func:`seat_view` keeps only what ``seat`` learned while it played (the format is in
``docs/replay-format.md``, "Seat views"):

* no ``seed`` and no ``deck``: with them every hidden card could be recomputed;
* ``hands``: the seat's own hand as it was when the deal started (Belote: the first five cards),
  every other hand as ``"??"`` placeholders of the right length, partners' hands included;
* events: other seats' draws show only the count (``drew:2``, as bots see them); an event after
  which the seat's own hand gained cards carries ``"received"`` (Belote's completing deal, a
  Badugi draw), and one after which any hand grew carries ``"hand_sizes"``;
* ``info``: hands that were never shown are withheld (Badugi's ``final_hands`` of seats that did
  not reach the showdown), and so is the order of every reshuffled Badugi stub (its cards show
  as ``"??"``: the seat saw only the ones it drew); other seats' faults keep their verdict but
  not their message or detail (an illegal-action message lists the faulting seat's legal
  moves, i.e. its cards).

The view is computed by replaying every action through the engine and asking the seat's own
observation for its hand, so it is exact for every game without game-specific bookkeeping.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from .errors import InvalidReplay
from .game import State
from .replay import walk_replay

HIDDEN: Final = "??"


def seat_view(replay: dict[str, Any], seat: int) -> dict[str, Any]:
    """The replay document as ``seat`` knew it (a new document; ``replay`` is not changed).

    Raises :class:`InvalidReplay` if ``seat`` is not a seat of the game or the replay does not
    re-simulate.
    """
    seats = len(replay["games"][0]["seats"]) if replay.get("games") else 0
    if not 0 <= seat < seats:
        raise InvalidReplay(f"seat {seat} is not a seat of this {seats}-seat game")
    view = copy.deepcopy(replay)
    view["seed"] = None
    view["viewpoint"] = {"seat": seat}
    tracker = _HandTracker(seat)
    walk_replay(replay, on_deal=tracker.start_deal, on_event=tracker.after_event)
    for g, played in enumerate(view["games"]):
        for fault in played["faults"]:
            if fault["seat"] != seat:
                fault["message"] = f"{fault['verdict']} (details are private to that seat)"
                fault["detail"] = {}
        for d, deal in enumerate(played["deals"]):
            del deal["deck"]
            deal["hands"] = tracker.start_hands[(g, d)]
            _redact_info(deal["info"], seat)
            for n, event in enumerate(deal["events"]):
                if event["seat"] != seat and event["action"].startswith("draw:"):
                    event["action"] = f"drew:{_draw_count(event['action'])}"
                event.update(tracker.annotations.get((g, d, n), {}))
    return view


class _HandTracker:
    """Follows ``seat``'s own hand and every seat's hand size through a replay walk."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.start_hands: dict[tuple[int, int], list[list[str]]] = {}
        self.annotations: dict[tuple[int, int, int], dict[str, Any]] = {}
        self._hand: list[str] = []
        self._sizes: list[int] = []

    def _snapshot(self, state: State) -> None:
        sizes = []
        for s in range(state.game.num_players):
            hand = state.observation(s)["hand"]
            sizes.append(len(hand))
            if s == self.seat:
                self._hand = list(hand)
        self._sizes = sizes

    def start_deal(self, game_index: int, deal_index: int, state: State) -> None:
        self._snapshot(state)
        self.start_hands[(game_index, deal_index)] = [
            list(self._hand) if s == self.seat else [HIDDEN] * size
            for s, size in enumerate(self._sizes)
        ]

    def after_event(self, game_index: int, deal_index: int, n: int, state: State) -> None:
        if state.is_terminal() or len(state.deals) > deal_index + 1:
            return  # the deal ended with this event; the next one starts from a fresh snapshot
        before_hand, before_sizes = self._hand, self._sizes
        self._snapshot(state)
        notes: dict[str, Any] = {}
        received = [c for c in self._hand if c not in before_hand]
        if received:
            notes["received"] = received
        if any(now > was for now, was in zip(self._sizes, before_sizes, strict=True)):
            notes["hand_sizes"] = list(self._sizes)
        if notes:
            self.annotations[(game_index, deal_index, n)] = notes


def _redact_info(info: dict[str, Any], seat: int) -> None:
    """Withhold the hidden cards a deal summary holds: hands nobody was shown (Badugi's
    ``final_hands``) and the order of each reshuffled stub (Badugi's ``reshuffled_stubs``)."""
    stubs = info.get("reshuffled_stubs")
    if stubs is not None:
        info["reshuffled_stubs"] = [[HIDDEN] * len(order) for order in stubs]
    final = info.get("final_hands")
    if final is not None:
        revealed = info.get("revealed") or [None] * len(final)
        info["final_hands"] = [
            hand if s == seat or revealed[s] is not None else None for s, hand in enumerate(final)
        ]


def _draw_count(action: str) -> int:
    cards = action.removeprefix("draw:")
    return len(cards.split(",")) if cards else 0
