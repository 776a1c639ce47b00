"""Replays: one JSON document per match, and re-simulation to verify one.

Format (documented in ``docs/replay-format.md``)::

    {"format": "card-arena-replay", "version": 1, "game", "params", "seed", "duplicate",
     "entrants": [...], "teams": [[0, 2], [1, 3]] | null,
     "games": [{"seats": [entrant per seat], "first_dealer", "returns": [...], "faults": [...],
                "deals": [{"index", "dealer", "deck", "hands", "info", "scores",
                           "events": [{"seat", "action", "ms"}]}]}],
     "result": {"scores": [per entrant], "placings": [per entrant], "rates": {...}}}
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .errors import IllegalAction, InvalidParams, InvalidReplay
from .game import State
from .registry import load_game

REPLAY_FORMAT = "card-arena-replay"
REPLAY_VERSION = 1


def game_replay(
    state: State, seats: Sequence[int], times_ns: Sequence[int], faults: list[dict[str, Any]]
) -> dict[str, Any]:
    """The replay section of one played game."""
    deals = []
    for record in state.deals:
        end = record.end if record.end is not None else len(state.history)
        events = [
            {
                "seat": seat,
                "action": action,
                "ms": round(times_ns[i] / 1e6, 3) if i < len(times_ns) else None,
            }
            for i, (seat, action) in enumerate(
                state.history[record.start : end], start=record.start
            )
        ]
        deals.append({**record.to_dict(), "events": events})
    return {
        "seats": list(seats),
        "first_dealer": state.first_dealer,
        "returns": state.returns(),
        "terminal": state.is_terminal(),
        "faults": faults,
        "deals": deals,
    }


def resimulate(replay: dict[str, Any]) -> list[State]:
    """Replay every action through the engine; raise :class:`InvalidReplay` on any difference."""
    return walk_replay(replay)


DealVisitor = Callable[[int, int, State], None]  # (game index, deal index, state at its start)
EventVisitor = Callable[[int, int, int, State], None]  # (game, deal, event index, state after)


def walk_replay(
    replay: dict[str, Any],
    *,
    on_deal: DealVisitor | None = None,
    on_event: EventVisitor | None = None,
) -> list[State]:
    """Re-simulate ``replay`` (as :func:`resimulate`), calling ``on_deal`` when each deal starts
    and ``on_event`` after each action is applied; returns each game's final state."""
    if replay.get("format") != REPLAY_FORMAT or replay.get("version") != REPLAY_VERSION:
        raise InvalidReplay(
            f"not a {REPLAY_FORMAT} version {REPLAY_VERSION} document "
            f"(format={replay.get('format')!r}, version={replay.get('version')!r})"
        )
    if replay.get("seed") is None:
        raise InvalidReplay("a seat view (no seed) cannot be re-simulated")
    try:
        game = load_game(replay["game"], **replay["params"])
    except (KeyError, InvalidParams) as err:
        raise InvalidReplay(f"bad header: {err}") from err
    states = []
    for g, played in enumerate(replay["games"]):
        state = game.new_initial_state(replay["seed"], first_dealer=played["first_dealer"])
        for d, deal in enumerate(played["deals"]):
            if on_deal is not None:
                on_deal(g, d, state)
            for n, event in enumerate(deal["events"]):
                where = f"game {g}, deal {deal['index']}, event {n}"
                to_act = state.current_player()
                if to_act != event["seat"]:
                    raise InvalidReplay(
                        f"{where}: seat {event['seat']} acts, seat {to_act} is to act"
                    )
                try:
                    state.apply_action(event["action"])
                except IllegalAction as err:
                    raise InvalidReplay(f"{where}: {err}") from err
                if on_event is not None:
                    on_event(g, d, n, state)
        _compare(g, state, played)
        states.append(state)
    return states


def _compare(g: int, state: State, played: dict[str, Any]) -> None:
    if len(state.deals) != len(played["deals"]):
        raise InvalidReplay(
            f"game {g}: {len(played['deals'])} deals recorded, {len(state.deals)} replayed"
        )
    for record, deal in zip(state.deals, played["deals"], strict=True):
        for key in ("dealer", "deck", "hands", "info", "scores"):
            if record.to_dict()[key] != deal[key]:
                raise InvalidReplay(
                    f"game {g}, deal {record.index}: {key} differs from the engine's"
                )
    if state.returns() != played["returns"]:
        raise InvalidReplay(
            f"game {g}: returns {played['returns']} but the engine gives {state.returns()}"
        )
