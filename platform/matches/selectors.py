"""Reads for matches: the stored replay document, recent matches, a bot's record and logs."""

from __future__ import annotations

import json
import zlib
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import JSONField, Prefetch, QuerySet
from django.db.models.functions import Coalesce

import engine
from arena.errors import ApplicationError
from matches.models import UNFINISHED, Match, MatchReplay, MatchSeat, MatchStatus
from matches.results import SeatResult, board_points, board_rankings, bot_results, pairwise_points


def match_replay(*, match_id: int) -> dict[str, Any]:
    """The match's replay JSON (docs/replay-format.md); ``MatchReplay.DoesNotExist`` if the
    match has not finished."""
    stored = MatchReplay.objects.get(match_id=match_id)
    document: dict[str, Any] = json.loads(zlib.decompress(bytes(stored.data)))
    return document


def rated_boards(matches: QuerySet[Match]) -> QuerySet[Match, tuple[int, Any]]:
    """``(id, boards)`` of ``matches``, in their order: the boards their ladder rates them by,
    the boards of luck-corrected scores where the match has them (``Match.corrected_boards``: a
    game of ``matches.luck.CORRECTED_GAMES`` whose luck was computed), else its raw boards
    (``None`` without boards). The one place the ratings, the strengths and the matchmaking
    choose; one column comes back, so a fit reads no more than before."""
    both = Coalesce("corrected_boards", "boards", output_field=JSONField())
    return matches.annotate(rated_boards=both).values_list("id", "rated_boards")


def seat_log_of_owner(*, match_id: int, seat: int, user_id: int | None) -> str | None:
    """The stderr log of a match's seat if ``user_id`` owns the seat's bot, else ``None``: the
    logs are their owner's alone."""
    if user_id is None:
        return None
    logs = MatchSeat.objects.filter(match_id=match_id, seat=seat, bot__owner_id=user_id)
    return logs.values_list("log", flat=True).first()


def recent_matches(*, limit: int, bot_id: int | None = None) -> list[Match]:
    """The latest finished matches (of one bot, if given), newest first, seats and their bots
    loaded (two queries)."""
    matches = Match.objects.filter(status=MatchStatus.FINISHED)
    if bot_id is not None:
        # the bot's matches first (its seats by index), then the latest of them: joined, the
        # planner walked every finished match newest first looking for the bot's (1.2 s at 1M
        # matches; issue 35); this costs what the bot has played, whatever the platform holds
        mine = MatchSeat.objects.filter(bot_id=bot_id).order_by().values_list("match_id", flat=True)
        matches = matches.filter(pk__in=list(mine))
    return list(
        matches.order_by("-finished_at", "-id").prefetch_related(
            Prefetch("seats", queryset=MatchSeat.objects.select_related("bot__owner"))
        )[:limit]
    )


@dataclass(frozen=True)
class SeatLine:
    """A seat in a list of matches: its bot's name, place and fault."""

    bot_id: int
    bot: str
    place: int | None
    fault: str


@dataclass(frozen=True)
class MatchLine:
    """A match in a list of matches: number, round, status and seats (in seat order)."""

    pk: int
    round: int | None
    status: str
    seats: list[SeatLine]


def tournament_match_lines(*, tournament_id: int, limit: int) -> tuple[list[MatchLine], int]:
    """The tournament's first ``limit`` matches, oldest first, and how many it has, as plain
    rows in two queries (a third counts them when there may be more). A tournament page lists
    300 matches and is rendered again every few seconds while the tournament runs: as model
    instances with their seats' bots, owners and versions they were 5,000 objects, 60 % of the
    page's 220 ms of CPU (docs/reliability.md, "Load")."""
    matches = list(
        Match.objects.filter(tournament_id=tournament_id)
        .order_by("id")
        .values_list("id", "round", "status")[:limit]
    )
    seats: dict[int, list[SeatLine]] = defaultdict(list)
    rows = (
        MatchSeat.objects.filter(match_id__in=[pk for pk, _, _ in matches])
        .order_by("match_id", "seat")
        .values_list("match_id", "bot_id", "bot__name", "place", "fault")
    )
    for match_id, bot_id, name, place, fault in rows:
        seats[match_id].append(SeatLine(bot_id, name, place, fault))
    lines = [MatchLine(pk, round_, status, seats[pk]) for pk, round_, status in matches]
    total = len(lines)
    if total == limit:
        total = Match.objects.filter(tournament_id=tournament_id).count()
    return lines, total


def match_with_seats(*, match_id: int) -> Match:
    """One match with its seats, bots, owners and versions; ``Match.DoesNotExist`` if none."""
    return Match.objects.prefetch_related(
        Prefetch("seats", queryset=MatchSeat.objects.select_related("bot__owner", "bot_version"))
    ).get(pk=match_id)


