"""One decision of a finished match as its bot met it: the observation and legal list the
engine sent, the answer and its time. The replay keeps only the answers; the rest is re-played
(``engine.replay.walk_replay``), which gives the very states the bots were asked about: a match
is reproducible from its seed and actions."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import engine
from arena.errors import ApplicationError
from engine.replay import walk_replay


@dataclass(frozen=True)
class Decision:
    seat: int  # the seat that acted, in that game
    entrant: int  # the entrant in that seat (its MatchSeat.seat)
    observation: dict[str, Any]
    legal: list[str]
    action: str
    ms: float | None


class _Reached(Exception):
    """Stops the re-play once the decision's state is seen."""

    def __init__(self, observation: dict[str, Any], legal: list[str]) -> None:
        super().__init__()
        self.observation, self.legal = observation, legal


def decision_at(replay: dict[str, Any], *, game: int, deal: int, event: int) -> Decision:
    """Decision ``event`` of deal ``deal`` of game ``game`` (0-based, as in the replay) of a
    full replay; ``ApplicationError`` (``invalid_decision``) when the replay has no such one."""
    try:
        played = replay["games"][game]
        recorded = played["deals"][deal]["events"][event]
    except (IndexError, KeyError, TypeError):
        raise ApplicationError("the match has no such decision", code="invalid_decision") from None
    if min(game, deal, event) < 0:
        raise ApplicationError("the match has no such decision", code="invalid_decision")
    seat = recorded["seat"]

    def capture(state: engine.State) -> None:
        # a JSON round trip: the engine shares parts of its observations with its state
        observation = json.loads(json.dumps(state.observation(seat)))
        raise _Reached(observation, list(state.legal_actions()))

    def on_deal(g: int, d: int, state: engine.State) -> None:
        if (g, d) == (game, deal) and event == 0:
            capture(state)

    def on_event(g: int, d: int, n: int, state: engine.State) -> None:
        if (g, d, n + 1) == (game, deal, event):
            capture(state)

    try:
        walk_replay(replay, on_deal=on_deal, on_event=on_event)
    except _Reached as reached:
        return Decision(seat, played["seats"][seat], reached.observation, reached.legal,
                        recorded["action"], recorded.get("ms"))  # fmt: skip
    raise ApplicationError("the match has no such decision", code="invalid_decision")
