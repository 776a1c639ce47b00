"""The partnership games' heuristic agents beat random ones on the same cards."""

from __future__ import annotations

import pytest

import engine


@pytest.mark.parametrize("game", ["belote", "bauer"])
def test_heuristic_team_beats_random_team(game: str) -> None:
    """Duplicate matches (both teams get the same cards): the heuristic team wins clearly."""
    wins = 0
    matches = 40
    for seed in range(matches):
        agents = [
            engine.make_agent(game, "heuristic", seed),
            engine.make_agent(game, "random", seed),
            engine.make_agent(game, "heuristic", seed),
            engine.make_agent(game, "random", seed + 1),
        ]
        result = engine.run_match(game, {}, agents, seed, duplicate=True)
        assert result.faults == []  # the heuristic never offered an illegal action
        wins += result.scores[0] > result.scores[1]
    assert wins >= 36
