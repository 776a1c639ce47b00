"""One decision of a finished match as its bot met it: the observation and legal list the
engine sent, the answer and its time. The replay keeps only the answers; the rest is re-played
(``engine.replay.walk_replay``), which gives the very states the bots were asked about: a match
is reproducible from its seed and actions.

For the bot's owner, the decision's stderr: the sandbox heads what a bot wrote during each act
with ``--- act <id> ---`` inside each game's ``--- game <n> ---`` section of the seat's log
(``sandbox.agent``), the id counting the bot's acts in that game."""

from __future__ import annotations

import json
import re
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
    act: int | None  # the bot's act id in that game; None where the fallback agent played


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
        if d == deal and event == 0:
            capture(state)

    def on_event(g: int, d: int, n: int, state: engine.State) -> None:
        if (d, n + 1) == (deal, event):
            capture(state)

    try:  # that game alone: each game of a set starts afresh from the seed and its first dealer
        walk_replay({**replay, "games": [played]}, on_deal=on_deal, on_event=on_event)
    except _Reached as reached:
        return Decision(seat, played["seats"][seat], reached.observation, reached.legal,
                        recorded["action"], recorded.get("ms"),
                        _act_id(played, seat, deal, event))  # fmt: skip
    raise ApplicationError("the match has no such decision", code="invalid_decision")


def _act_id(played: dict[str, Any], seat: int, deal: int, event: int) -> int | None:
    """The protocol id of the act behind an event: the seat's acts in the game so far; None
    after the seat's fault in this game (the engine's fallback agent played from then on)."""
    decision = sum(len(d["events"]) for d in played["deals"][:deal]) + event
    if any(f["seat"] == seat and f["decision"] < decision for f in played["faults"]):
        return None
    earlier = [e for d in played["deals"][:deal] for e in d["events"]]
    earlier += played["deals"][deal]["events"][: event + 1]
    return sum(1 for e in earlier if e["seat"] == seat)


_HEADER = re.compile(r"^--- (game|act) (\d+) ---$", re.MULTILINE)


@dataclass(frozen=True)
class ActLog:
    text: str  # what the bot wrote to stderr during the act ("" for nothing)
    dropped: bool  # earlier output of that game was dropped: the act's lines may be among it
    unmarked: bool = False  # the log has lines but marks no act (kept before the marks existed)


def act_stderr(log: str, *, game: int, act: int) -> ActLog:
    """The lines a seat's ``log`` holds for act ``act`` of game ``game`` (0-based, as in the
    replay): from its header to the next header."""
    headers = list(_HEADER.finditer(log))
    if log.strip() and not any(m[1] == "act" for m in headers):
        return ActLog("", dropped=_dropped(log), unmarked=True)
    start = next((i for i, m in enumerate(headers) if m.group(1, 2) == ("game", str(game + 1))),
                 None)  # fmt: skip
    if start is None:  # the whole game's lines are gone, or it wrote nothing at all
        return ActLog("", dropped=_dropped(log))
    end = next((i for i in range(start + 1, len(headers)) if headers[i][1] == "game"),
               len(headers))  # fmt: skip
    dropped = _dropped(log[headers[start].end() + 1 :])
    for i in range(start + 1, end):
        if int(headers[i][2]) == act and headers[i][1] == "act":
            stop = headers[i + 1].start() if i + 1 < len(headers) else len(log)
            return ActLog(log[headers[i].end() + 1 : stop], dropped)
    return ActLog("", dropped)


def _dropped(text: str) -> bool:
    """Whether ``text`` starts where the ring buffer dropped earlier bytes (sandbox.process)."""
    return text.startswith("[... ") and "earlier bytes dropped" in text.split("\n", 1)[0]
