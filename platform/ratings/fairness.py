"""Seat fairness: how much sitting in a seat, or at a position relative to the dealer, is worth.

Pure functions over replay documents (``docs/replay-format.md``): no database.

- **By seat**: each game's final return per seat (Belote: team points, Bauer: points shed,
  Barbu: cumulative score, Badugi: net chips), averaged over the games.
- **By dealer position**: each deal's score per seat, grouped by the seat's position after the
  dealer (0 = the dealer's seat, p = seat ``dealer + p`` in seat order; Badugi: the button),
  averaged over the deals.

Each position's **advantage** is its mean minus the mean of all positions in the same games or
deals (so a game whose scores do not sum to zero, such as Barbu, still shows 0 for a fair seat).
Deals and games of one match are not independent (the same bots, a shared deck sequence in
duplicate play), so the 95 % interval treats the match as the unit: a ratio estimator
``Σ y_m / Σ n_m`` over matches with its cluster-robust (sandwich) standard error, ±1.96 of it.
With fewer than two matches there is no interval (``None``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

Z95 = 1.959963984540054


@dataclass(frozen=True)
class PositionResult:
    """One seat (or dealer position): mean score per game (or deal) and its advantage over
    the average position, with the advantage's 95 % interval."""

    position: int
    mean: float
    advantage: float
    low: float | None
    high: float | None
    samples: int  # games (by seat) or deals (by dealer position)


@dataclass(frozen=True)
class SeatFairness:
    game: str
    matches: int
    by_seat: list[PositionResult]
    by_dealer_position: list[PositionResult]


class _Totals:
    """Per-match sums for a ratio estimator, one series per position."""

    def __init__(self, positions: int) -> None:
        self.positions = positions
        self.per_match: list[tuple[list[float], list[float], int]] = []  # raw, advantage, n

    def add_match(self, rows: Sequence[Sequence[float]]) -> None:
        """``rows``: one score list (by position) per game or deal of the match."""
        if not rows:
            return
        raw = [0.0] * self.positions
        advantage = [0.0] * self.positions
        for row in rows:
            mean = sum(row) / len(row)
            for p, value in enumerate(row):
                raw[p] += value
                advantage[p] += value - mean
        self.per_match.append((raw, advantage, len(rows)))

    def results(self) -> list[PositionResult]:
        total_n = sum(n for _, _, n in self.per_match)
        if total_n == 0:
            return []
        out = []
        for p in range(self.positions):
            mean = sum(raw[p] for raw, _, _ in self.per_match) / total_n
            advantage = sum(adv[p] for _, adv, _ in self.per_match) / total_n
            half = _half_width([(adv[p], n) for _, adv, n in self.per_match], advantage)
            out.append(
                PositionResult(
                    p,
                    mean,
                    advantage,
                    None if half is None else advantage - half,
                    None if half is None else advantage + half,
                    total_n,
                )  # fmt: skip
            )
        return out


def _half_width(clusters: Sequence[tuple[float, int]], ratio: float) -> float | None:
    """1.96 cluster-robust standard errors of ``Σ y / Σ n`` over ``(y, n)`` clusters."""
    k = len(clusters)
    if k < 2:
        return None
    mean_n = sum(n for _, n in clusters) / k
    spread = sum((y - ratio * n) ** 2 for y, n in clusters)
    return Z95 * math.sqrt(spread / (k * (k - 1))) / mean_n


def seat_fairness(game: str, replays: Iterable[dict[str, Any]]) -> SeatFairness:
    """Seat and dealer-position results over ``replays`` (all of game ``game``)."""
    seats: _Totals | None = None
    dealers: _Totals | None = None
    matches = 0
    for replay in replays:
        if replay.get("game") != game:
            raise ValueError(f"a {replay.get('game')} replay among {game} replays")
        games = replay.get("games") or []
        if not games:
            continue
        n = len(games[0]["returns"])
        seats = seats or _Totals(n)
        dealers = dealers or _Totals(n)
        if seats.positions != n:
            raise ValueError(f"replays of {game} with {seats.positions} and {n} seats")
        matches += 1
        seats.add_match([[float(v) for v in g["returns"]] for g in games])
        dealers.add_match(
            [
                _by_position(deal["scores"], deal["dealer"])
                for g in games
                for deal in g["deals"]
                if deal.get("scores") is not None
            ]  # fmt: skip
        )
    return SeatFairness(
        game, matches,
        seats.results() if seats else [],
        dealers.results() if dealers else [],
    )  # fmt: skip


def _by_position(scores: Sequence[float], dealer: int) -> list[float]:
    """A deal's scores reordered by position after the dealer (0 = the dealer)."""
    n = len(scores)
    return [float(scores[(dealer + p) % n]) for p in range(n)]
