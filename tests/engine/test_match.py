"""The match runner: faults, fallbacks, placings, replays (with Bauer as the test game)."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine import Agent, AgentFault, MatchAborted, RandomAgent, Verdict, placings

SHORT = {"start_points": 1}


class FaultAfter(Agent):
    """Plays randomly, then raises the given fault at decision ``n``."""

    def __init__(self, n: int, verdict: Verdict) -> None:
        self.inner = RandomAgent(1)
        self.n = n
        self.verdict = verdict
        self.calls = 0
        self.finished = 0

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        self.calls += 1
        if self.calls > self.n:
            raise AgentFault(self.verdict, "went wrong", exit_code=3)
        return self.inner.act(observation, legal)

    def finish(self, result: dict[str, Any]) -> None:
        self.finished += 1


class Illegal(Agent):
    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        return "2c"  # never in a 32-card deck


def randoms(n: int = 4) -> list[Agent]:
    return [RandomAgent(i) for i in range(n)]


def test_placings_share_ties_and_put_faulted_last() -> None:
    assert placings([5, 7, 5, 1]) == [2, 1, 2, 4]
    assert placings([5, 7, 5, 1], last=[1]) == [1, 4, 1, 3]


def test_a_faulting_agent_is_replaced_and_placed_last() -> None:
    bad = FaultAfter(3, Verdict.TIMEOUT)
    agents = [bad, *randoms(3)]
    result = engine.run_match("bauer", SHORT, agents, seed=1, entrants=["bad", "a", "b", "c"])
    assert [(f.entrant, f.seat, f.verdict) for f in result.faults] == [(0, 0, "timeout")]
    assert result.faults[0].decision >= 3
    assert result.faults[0].detail == {"exit_code": 3}
    assert bad.calls == 4, "a faulted agent is not asked again"
    assert bad.finished == 1, "finish() still runs so resources are released"
    assert result.placings[0] == 4
    assert result.games[0].state.is_terminal()
    assert result.replay["games"][0]["faults"][0]["verdict"] == "timeout"
    engine.resimulate(result.replay)


def test_an_illegal_action_is_a_fault_not_a_crash() -> None:
    result = engine.run_match("bauer", SHORT, [Illegal(), *randoms(3)], seed=2)
    assert result.faults[0].verdict == "illegal_action"
    assert result.faults[0].detail == {"action": "2c"}
    decision = result.faults[0].decision
    assert result.games[0].state.history[decision][0] == 0, "the index points at seat 0's turn"
    assert all(seat != 0 for seat, _ in result.games[0].state.history[:decision])
    assert result.games[0].state.is_terminal()


def test_a_fault_at_start_up_is_recorded_at_decision_minus_one() -> None:
    class DeadOnArrival(Agent):
        def start(self, info: dict[str, Any]) -> None:
            raise AgentFault(Verdict.CRASH, "exited with code 1", exit_code=1)

        def act(self, observation: dict[str, Any], legal: list[str]) -> str:
            raise AssertionError("never asked")

    result = engine.run_match("bauer", SHORT, [*randoms(3), DeadOnArrival()], seed=3)
    assert [(f.seat, f.decision, f.verdict) for f in result.faults] == [(3, -1, "crash")]


def test_an_internal_error_aborts_the_match() -> None:
    with pytest.raises(MatchAborted):
        engine.run_match("bauer", SHORT, [FaultAfter(0, Verdict.INTERNAL_ERROR), *randoms(3)], 4)


def test_duplicate_match_scores_sum_over_both_team_sides() -> None:
    result = engine.run_match("bauer", SHORT, randoms(), seed=5, duplicate=True)
    assert len(result.games) == 2
    expected = [0.0] * 4
    for play in result.games:
        for seat, value in enumerate(play.state.returns()):
            expected[play.seats[seat]] += value
    assert result.scores == expected
    assert result.to_dict()["decisions"]["decisions"] == sum(len(g.times_ns) for g in result.games)


def test_wrong_number_of_agents_is_refused() -> None:
    with pytest.raises(ValueError, match="needs 4 agents"):
        engine.run_match("bauer", SHORT, randoms(3), seed=1)
