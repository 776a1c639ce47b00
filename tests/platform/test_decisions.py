"""The replay inspector's decisions (``matches.decisions``): re-played from a replay, each is
exactly what its bot was sent; a seat log's act sections are found by game and act id."""

from __future__ import annotations

import json
from typing import Any

import pytest

import engine
from arena.errors import ApplicationError
from matches.decisions import ActLog, act_stderr, decision_at

SHORT = {"belote": {"target": 300}, "bauer": {"start_points": 2}, "barbu": {"mode": "base"},
         "badugi": {"hands": 3, "players": 3}}  # fmt: skip


class Recorder(engine.RandomAgent):
    """A random agent that keeps every observation and legal list it is sent, per game."""

    def __init__(self, seed: int, seen: list[list[tuple[Any, list[str]]]]) -> None:
        super().__init__(seed)
        self.seen = seen

    def start(self, info: dict[str, Any]) -> None:
        self.seen.append([])

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        self.seen[-1].append((json.loads(json.dumps(observation)), list(legal)))
        return super().act(observation, legal)


@pytest.mark.parametrize("game", sorted(SHORT))
def test_every_decision_is_what_the_bot_was_sent(game: str) -> None:
    rules = engine.load_game(game, **SHORT[game])
    seen: list[list[list[tuple[Any, list[str]]]]] = [[] for _ in range(rules.num_players)]
    agents = [Recorder(seat, seen[seat]) for seat in range(rules.num_players)]
    replay = engine.run_match(rules, None, agents, 11, duplicate=True).replay
    for g, played in enumerate(replay["games"][:2]):
        acts = [0] * rules.num_players
        for d, deal in enumerate(played["deals"]):
            for e, event in enumerate(deal["events"]):
                entrant = played["seats"][event["seat"]]
                acts[entrant] += 1
                decision = decision_at(replay, game=g, deal=d, event=e)
                observation, legal = seen[entrant][g][acts[entrant] - 1]
                assert (decision.observation, decision.legal) == (observation, legal)
                assert (decision.entrant, decision.action, decision.act) == (
                    entrant,
                    event["action"],
                    acts[entrant],
                )
    with pytest.raises(ApplicationError):
        decision_at(replay, game=0, deal=0, event=10_000)


def test_a_seat_logs_act_sections_by_game_and_act() -> None:
    log = (
        "--- game 1 ---\nstarting\n--- act 1 ---\nthinking about 1\n--- act 3 ---\nabout 3\n"
        "more\n--- game 2 ---\n[... 5 earlier bytes dropped ...]\nx\n--- act 2 ---\ny\n"
    )
    assert act_stderr(log, game=0, act=1).text == "thinking about 1\n"
    assert act_stderr(log, game=0, act=2).text == ""  # wrote nothing
    assert act_stderr(log, game=0, act=3).text == "about 3\nmore\n"
    assert not act_stderr(log, game=0, act=2).dropped
    assert (act_stderr(log, game=1, act=2).text, act_stderr(log, game=1, act=1).dropped) == (
        "y\n",
        True,
    )
    assert act_stderr("[... 9 earlier bytes dropped ...]\nz\n", game=0, act=1).dropped
    old = act_stderr("--- game 1 ---\nwritten before the act marks existed\n", game=0, act=1)
    assert old == ActLog("", dropped=False, unmarked=True)
    assert act_stderr("", game=0, act=1) == ActLog("", dropped=False)  # wrote nothing at all
