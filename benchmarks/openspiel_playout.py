"""One OpenSpiel deal played at random from Python, the way the engine benchmarks drive the
engine itself: shared by ``engine.py`` (deals/s) and ``engine_instructions.py`` (callgrind)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def random_deal(game: Any, pick: Callable[[], float], observe: bool) -> None:
    """Play one deal of the pyspiel ``game``: chance's outcomes and the players' moves drawn
    with ``pick``; the acting player's information-state string built first if ``observe``."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(pick() * len(outcomes))][0])
            continue
        if observe:
            state.information_state_string(state.current_player())
        legal = state.legal_actions()
        state.apply_action(legal[int(pick() * len(legal))])
