"""Reads for tournaments: progress, standings and the cross-table, from the recorded seats."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta

from django.db.models import Count, Q
from django.utils import timezone

from matches.models import UNFINISHED, MatchSeat, MatchStatus
from matches.results import SeatResult, bot_results, pairwise_points
from tournaments.models import Tournament, TournamentEntry, TournamentStatus


@dataclass
class Progress:
    done: int
    total: int
    running: int
    failed: int  # ended in a platform error (not charged to any bot)


@dataclass
class Standing:
    bot_id: int
    bot: str  # owner/name
    version: int  # the version number it entered with
    matches: int = 0
    points: float = 0.0  # 1 per opponent ranked below it in a match, 0.5 per tie
    total_score: float = 0.0
    places: list[int] = field(default_factory=list)
    faults: int = 0

    @property
    def average_place(self) -> float | None:
        return sum(self.places) / len(self.places) if self.places else None


@dataclass
class CrossTable:
    bots: list[int]
    points: dict[tuple[int, int], float]  # (row bot, column bot) -> points row took from column
    meetings: dict[tuple[int, int], int]


def tournament_progress(*, tournament: Tournament) -> Progress:
    counts = tournament.matches.aggregate(
        total=Count("id"),
        done=Count("id", filter=~Q(status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING])),
        running=Count("id", filter=Q(status=MatchStatus.RUNNING)),
        failed=Count("id", filter=Q(status=MatchStatus.ERROR)),
    )
    # until its scheduling task has run, the matches it will have
    counts["total"] = max(counts["total"], tournament.planned_matches)
    return Progress(**counts)


def _finished_results(tournament: Tournament) -> dict[int, list[SeatResult]]:
    seats: dict[int, list[SeatResult]] = defaultdict(list)
    rows = (
        MatchSeat.objects.filter(match__tournament=tournament, match__status=MatchStatus.FINISHED)
        .order_by("match_id", "seat")
        .values_list("match_id", "bot_id", "bot_version_id", "score", "place", "fault")
    )
    for match_id, bot, version, score, place, fault in rows:
        seats[match_id].append(SeatResult(bot, version, score or 0.0, place or 0, bool(fault)))
    return seats


@dataclass
class Table:
    standings: list[Standing]  # best first
    cross: CrossTable


def tournament_table(*, tournament: Tournament) -> Table:
    """Standings and cross-table in one pass over the finished matches' seats (a page shows
    both, and the pass grows with the tournament). Standings: most points, then better average
    place, then higher total score."""
    entries = (
        TournamentEntry.objects.filter(tournament=tournament)
        .select_related("bot__owner", "bot_version")
        .order_by("index")
    )
    table = {e.bot_id: Standing(e.bot_id, str(e.bot), e.bot_version.number) for e in entries}
    points: dict[tuple[int, int], float] = defaultdict(float)
    meetings: dict[tuple[int, int], int] = defaultdict(int)
    for seats in _finished_results(tournament).values():
        results = bot_results(seats)
        for r in results:
            row = table[r.bot]
            row.matches += 1
            row.total_score += r.score
            row.places.append(r.place)
            row.faults += r.faults
        for pair, p in pairwise_points(results).items():
            table[pair[0]].points += p
            points[pair] += p
            meetings[pair] += 1
    standings = sorted(
        table.values(),
        key=lambda s: (-s.points, s.average_place or 99.0, -s.total_score, s.bot),
    )
    return Table(standings, CrossTable(list(table), dict(points), dict(meetings)))


def tournaments_with_progress(*, limit: int, running_only: bool = False) -> list[Tournament]:
    """The latest tournaments, each annotated with its ``progress`` (one query)."""
    tournaments = Tournament.objects.all()
    if running_only:
        tournaments = tournaments.filter(status=TournamentStatus.RUNNING)
    rows: list[Tournament] = list(
        tournaments.annotate(
            total=Count("matches"),
            done=Count("matches", filter=~Q(matches__status__in=UNFINISHED)),
            running=Count("matches", filter=Q(matches__status=MatchStatus.RUNNING)),
            failed=Count("matches", filter=Q(matches__status=MatchStatus.ERROR)),
        ).order_by("-id")[:limit]
    )
    for t in rows:
        total = max(t.total, t.planned_matches)  # type: ignore[attr-defined]
        t.progress = Progress(t.done, total, t.running, t.failed)  # type: ignore[attr-defined]
    return rows


def tournament_time_left(*, tournament: Tournament, progress: Progress) -> timedelta | None:
    """A rough estimate: the remaining matches at the pace of the finished ones so far; None
    before the first match is done or once none is left."""
    remaining = progress.total - progress.done
    if remaining == 0 or progress.done == 0 or tournament.status != TournamentStatus.RUNNING:
        return None
    elapsed = timezone.now() - tournament.created_at
    return elapsed / progress.done * remaining


def tournament_faults(*, tournament: Tournament) -> list[MatchSeat]:
    """Seats that faulted in the tournament's finished matches (their verdicts are public; the
    bots' stderr is not and is not loaded)."""
    return list(
        MatchSeat.objects.filter(match__tournament=tournament, match__status=MatchStatus.FINISHED)
        .exclude(fault="")
        .select_related("bot__owner", "bot_version")
        .defer("log")
        .order_by("match_id", "seat")
    )
