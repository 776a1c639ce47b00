"""Boards: a duplicate set scored deal by deal, as duplicate bridge scores its boards.

Every game of a duplicate set deals the same deck for the same deal index (the deck comes from
``(seed, deal index)`` only), with the entrants rotated over the seats. A *board* is one deal
index that every game of the set reached and finished. On a board, an entrant's score is the sum,
over the set's games, of the deal scores of the seat(s) it held in that game; in team games an
entrant competes as its side (both seats of the side, so a side's per-seat team score counts
twice, which changes no order). Comparing entrants board by board keeps what the luck
cancellation of the set gains: the same cards were played in every seat, and each board is a
small result of its own instead of the whole set being one win or loss.

Badugi keeps one result per set, its chip total: RULES §2.5 pairs the hands of a duplicate and
compares the chips they won, and most of Badugi's information is in the size of the pots, which
a board's win-or-lose throws away. Measured with the ranking benchmark (docs/ranking.md), Badugi
boards needed more deals than the set's total, and the ladder's matchmaking stopped converging.

Deals beyond the shortest game of the set have no counterpart in the other games and are not
boards. A faulted entrant (and its side) loses every board of the set, as it places last in the
match. Plain (non-duplicate) matches have no boards; :func:`board_places` still applies to any
list of games (the ranking benchmark scores a plain game deal by deal with it, as a control).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .match import MatchResult, placings
from .registry import game_class


@dataclass(frozen=True)
class BoardGame:
    """What boards need of one game of a set: the entrant in each seat, and each deal's
    per-seat scores (``None`` for a deal that did not finish)."""

    seats: Sequence[int]
    deal_scores: Sequence[Sequence[float] | None]


def board_places(
    games: Sequence[BoardGame],
    *,
    teams: Sequence[Sequence[int]] | None,
    faulted: Iterable[int] = (),
) -> list[list[int]]:
    """Per board, per entrant: its place on that board, ``1 +`` the sides strictly ahead (ties
    share the better place; partners share their side's). ``teams`` are the games' seat groups
    (entrant ``i`` starts in seat ``i``, so the entrants of a group are partners throughout the
    set); a side with a ``faulted`` entrant places after every side without one."""
    if not games:
        return []
    entrants = len(games[0].seats)
    sides = [list(t) for t in teams] if teams else [[e] for e in range(entrants)]
    side_of = {e: k for k, side in enumerate(sides) for e in side}
    demoted = sorted({side_of[e] for e in faulted})
    count = min(_finished_deals(g) for g in games)
    places: list[list[int]] = []
    for board in range(count):
        totals = [0.0] * len(sides)
        for g in games:
            scores = g.deal_scores[board]
            assert scores is not None  # _finished_deals counted only finished deals
            for seat, entrant in enumerate(g.seats):
                totals[side_of[entrant]] += scores[seat]
        side_places = placings(totals, last=demoted)
        places.append([side_places[side_of[e]] for e in range(entrants)])
    return places


def _finished_deals(game: BoardGame) -> int:
    """Deals from the first up to the first unfinished one."""
    for d, scores in enumerate(game.deal_scores):
        if scores is None:
            return d
    return len(game.deal_scores)


def boards_of_result(result: MatchResult) -> list[list[int]] | None:
    """:func:`board_places` of a played match; ``None`` for a plain match or a game scored by
    the set's total (``Game.scored_by_boards``)."""
    if not result.duplicate or not game_class(result.game).scored_by_boards:
        return None
    games = [
        BoardGame(play.seats, [record.scores for record in play.state.deals])
        for play in result.games
    ]
    teams = result.replay.get("teams")
    return board_places(games, teams=teams, faulted=(f.entrant for f in result.faults))


def boards_of_replay(replay: dict[str, Any]) -> list[list[int]] | None:
    """:func:`board_places` of a stored replay (docs/replay-format.md); ``None`` for a plain
    match or a game scored by the set's total (``Game.scored_by_boards``)."""
    if not replay.get("duplicate") or not game_class(replay["game"]).scored_by_boards:
        return None
    games = [
        BoardGame(played["seats"], [deal["scores"] for deal in played["deals"]])
        for played in replay["games"]
    ]
    faulted = (f["entrant"] for played in replay["games"] for f in played["faults"])
    return board_places(games, teams=replay.get("teams"), faulted=faulted)


def pairwise_shares(places: Sequence[Sequence[int]]) -> list[list[float]]:
    """``shares[a][b]``: the share of boards on which competitor ``a`` placed ahead of ``b``,
    ties counting half (``places``: per board, per competitor, lower is better). Without
    boards every share is ½."""
    n = len(places[0]) if places else 0
    shares = [[0.0] * n for _ in range(n)]
    for board in places:
        for a in range(n):
            for b in range(n):
                if board[a] < board[b]:
                    shares[a][b] += 1.0
                elif board[a] == board[b]:
                    shares[a][b] += 0.5
    boards = len(places)
    return [[s / boards if boards else 0.5 for s in row] for row in shares]


def board_points(places: Sequence[Sequence[int]]) -> list[float]:
    """Per competitor: boards won, a board counting 1 for placing ahead of every other
    competitor and shared pro rata otherwise (a tie with one opponent heads-up: ½). Heads-up
    the two totals add up to the number of boards ("boards 6½–3½")."""
    if not places:
        return []
    n, boards = len(places[0]), len(places)
    shares = pairwise_shares(places)
    if n < 2:
        return [float(boards)] * n
    return [boards * sum(shares[a][b] for b in range(n) if b != a) / (n - 1) for a in range(n)]
