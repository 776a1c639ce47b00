"""Agents: anything that picks an action, in-process (here) or sandboxed (``sandbox/``).

The match runner calls ``start_games(infos)`` and ``wait_games_ready()`` once before a match's
first game (an agent that runs a process per game starts every game's at once), ``start(info)``
before each game, ``act(observation, legal)`` at each decision and ``finish(result)`` after each
game. Games register their in-process agents
(``heuristic`` …) with :func:`register_agent`; ``random`` exists for every game.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from .errors import InvalidParams
from .registry import available_games, game_class


class Agent:
    """Base class; subclasses implement :meth:`act`."""

    def start(self, info: dict[str, Any]) -> None:
        """A game begins: ``info`` = game, seat, params (never the seed: it fixes every deal)."""

    def wait_ready(self) -> None:
        """Block until the agent can act; the runner calls it after starting every agent.

        Sandboxed agents spawn in ``start`` and wait here, so all bots start in parallel and
        start-up is never charged to the first decision.
        """

    def start_games(self, infos: list[dict[str, Any]]) -> None:
        """Before a match's first game: the ``info`` each of its games' ``start`` will get, in
        order. An agent that runs a process per game may start them all now, side by side, and
        hand each to its game's ``start``; the default does nothing."""

    def wait_games_ready(self) -> None:
        """After :meth:`start_games`: block until every game started there can act, or failed
        to start (a start-up fault is raised by that game's ``start``, never here)."""

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        raise NotImplementedError

    def finish(self, result: dict[str, Any]) -> None:
        """The game is over (also called after a fault, to release resources)."""


class RandomAgent(Agent):
    """Uniformly random legal action, from its own seeded generator."""

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        return legal[int(self._rng.random() * len(legal))]


AgentFactory = Callable[[int], Agent]
_FACTORIES: dict[tuple[str, str], AgentFactory] = {}


def register_agent(game: str, kind: str) -> Callable[[AgentFactory], AgentFactory]:
    """Decorator registering ``factory(seed) -> Agent`` as ``kind`` for ``game``."""

    def decorate(factory: AgentFactory) -> AgentFactory:
        _FACTORIES[(game, kind)] = factory
        return factory

    return decorate


def agent_kinds(game: str) -> list[str]:
    game_class(game)  # validates the name and loads the games with their agents
    return sorted({"random"} | {kind for g, kind in _FACTORIES if g == game})


def make_agent(game: str, kind: str, seed: int = 0) -> Agent:
    """A new in-process agent of ``kind`` (``random``, ``heuristic`` …) for ``game``."""
    kinds = agent_kinds(game)
    if kind == "random":
        return RandomAgent(seed)
    factory = _FACTORIES.get((game, kind))
    if factory is None:
        raise InvalidParams(f"no agent {kind!r} for {game} (available: {', '.join(kinds)})")
    return factory(seed)


__all__ = ["Agent", "RandomAgent", "agent_kinds", "available_games", "make_agent", "register_agent"]
