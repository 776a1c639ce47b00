"""The audit of a played match before its result counts: the stored replay is re-derived by
the engine (``engine.resimulate``: the same deck from the seed, every action legal for the
seat to act, every deal's scores and every game's returns as recorded), and the result about to
be recorded (each entrant's score and place, the boards) must follow from it. A result that
does not re-derive is the platform's failure, never a bot's: the match ends in ``error`` with
the reason and its replay kept for the operator, and nothing is rated."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import engine
from matches import formats


class AuditFailure(Exception):
    """The result does not follow from its replay; the message says where."""


def audit_result(
    *,
    game: str,
    params: dict[str, Any],
    seed: int,
    duplicate: bool,
    replay: dict[str, Any],
    scores: Sequence[float],
    placings: Sequence[int],
    boards: Sequence[Sequence[float]] | None,
) -> None:
    """Raise :class:`AuditFailure` unless ``replay`` is the match that was asked for
    (``game``, ``params``, ``seed``, ``duplicate``), replays in the engine, and gives
    ``scores``, ``placings`` and ``boards``."""
    rules = formats.load(game, params)
    header = (replay.get("game"), replay.get("params"), replay.get("seed"), replay.get("duplicate"))
    if header != (rules.name, rules.params_dict(), seed, duplicate):
        raise AuditFailure("the replay is not of this match (game, rules, seed or duplicate)")
    rotations = rules.duplicate_rotations() if duplicate else [list(range(rules.num_players))]
    if [played.get("seats") for played in replay.get("games", [])] != rotations:
        raise AuditFailure("the games do not seat the entrants as the match format does")
    try:
        states = engine.resimulate(replay)
    except engine.InvalidReplay as err:
        raise AuditFailure(f"the replay does not re-simulate: {err}") from None
    derived = [0.0] * len(scores)
    faulted: set[int] = set()
    for played, state in zip(replay["games"], states, strict=True):
        for seat, value in enumerate(state.returns()):
            derived[played["seats"][seat]] += value
        faulted.update(fault["entrant"] for fault in played["faults"])
    if not _same(derived, scores) or not _same(derived, replay["result"]["scores"]):
        raise AuditFailure(f"scores {list(scores)} recorded, the replay gives {derived}")
    places = engine.placings(derived, last=sorted(faulted))
    if places != list(placings) or places != replay["result"]["placings"]:
        raise AuditFailure(f"places {list(placings)} recorded, the replay gives {places}")
    replayed = engine.boards_of_replay(replay) or None  # a set with no board: one result
    if not _same_boards(boards or None, replayed):
        raise AuditFailure("the boards recorded differ from the replay's")


def _same_boards(
    a: Sequence[Sequence[float]] | None, b: Sequence[Sequence[float]] | None
) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))


def _same(a: Sequence[float], b: Sequence[float]) -> bool:
    if len(a) != len(b):
        return False
    return all(math.isclose(x, y, abs_tol=1e-9) for x, y in zip(a, b, strict=True))
