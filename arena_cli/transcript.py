"""Protocol transcripts: the exact messages a bot in one seat exchanges during a real game.

``arena transcript belote --seat 1`` prints them, and ``docs/protocol.md``'s example exchanges
are generated here (a test keeps the page equal to what the code sends). The game is played by
the engine's heuristic agents in-process; the messages are built by :mod:`sandbox.protocol`,
exactly as :class:`~sandbox.agent.SandboxedAgent` builds them, with a full time bank.
"""

from __future__ import annotations

import json
from typing import Any

import engine
from engine import Agent
from sandbox import protocol
from sandbox.limits import DEFAULT_LIMITS


class _Recorder(Agent):
    """Wraps an agent; keeps the protocol lines of every decision (``>`` arena, ``<`` bot)."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.hello: dict[str, Any] = {}
        self.decisions: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self.over: dict[str, Any] = {}

    def start(self, info: dict[str, Any]) -> None:
        self.hello = protocol.hello(info["game"], info["seat"], info["params"], _hello_limits())
        self.inner.start(info)

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        number = len(self.decisions) + 1
        action = self.inner.act(observation, legal)
        message = json.loads(
            protocol.act(number, observation, legal, DEFAULT_LIMITS.match_time_bank_ms)
        )
        self.decisions.append((message, {"id": number, "action": action}))
        return action

    def finish(self, result: dict[str, Any]) -> None:
        self.over = protocol.over(result)


def _hello_limits() -> dict[str, int]:
    return {**DEFAULT_LIMITS.to_bot(), "time_bank_ms": DEFAULT_LIMITS.match_time_bank_ms}


def transcript(
    game: str, params: dict[str, Any] | None = None, *, seat: int = 1, seed: int = 1, shown: int = 3
) -> list[str]:
    """Lines of one game seen from ``seat``: hello, ready, the first decision of each of the
    first ``shown`` distinct (phase, leading or not) situations with the replies, and over."""
    loaded = engine.load_game(game, **(params or {}))
    agents: list[Agent] = [
        engine.make_agent(game, "heuristic", seed * 10 + s) for s in range(loaded.num_players)
    ]
    recorder = _Recorder(agents[seat])
    agents[seat] = recorder
    engine.play_game(loaded, agents, seed)
    picked: list[tuple[dict[str, Any], dict[str, Any]]] = []
    situations: set[tuple[str, bool]] = set()
    for message, reply in recorder.decisions:
        observation = message["observation"]
        situation = (observation["phase"], bool(observation.get("trick")))
        if situation not in situations and len(picked) < shown:
            situations.add(situation)
            picked.append((message, reply))
    lines = ["> " + _dumps(recorder.hello), "< " + _dumps({"type": "ready"})]
    for message, reply in picked:
        lines += ["> " + _dumps(message), "< " + _dumps(reply)]
    return [*lines, "> " + _dumps(recorder.over)]


def _dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False)


#: the example exchanges of docs/protocol.md: (heading, game, params, seed, situations shown);
#: seeds chosen so that seat 1 meets the game's main kinds of decision early
DOC_EXAMPLES: list[tuple[str, str, dict[str, Any], int, int]] = [
    ("Belote: both bidding rounds, a lead, a follow", "belote", {}, 5, 4),
    ("Bauer: a follow, a lead, calling trump", "bauer", {}, 1, 3),
    ("Barbu, Geronimo mode: declaring, Domino, a trick", "barbu", {"mode": "geronimo"}, 14, 3),
    ("Badugi, heads-up: a pre-draw bet, a draw", "badugi", {}, 1, 2),
]


def doc_examples() -> str:
    """The "Example exchanges" section's blocks, in the page's own Markdown."""
    parts = []
    for heading, game, params, seed, shown in DOC_EXAMPLES:
        body = "\n".join(transcript(game, params, seed=seed, shown=shown))
        parts.append(f"### {heading} (seat 1)\n\n```text\n{body}\n```\n")
    return "\n".join(parts)
