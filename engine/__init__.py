"""Card Arena's game engine: pure rules, match formats, the match runner and replays.

Standard library only; no processes, no database. Typical use::

    import engine
    game = engine.load_game("belote", undertrump=True)
    state = game.new_initial_state(seed=7)
    agents = [engine.make_agent("belote", "heuristic", seed=i) for i in range(4)]
    result = engine.run_match("belote", {}, agents, seed=7, duplicate=True)
"""

from . import game as _game_module
from .agents import Agent, RandomAgent, agent_kinds, make_agent, register_agent
from .boards import (
    BoardGame,
    board_places,
    board_points,
    board_scores,
    boards_of_replay,
    boards_of_result,
    deal_boards,
    margin_scale,
    margin_share,
    pairwise_shares,
)
from .cards import CARDS, Card, card, cards
from .errors import IllegalAction, InvalidParams, InvalidReplay
from .faults import AgentFault, MatchAborted, Verdict
from .game import TERMINAL, DealRecord, Game, State
from .match import Fault, GamePlay, MatchResult, placings, play_game, run_match
from .registry import available_games, game_class, load_game, register
from .replay import resimulate
from .seat_view import seat_view

__all__ = [
    "compiled",
    "CARDS",
    "TERMINAL",
    "Agent",
    "AgentFault",
    "BoardGame",
    "Card",
    "DealRecord",
    "Fault",
    "Game",
    "GamePlay",
    "IllegalAction",
    "InvalidParams",
    "InvalidReplay",
    "MatchAborted",
    "MatchResult",
    "RandomAgent",
    "State",
    "Verdict",
    "agent_kinds",
    "available_games",
    "board_places",
    "board_scores",
    "deal_boards",
    "board_points",
    "boards_of_replay",
    "boards_of_result",
    "margin_scale",
    "margin_share",
    "card",
    "cards",
    "game_class",
    "load_game",
    "make_agent",
    "pairwise_shares",
    "placings",
    "play_game",
    "register",
    "register_agent",
    "resimulate",
    "seat_view",
    "run_match",
]


def compiled() -> bool:
    """Whether the rules run as C extensions built by mypyc (``setup.py``), not as source."""
    return not str(_game_module.__file__).endswith(".py")
