"""From seat results to bot results: pure functions shared by ratings and standings.

A bot can hold several seats of one match (both seats of its team in Belote and Bauer); it is
one entrant there. A bot that faulted in any seat ranks below every bot that did not (it lost);
otherwise bots rank by place, and equal places are ties.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple


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
        return self.place + (1_000_000 if self.faults else 0)


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
