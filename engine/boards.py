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

A board is stored as each entrant's score on it (:func:`board_scores`), so both its order and
its margin are kept. Places (:func:`board_places`) say who won it. Where points measure how well
a deal was played, a board's margin says more than its winner: between two sides, a game with a
``Game.board_margin_scale`` gives the side ahead by ``m`` points the share ``1 / (1 + e^(−m /
scale))`` of the board (:func:`margin_share`), a near-draw about half and a rout nearly all.
Belote counts card points, so its boards are shared by margin; Bauer's deal scores only say which
side reached five tricks, and Barbu's tables are ranked, so theirs are won or lost. Luck-corrected
scores (``engine.luck``) make a Bauer deal's result a margin, the point it scored minus its
luck, and are shared by it on a scale of their own (:func:`margin_scale`).

Deals beyond the shortest game of the set have no counterpart in the other games and are not
boards. A faulted entrant (and its side) loses every board of the set, as it places last in the
match. Plain (non-duplicate) matches have no boards; :func:`board_scores` still applies to any
list of games (the ranking benchmark scores a plain game deal by deal with it, as a control).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .match import MatchResult, placings
from .registry import game_class, load_game

if TYPE_CHECKING:
    from .game import Game


@dataclass(frozen=True)
class BoardGame:
    """What boards need of one game of a set: the entrant in each seat, and each deal's
    per-seat scores (``None`` for a deal that did not finish)."""

    seats: Sequence[int]
    deal_scores: Sequence[Sequence[float] | None]


def board_scores(
    games: Sequence[BoardGame], *, teams: Sequence[Sequence[int]] | None
) -> list[list[float]]:
    """Per board, per entrant: its side's score on that board, the sum over the set's games of
    the deal scores of the seats the side held (partners share their side's score, counted
    once). ``teams`` are the games' seat groups (entrant ``i`` starts in seat ``i``, so the
    entrants of a group are partners throughout the set)."""
    if not games:
        return []
    entrants = len(games[0].seats)
    sides = _sides(entrants, teams)
    side_of = {e: k for k, side in enumerate(sides) for e in side}
    count = min(_finished_deals(g) for g in games)
    boards: list[list[float]] = []
    for board in range(count):
        totals = [0.0] * len(sides)
        for g in games:
            scores = g.deal_scores[board]
            assert scores is not None  # _finished_deals counted only finished deals
            for seat, entrant in enumerate(g.seats):
                totals[side_of[entrant]] += scores[seat]
        boards.append([totals[side_of[e]] / len(sides[side_of[e]]) for e in range(entrants)])
    return boards


def board_places(
    boards: Sequence[Sequence[float]],
    *,
    teams: Sequence[Sequence[int]] | None,
    faulted: Iterable[int] = (),
) -> list[list[int]]:
    """Per board, per entrant: its place on that board (``boards`` from :func:`board_scores`),
    ``1 +`` the sides strictly ahead (ties share the better place; partners share their side's);
    a side with a ``faulted`` entrant places after every side without one."""
    if not boards:
        return []
    entrants = len(boards[0])
    sides = _sides(entrants, teams)
    side_of = {e: k for k, side in enumerate(sides) for e in side}
    demoted = sorted({side_of[e] for e in faulted})
    places: list[list[int]] = []
    for scores in boards:
        side_places = placings([scores[side[0]] for side in sides], last=demoted)
        places.append([side_places[side_of[e]] for e in range(entrants)])
    return places


def margin_share(margin: float, scale: float | None) -> float:
    """The share of a board that a side ahead by ``margin`` points takes from the other: by the
    sign (1, ½ or 0) without a scale, else the logistic ``1 / (1 + e^(−margin / scale))``."""
    if scale is None:
        return 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0
    return 0.5 * (1.0 + math.tanh(margin / (2.0 * scale)))  # the logistic, without overflow


def margin_scale(game: str | Game, *, corrected: bool) -> float | None:
    """The scale on which ``game``'s boards (or deals scored one by one) are shared by their
    margin between two sides (:func:`margin_share`; None: by its sign): its own
    (``Game.board_margin_scale``), else, for luck-corrected scores, the one the luck calls
    for (``Game.corrected_scale``: a game by name with its default parameters). A raw Bauer
    deal is won, lost or tied; with its luck taken out, its sign would break every tie by the
    luck alone, nearly at random; a Badugi game is ranked by its chip total, whose corrected
    margin says how clearly it was won. The one choice the ranking benchmark and the
    platform's ratings both read."""
    played = load_game(game) if isinstance(game, str) else game
    if played.board_margin_scale is not None or not corrected:
        return played.board_margin_scale
    return played.corrected_scale()


def _sides(entrants: int, teams: Sequence[Sequence[int]] | None) -> list[list[int]]:
    return [list(t) for t in teams] if teams else [[e] for e in range(entrants)]


def _finished_deals(game: BoardGame) -> int:
    """Deals from the first up to the first unfinished one."""
    for d, scores in enumerate(game.deal_scores):
        if scores is None:
            return d
    return len(game.deal_scores)


def boards_of_result(result: MatchResult) -> list[list[float]] | None:
    """:func:`board_scores` of a played match; ``None`` for a plain match or a game scored by
    the set's total (``Game.scored_by_boards``)."""
    if not result.duplicate or not game_class(result.game).scored_by_boards:
        return None
    games = [
        BoardGame(play.seats, [record.scores for record in play.state.deals])
        for play in result.games
    ]
    return board_scores(games, teams=result.replay.get("teams"))


def deal_boards(
    games: Sequence[BoardGame], *, teams: Sequence[Sequence[int]] | None
) -> list[list[float]]:
    """Every finished deal of every game in turn as a board of its own (:func:`board_scores`
    of each game alone): per deal, per entrant, its side's score on that deal."""
    return [board for game in games for board in board_scores([game], teams=teams)]


def boards_of_replay(
    replay: dict[str, Any],
    deal_scores: Sequence[Sequence[Sequence[float] | None]] | None = None,
    *,
    each_deal: bool = False,
) -> list[list[float]] | None:
    """:func:`board_scores` of a stored replay (docs/replay-format.md); ``None`` for a plain
    match or a game scored by the set's total (``Game.scored_by_boards``). ``deal_scores``: per
    game of the replay, the deal scores to add up instead of its own (the luck-corrected ones:
    ``engine.luck.corrected_boards_of_replay``); ``each_deal``: every deal its own board
    (:func:`deal_boards`)."""
    if not replay.get("duplicate") or not game_class(replay["game"]).scored_by_boards:
        return None
    if deal_scores is None:
        deal_scores = [[deal["scores"] for deal in played["deals"]] for played in replay["games"]]
    games = [
        BoardGame(played["seats"], scores)
        for played, scores in zip(replay["games"], deal_scores, strict=True)
    ]
    boards = deal_boards if each_deal else board_scores
    return boards(games, teams=replay.get("teams"))


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
    return [
        boards * sum((shares[a][b] for b in range(n) if b != a), 0.0) / (n - 1) for a in range(n)
    ]
