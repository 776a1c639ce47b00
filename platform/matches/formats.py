"""How the entrants (bots) of one match fill a game's seats; pure functions over the engine.

In partnership games (Belote, Bauer) an entrant is a team: one bot plays both seats of its side,
as two separate processes that share nothing. Elsewhere every seat is its own entrant.
"""

from __future__ import annotations

from typing import Any

import engine


def load(game: str, params: dict[str, Any] | None = None) -> engine.Game:
    """The engine game; unknown games and bad params raise ``engine.InvalidParams``/``KeyError``."""
    return engine.load_game(game, **(params or {}))


def entrants_per_match(game: engine.Game) -> int:
    return len(game.teams) if game.teams else game.num_players


def seat_entrants(game: engine.Game) -> list[int]:
    """The entrant index of every seat: ``[0, 1, 0, 1]`` for two teams, ``[0, 1, 2, 3]`` else."""
    if game.teams:
        return [next(t for t, team in enumerate(game.teams) if seat in team)
                for seat in range(game.num_players)]  # fmt: skip
    return list(range(game.num_players))


def seat_partnership(game: engine.Game, seat: int) -> int | None:
    return seat_entrants(game)[seat] if game.teams else None


def seat_places(game: engine.Game, placings: list[int]) -> list[int]:
    """Each seat's place as people read it: in team games the team's place among the teams
    (1 or 2), not the engine's per-seat competition rank (where partners tie for 1st and the
    other side is 3rd); a team ranks by its worse seat (a partner's fault sinks the side)."""
    if not game.teams:
        return list(placings)
    worst = [max(placings[s] for s in team) for team in game.teams]
    team_of = seat_entrants(game)
    return [1 + sum(1 for w in worst if w < worst[team_of[seat]]) for seat in range(len(placings))]
