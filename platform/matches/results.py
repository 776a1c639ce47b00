"""From seat results to bot results: pure functions shared by ratings and standings.

A bot can hold several seats of one match (both seats of its team in Belote and Bauer); it is
one entrant there. A bot that faulted in any seat ranks below every bot that did not (it lost);
otherwise bots rank by place, and equal places are ties. A duplicate match also has boards
(``Match.boards``, ``engine.boards``): the same rule ranks the bots on each board, and where the
game shares a board by its margin (``Game.board_margin_scale``), ratings read each board as two
weighted orders (:func:`board_orders`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

import engine
from ratings.strength import Weighted

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
    seats: Sequence[SeatResult], boards: Sequence[Sequence[float]]
) -> list[list[tuple[int, int]]]:
    """Per board, ``(bot, rank)`` per bot in the order bots first appear: ``boards`` holds each
    board's score per seat (``seats`` in seat order; ``engine.board_scores``, partners share
    theirs); a bot's place is ``1 +`` the bots strictly ahead, and a bot that faulted anywhere in
    the match ranks last on every board."""
    faulted = {s.bot for s in seats if s.faulted}
    ranked: dict[tuple[float, ...], list[tuple[int, int]]] = {}  # boards that ended alike
    rankings: list[list[tuple[int, int]]] = []
    for board in boards:
        key = tuple(board)
        if key not in ranked:
            scores = _bot_scores(seats, board)
            places = engine.placings(list(scores.values()))
            ranked[key] = [
                (bot, place + FAULT_RANK if bot in faulted else place)
                for bot, place in zip(scores, places, strict=True)
            ]
        rankings.append(list(ranked[key]))
    return rankings


def _bot_scores(seats: Sequence[SeatResult], board: Sequence[float]) -> dict[int, float]:
    """A bot's score on a board: its lowest over its seats (partners' seats share one)."""
    scores: dict[int, float] = {}
    for seat, score in zip(seats, board, strict=True):
        scores[seat.bot] = min(scores.get(seat.bot, score), score)
    return scores


Order = list[tuple[int, int]] | Weighted[int]  # one board's (or match's) result for ratings


def board_orders(
    seats: Sequence[SeatResult], boards: Sequence[Sequence[float]], *, scale: float | None
) -> list[Order]:
    """What ratings read of a match's boards: :func:`board_rankings`, except that between two
    bots of a game with a margin scale (``Game.board_margin_scale``) each board is shared by
    its margin, the bot ahead by ``m`` taking ``engine.margin_share(m, scale)`` of it. A match
    with a faulted bot keeps its rankings: the faulted bot lost every board outright."""
    if scale is None or any(s.faulted for s in seats) or len({s.bot for s in seats}) != 2:
        return list(board_rankings(seats, boards))
    orders: list[Order] = []
    for board in boards:
        (a, score_a), (b, score_b) = _bot_scores(seats, board).items()
        share = engine.margin_share(score_a - score_b, scale)
        orders += [Weighted([(a, 1), (b, 2)], share), Weighted([(b, 1), (a, 2)], 1.0 - share)]
    return orders


def ranks_of(order: Order) -> list[tuple[int, int]]:
    """The ``(bot, rank)`` pairs of an order, weighted or not."""
    return list(order.order) if isinstance(order, Weighted) else order


def board_shares(orders: Sequence[Order]) -> dict[tuple[int, int], float]:
    """``(a, b) -> the share of the boards a took from b``, from :func:`board_orders`: a board
    ranked counts 1 for ranking ahead and ½ for a tie; a board shared by its margin counts its
    share."""
    if not orders:
        return {}
    taken: dict[tuple[int, int], float] = {}
    total = 0.0
    for order in orders:
        weight = order.weight if isinstance(order, Weighted) else 1.0
        total += weight
        for a, rank_a in ranks_of(order):
            for b, rank_b in ranks_of(order):
                if a != b:
                    won = 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0
                    taken[a, b] = taken.get((a, b), 0.0) + weight * won
    return {pair: value / total for pair, value in taken.items()}


def board_points(rankings: Sequence[Sequence[tuple[int, int]]]) -> dict[int, float]:
    """Each bot's boards won (``engine.board_points``), from :func:`board_rankings`."""
    if not rankings:
        return {}
    points = engine.board_points([[rank for _, rank in board] for board in rankings])
    return {bot: p for (bot, _), p in zip(rankings[0], points, strict=True)}
