"""A running match's public progress: which game of the set is being played and how many
decisions have been made so far. Nothing else (no card, no action, no per-seat fact), so its
page can follow it live without revealing anything hidden.

The worker counts as it plays (:class:`ProgressAgent` around each entrant's agent) and writes
the counts to the cache at most once per :data:`WRITE_EVERY_S`; the page reads them. Without a
shared cache (``ARENA_CACHE_URL``) a worker's counts stay in its own process and the page shows
the status alone.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache

import engine

WRITE_EVERY_S = 1.0
KEPT_S = 6 * 3600  # longer than any match may run


def _key(match_id: int) -> str:
    return f"match-progress:{match_id}"


@dataclass
class MatchProgress:
    """The counts of one match being played."""

    match_id: int
    game: int = 0  # games of the set started so far (1 = the first is being played)
    decisions: int = 0
    _written: float = field(default=0.0, repr=False)

    def game_started(self, number: int) -> None:
        self.game = max(self.game, number)
        self._write(force=True)

    def decided(self) -> None:
        self.decisions += 1
        self._write()

    def _write(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self._written >= WRITE_EVERY_S:
            self._written = now
            cache.set(_key(self.match_id), {"game": self.game, "decisions": self.decisions},
                      KEPT_S)  # fmt: skip


def match_progress(*, match_id: int) -> dict[str, int] | None:
    """The last counts the worker wrote for a running match (``game``, ``decisions``), if any."""
    found: dict[str, int] | None = cache.get(_key(match_id))
    return found


class ProgressAgent(engine.Agent):
    """An entrant's agent, counted: every start of a game and every decision it makes."""

    def __init__(self, agent: engine.Agent, progress: MatchProgress) -> None:
        self.agent, self.progress = agent, progress
        self._games = 0

    def start(self, info: dict[str, Any]) -> None:
        self._games += 1
        self.progress.game_started(self._games)
        self.agent.start(info)

    def start_games(self, infos: list[dict[str, Any]]) -> None:
        self.agent.start_games(infos)

    def wait_games_ready(self) -> None:
        self.agent.wait_games_ready()

    def wait_ready(self) -> None:
        self.agent.wait_ready()

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        action = self.agent.act(observation, legal)
        self.progress.decided()
        return action

    def finish(self, result: dict[str, Any]) -> None:
        self.agent.finish(result)