@dataclass(frozen=True)
class BoardResult:
    """A duplicate match scored board by board: how many boards, and each bot's boards won
    (``matches.results.board_points``), bots in the order of their first seat."""

    boards: int
    points: list[tuple[int, float]]  # (bot id, boards won)

    @property
    def texts(self) -> list[tuple[int, str]]:
        """``(bot id, boards won)`` with halves as ½ ("6½"; thirds at tables as decimals)."""
        return [(bot, _points_text(p)) for bot, p in self.points]

    @property
    def summary(self) -> str:
        """The points side by side: "6½–3½" (tables: "2–1½–½–0")."""
        return "–".join(text for _, text in self.texts)


def _points_text(points: float) -> str:
    doubled = points * 2
    if abs(doubled - round(doubled)) > 1e-9:  # thirds and sixths at tables
        return f"{points:.2f}"
    whole, half = divmod(round(doubled), 2)
    return f"{whole or ''}½" if half else str(whole)


def match_board_result(*, match: Match, corrected: bool = False) -> BoardResult | None:
    """The board result of a finished duplicate match on its raw scores (``None`` without
    boards), or with ``corrected`` on its luck-corrected scores, what its ladder rates it by
    (``None`` where the ladder reads the raw boards: see :func:`rated_boards`); reads the
    match's seats, so prefetch them for lists."""
    boards = match.corrected_boards if corrected else match.boards
    if not boards:
        return None
    seats = sorted(match.seats.all(), key=lambda s: s.seat)
    results = [SeatResult(s.bot_id, s.bot_version_id, 0.0, s.place or 0, bool(s.fault))
               for s in seats]  # fmt: skip
    points = board_points(board_rankings(results, boards))
    return BoardResult(len(boards), list(points.items()))


@dataclass
class OpponentRecord:
    """How one bot fared against one opponent over the finished matches they met in."""

    opponent_id: int
    opponent: str  # owner/name
    meetings: int = 0
    wins: int = 0  # ranked ahead of the opponent
    draws: int = 0
    losses: int = 0

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2


def bot_record(*, bot_id: int, rated: bool) -> list[OpponentRecord]:
    """The bot's record against every opponent it met in rated (or else unrated) matches,
    most met first (one query)."""
    met = MatchSeat.objects.filter(
        bot_id=bot_id, match__status=MatchStatus.FINISHED, match__ladder__isnull=not rated
    )
    rows = (
        MatchSeat.objects.filter(match_id__in=met.values("match_id"))
        .order_by("match_id", "seat")
        .values_list(
            "match_id", "bot_id", "bot_version_id", "score", "place", "fault",
            "bot__name", "bot__owner__username",
        )
    )  # fmt: skip
    seats: dict[int, list[SeatResult]] = defaultdict(list)
    names: dict[int, str] = {}
    for match_id, bot, version, score, place, fault, name, owner in rows:
        seats[match_id].append(SeatResult(bot, version, score or 0.0, place or 0, bool(fault)))
        names[bot] = f"{owner}/{name}"
    records: dict[int, OpponentRecord] = {}
    for match_seats in seats.values():
        for (a, b), points in pairwise_points(bot_results(match_seats)).items():
            if a != bot_id:
                continue
            record = records.setdefault(b, OpponentRecord(b, names[b]))
            record.meetings += 1
            if points == 1.0:
                record.wins += 1
            elif points == 0.5:
                record.draws += 1
            else:
                record.losses += 1
    return sorted(records.values(), key=lambda r: (-r.meetings, r.opponent))


def matches_filtered(
    *, tournament_id: int | None = None, bot_id: int | None = None, status: str | None = None
) -> QuerySet[Match]:
    """Matches, newest first, optionally of one tournament, one bot or one status, with their
    seats, bots, owners and versions loaded (the stderr logs are private and left unloaded)."""
    matches = Match.objects.all()
    if tournament_id is not None:
        matches = matches.filter(tournament_id=tournament_id)
    if bot_id is not None:
        matches = matches.filter(seats__bot_id=bot_id).distinct()
    if status is not None:
        matches = matches.filter(status=status)
    seats = MatchSeat.objects.select_related("bot__owner", "bot_version").defer("log")
    return matches.order_by("-id").prefetch_related(Prefetch("seats", queryset=seats))


def match_replay_document(*, match: Match, seat: int | None = None) -> dict[str, Any]:
    """The replay of a finished match, whole or as ``seat`` knew it (``engine.seat_view``).

    A match still queued or running has no replay yet (409 ``not_finished``); one that ended in
    error or was cancelled never gets one (``no_replay``); a seat the game does not have is
    refused naming the seats it has."""
    if match.status in UNFINISHED:
        raise ApplicationError(
            f"match {match.pk} is {match.status}: its replay exists once it has finished",
            code="not_finished",
        )
    if match.status != MatchStatus.FINISHED:
        raise ApplicationError(
            f"match {match.pk} ended as {match.status} and has no replay", code="no_replay"
        )
    document = match_replay(match_id=match.pk)
    if seat is None:
        return document
    seats = match.seats.count()
    if not 0 <= seat < seats:
        raise ApplicationError(
            f"seat must be 0 to {seats - 1} for this match", code="invalid_seat", field="seat"
        )
    return engine.seat_view(document, seat)
