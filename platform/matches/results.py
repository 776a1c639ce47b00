"""From seat results to bot results: pure functions shared by ratings and standings.

A bot can hold several seats of one match (both seats of its team in Belote and Bauer); it is
one entrant there. A bot that faulted in any seat ranks below every bot that did not (it lost);
otherwise bots rank by place, and equal places are ties. A duplicate match also has boards
(``Match.boards``, ``engine.boards``): the same rule ranks the bots on each board.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

import engine

#: added to a faulted bot's place: it ranks after every bot that did not fault
FAULT_RANK = 1_000_000


class SeatResult(NamedTuple):  # named tuples: a ladder recomputation builds 100,000s of these
    bot: int
    version: int
    score: float
    place: int
    faulted: bool


class BotResult(NamedTuple):
    bot: int
    version: int
    score: float  # the bot's score in the match (a team's seats share theirs)
    place: int  # its worst place over its seats
    faults: int  # seats with a fault

    @property
    def rank(self) -> int:
        """Lower is better: faulted bots after all others, then by place."""
        return self.place + (FAULT_RANK if self.faults else 0)


def bot_results(seats: Iterable[SeatResult]) -> list[BotResult]:
    """One result per bot, in the order bots first appear among the seats."""
    merged: dict[int, BotResult] = {}
    for s in seats:
        old = merged.get(s.bot)
        if old is None:
            merged[s.bot] = BotResult(s.bot, s.version, s.score, s.place, int(s.faulted))
        else:
            merged[s.bot] = BotResult(
                s.bot, old.version, old.score, max(old.place, s.place), old.faults + s.faulted
            )
    return list(merged.values())


def pairwise_points(results: Sequence[BotResult]) -> dict[tuple[int, int], float]:
    """``(a, b) -> points a took from b``: 1 for ranking ahead, 0.5 for a tie, 0 behind."""
    points: dict[tuple[int, int], float] = {}
    for a in results:
        for b in results:
            if a.bot != b.bot:
                points[a.bot, b.bot] = 1.0 if a.rank < b.rank else 0.5 if a.rank == b.rank else 0.0
    return points


def board_rankings(
    seats: Sequence[SeatResult], boards: Sequence[Sequence[int]]
) -> list[list[tuple[int, int]]]:
    """Per board, ``(bot, rank)`` per bot in the order bots first appear: ``boards`` holds each
    board's place per seat (``seats`` in seat order); a bot's place is its worst over its seats,
    and a bot that faulted anywhere in the match ranks last on every board."""
    faulted = {s.bot for s in seats if s.faulted}
    rankings: list[list[tuple[int, int]]] = []
    for board in boards:
        places: dict[int, int] = {}
        for seat, place in zip(seats, board, strict=True):
            places[seat.bot] = max(places.get(seat.bot, 0), place)
        rankings.append(
            [
                (bot, place + FAULT_RANK if bot in faulted else place)
                for bot, place in places.items()
            ]
        )
    return rankings


def board_shares(rankings: Sequence[Sequence[tuple[int, int]]]) -> dict[tuple[int, int], float]:
    """``(a, b) -> the share of boards on which a ranked ahead of b`` (ties half), from
    :func:`board_rankings`."""
    if not rankings:
        return {}
    bots = [bot for bot, _ in rankings[0]]
    shares = engine.pairwise_shares([[rank for _, rank in board] for board in rankings])
    return {(a, b): shares[i][j] for i, a in enumerate(bots) for j, b in enumerate(bots) if i != j}


def board_points(rankings: Sequence[Sequence[tuple[int, int]]]) -> dict[int, float]:
    """Each bot's boards won (``engine.board_points``), from :func:`board_rankings`."""
    if not rankings:
        return {}
    points = engine.board_points([[rank for _, rank in board] for board in rankings])
    return {bot: p for (bot, _), p in zip(rankings[0], points, strict=True)}
