"""Games register by name; ``load_game("belote", **params)`` builds one with its options."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, TypeVar

from .errors import InvalidParams
from .game import Game

G = TypeVar("G", bound=type[Game])
_GAMES: dict[str, type[Game]] = {}
_discovered = False


def register(cls: G) -> G:
    """Make a game available under ``cls.name`` (called after its class, which keeps the class
    compilable by mypyc: a decorated class cannot be a native one)."""
    _GAMES[cls.name] = cls
    return cls


def _discover() -> None:
    """Import every module of ``engine.games`` once so that their games register."""
    global _discovered
    if _discovered:
        return
    from . import games

    for module in pkgutil.iter_modules(games.__path__):
        importlib.import_module(f"{games.__name__}.{module.name}")
    _discovered = True


def available_games() -> list[str]:
    _discover()
    return sorted(_GAMES)


def game_class(name: str) -> type[Game]:
    _discover()
    try:
        return _GAMES[name]
    except KeyError:
        raise InvalidParams(
            f"unknown game {name!r} (available: {', '.join(available_games())})"
        ) from None


def load_game(name: str, **params: Any) -> Game:
    """The game ``name`` with rule options ``params`` (unknown or bad options raise)."""
    return game_class(name)(**params)
