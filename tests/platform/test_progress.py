"""A running match's public progress (``matches.progress``): the worker's counts of games
started and decisions made, written to the cache for the match's page, and nothing else."""

from __future__ import annotations

import pytest

import engine
from matches import progress
from matches.progress import MatchProgress, ProgressAgent, match_progress


def test_counted_agents_write_the_game_and_the_decisions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "WRITE_EVERY_S", 0.0)  # every decision: exact counts
    counts = MatchProgress(7)
    agents = [ProgressAgent(engine.RandomAgent(seat), counts) for seat in range(4)]
    seen: list[dict[str, int] | None] = []
    first = agents[0].act

    def watched(observation: dict[str, object], legal: list[str]) -> str:
        seen.append(match_progress(match_id=7))
        return first(observation, legal)

    agents[0].act = watched  # type: ignore[method-assign]
    replay = engine.run_match("barbu", {"mode": "base"}, agents, 3, duplicate=True).replay
    events = sum(len(d["events"]) for game in replay["games"] for d in game["deals"])
    assert match_progress(match_id=7) == {"game": 4, "decisions": events}
    first_seen = seen[0] or {}
    assert first_seen["game"] == 1 and first_seen["decisions"] < 4  # read while it plays
    assert all(set(s or {}) == {"game", "decisions"} for s in seen)  # nothing else, ever
    assert match_progress(match_id=8) is None


def test_writes_are_spaced_out(monkeypatch: pytest.MonkeyPatch) -> None:
    writes: list[object] = []
    monkeypatch.setattr(progress.cache, "set", lambda *args: writes.append(args))
    counts = MatchProgress(9)
    counts.game_started(1)
    for _ in range(1000):
        counts.decided()
    assert len(writes) <= 3  # the start of the game, then at most once a second
