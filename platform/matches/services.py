"""Writes for matches: create with their seats, claim, run, record exactly once, reap.

The run task claims its match with a compare-and-swap ``queued -> running`` that also sets a
fresh run token and a lease deadline; the result is recorded only by the claim that still holds
that token, in one transaction with the seats, the replay and the tournament's completion check.
A message delivered twice, or a run the reaper has given up on, therefore records nothing.
A claim records its worker's heartbeat name (``matches.heartbeats``): the reaper re-queues the
match once that worker stops beating, or at the latest when the lease ends. The database is the
source of truth: the reaper also re-sends matches left ``queued`` (at once when the broker
restarted empty, else after ``ARENA_MATCH_REDISPATCH_S``), and a duplicate that results is a
no-op claim.
"""

from __future__ import annotations

import json
import uuid
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

import engine
from arena.celery import HARD_TIME_LIMIT_S, queue_name
from arena.dispatch import send
from bots.models import BotVersion
from matches import formats
from matches.audit import AuditFailure, audit_result
from matches.execution import (
    PlatformFailure,
    PlatformRetry,
    Played,
    SeatBot,
    fault_summary,
    play,
)
from matches.heartbeats import workers_lost
from matches.luck import luck_at_record
from matches.models import (
    MATCH_TRANSITIONS,
    Match,
    MatchOrigin,
    MatchReplay,
    MatchSeat,
    MatchStatus,
)
from matches.progress import MatchProgress
from matches.seeds import new_seed

#: a claim outlives the task's hard time limit, after which the worker process is gone anyway;
#: the backstop for a lost worker (its heartbeat usually tells much sooner)
MATCH_LEASE = timedelta(seconds=HARD_TIME_LIMIT_S + 60)


@dataclass(frozen=True)
class MatchSpec:
    """One match to create: the versions of its entrants (one per entrant, not per seat)."""

    entrants: Sequence[BotVersion]
    round: int | None = None


def matches_create(
    *,
    game: str,
    params: dict[str, Any],
    duplicate: bool,
    origin: str,
    specs: Sequence[MatchSpec],
    tournament_id: int | None = None,
    official: bool = False,
    requested_by_id: int | None = None,
) -> list[Match]:
    """Create matches with one seat row per seat, and queue them once the transaction commits.

    Whether they are rated is decided here, by ``ratings.policy`` (from the origin, the
    tournament's being official and the rules); each gets a fresh seed (``matches.seeds``).
    Team games seat each entrant in both seats of its side (the same version twice)."""
    from ratings.policy import rating_ladder

    rules = formats.load(game, params)
    layout = formats.seat_entrants(rules)
    ladder = rating_ladder(game=game, params=rules.params_dict(), duplicate=duplicate,
                           origin=origin, official=official)  # fmt: skip
    with transaction.atomic():
        matches = Match.objects.bulk_create(
            Match(
                game=game,
                params=rules.params_dict(),
                seed=new_seed(),
                duplicate=duplicate,
                origin=origin,
                tournament_id=tournament_id,
                ladder=ladder,
                requested_by_id=requested_by_id,
                round=spec.round,
            )  # fmt: skip
            for spec in specs
        )
        MatchSeat.objects.bulk_create(
            MatchSeat(
                match=match,
                seat=seat,
                partnership=formats.seat_partnership(rules, seat),
                bot_id=spec.entrants[entrant].bot_id,
                bot_version=spec.entrants[entrant],
            )  # fmt: skip
            for match, spec in zip(matches, specs, strict=True)
            for seat, entrant in enumerate(layout)
        )
        match_ids = [m.pk for m in matches]
        transaction.on_commit(lambda: _enqueue(match_ids))
    return matches


def _enqueue(match_ids: Sequence[int]) -> None:
    """Send the matches' run tasks: rated ones to a queue of their own, which workers serve
    beside the one for unrated matches, so a flood of challenges never holds up the ladder."""
    from matches.tasks import run_match_task

    rated = set(
        Match.objects.filter(pk__in=match_ids, ladder__isnull=False).values_list("id", flat=True)
    )
    for index, match_id in enumerate(match_ids):
        queue = queue_name("rated" if match_id in rated else "matches")
        if not send(run_match_task, match_id, queue=queue):  # the broker is away
            _resend_soon(match_ids[index:])
            break


def _resend_soon(match_ids: Sequence[int]) -> None:
    """Matches whose run could not be sent: due for the reaper's next re-send (as if queued
    ``ARENA_MATCH_REDISPATCH_S`` ago), not a whole period later."""
    due = timezone.now() - timedelta(seconds=settings.ARENA_MATCH_REDISPATCH_S)
    Match.objects.filter(pk__in=match_ids, status=MatchStatus.QUEUED).update(queued_at=due)


def match_transition(
    *, match_id: int, frm: str, to: str, token: uuid.UUID | None = None, **fields: Any
) -> bool:
    """Move a match from ``frm`` to ``to`` if it is still in ``frm`` and, given a run token,
    still held by that claim (compare-and-swap). The one place statuses change."""
    if to not in MATCH_TRANSITIONS[frm]:
        raise ValueError(f"a match cannot go from {frm} to {to}")
    matching = Match.objects.filter(pk=match_id, status=frm)
    if token is not None:
        matching = matching.filter(run_token=token)
    return matching.update(status=to, **fields) == 1


def match_claim(*, match_id: int, worker: str) -> uuid.UUID | None:
    """Take a queued match for this run; the run token, or ``None`` if it was not queued."""
    token = uuid.uuid4()
    now = timezone.now()
    claimed = match_transition(
        match_id=match_id, frm=MatchStatus.QUEUED, to=MatchStatus.RUNNING, run_token=token,
        deadline=now + MATCH_LEASE, started_at=now, worker=worker[:255],
        attempts=F("attempts") + 1,
    )  # fmt: skip
    return token if claimed else None


def match_run(*, match_id: int, worker: str) -> bool:
    """The match task: claim, play in the sandbox, record. False if there was nothing to do."""
    token = match_claim(match_id=match_id, worker=worker)
    if token is None:
        return False
    attempts: int | None = None  # the claims so far, once the match is read
    try:
        seats = list(  # the match with its seats: one query between the claim and the bots
            MatchSeat.objects.filter(match_id=match_id)
            .select_related("match", "bot_version__bot__owner", "bot_version__build")
            .order_by("seat")
        )
        match = seats[0].match
        attempts = match.attempts
        played = play(
            game=match.game, params=match.params, seed=match.seed, duplicate=match.duplicate,
            seats=[SeatBot(str(s.bot_version), *s.bot_version.run_package) for s in seats],
            progress=MatchProgress(match_id),  # its page follows the counts while it runs
        )  # fmt: skip
    except SoftTimeLimitExceeded:  # the platform's limit, not a bot's fault: another attempt
        reason = "it ran past the task's time limit"
        return _reconnecting(lambda: _retry_or_error(match_id, token, attempts, reason))
    except (OperationalError, InterfaceError):  # reading the match or a package: another attempt
        reason = "its database connection dropped before the bots started"
        return _reconnecting(lambda: _retry_or_error(match_id, token, attempts, reason))
    except PlatformRetry as err:  # e.g. a bot killed from outside: no bot is blamed
        reason = f"it failed ({err})"
        return _reconnecting(lambda: _retry_or_error(match_id, token, attempts, reason))
    except PlatformFailure as err:
        error = str(err)
        return _reconnecting(lambda: match_record_error(match_id=match_id, token=token,
                                                        error=error))  # fmt: skip
    except Exception as err:  # a bug of ours must not leave the match running until reaped
        error = f"{type(err).__name__}: {err}"
        _reconnecting(lambda: match_record_error(match_id=match_id, token=token, error=error))
        raise
    return _reconnecting(
        lambda: match_record_result(match=match, token=token, played=played, seats=seats)
    )


def _reconnecting(record: Callable[[], bool]) -> bool:
    """Record, reconnecting once if the database connection dropped while the match played (a
    restart, a failover, an idle timeout): the result is in hand, so it is not played again. A
    second attempt is safe even if the first one committed: the claim's token then no longer
    matches a running match and nothing is written twice."""
    try:
        return record()
    except (OperationalError, InterfaceError):
        connection.close()
        return record()


def match_record_result(
    *, match: Match, token: uuid.UUID, played: Played, seats: Sequence[MatchSeat]
) -> bool:
    """Record a played match exactly once: False (and nothing written) if the claim is stale.
    The result is audited first (``matches.audit``): one that does not re-derive from its
    replay ends the match in ``error`` instead. A duplicate match's boards are stored with it
    (``Match.boards``), so that ratings and pages never need to decompress the replay, and in
    the games whose ladder reads luck-corrected boards (``matches.luck.CORRECTED_GAMES``) a rated
    match's luck and those boards too, computed from the audited replay
    (``Match.corrected_boards``)."""
    from ratings.services import ladder_rate_soon
    from tournaments.services import ladder_top_up_soon, tournament_match_recorded

    result = played.result
    replay = json.dumps(result.replay, separators=(",", ":")).encode()
    document = json.loads(replay)  # exactly what is stored: the audit and the luck read it
    match_id = match.pk
    boards = engine.boards_of_result(result) or None  # a set with no board: one result
    try:  # what is stored must re-derive, or it does not count
        audit_result(
            game=match.game, params=match.params, seed=match.seed, duplicate=match.duplicate,
            replay=document, scores=result.scores, placings=result.placings, boards=boards,
        )  # fmt: skip
    except AuditFailure as err:
        return match_record_error(match_id=match_id, token=token, error=f"audit: {err}",
                                  replay=replay)  # fmt: skip
    luck = luck_at_record(game=match.game, rated=match.rated, replay=document)  # no lock held
    with_luck: dict[str, Any] = {}
    if luck is not None:
        with_luck = {"luck_at": timezone.now(), "corrected_boards": luck.corrected_boards}
    with transaction.atomic():
        if not match_transition(
            match_id=match_id, frm=MatchStatus.RUNNING, to=MatchStatus.FINISHED, token=token,
            finished_at=timezone.now(), deadline=None, boards=boards, **with_luck,
        ):  # fmt: skip
            return False
        places = formats.seat_places(formats.load(match.game, match.params), result.placings)
        for seat in seats:
            seat.score = result.scores[seat.seat]
            seat.place = places[seat.seat]
            seat.fault, seat.fault_message = fault_summary(result, seat.seat)
            seat.log = played.logs[seat.seat]
            seat.luck = None if luck is None else luck.seats[seat.seat]
        _seats_update(seats, ["score", "place", "fault", "fault_message", "log", "luck"])
        # level 1: a replay compresses about as well for a fraction of the time
        MatchReplay.objects.create(match_id=match_id, data=zlib.compress(replay, 1),
                                   size=len(replay))  # fmt: skip
        if match.tournament_id is not None:
            tournament_match_recorded(tournament_id=match.tournament_id)
        if match.ladder_id is not None:
            ladder_rate_soon(ladder_id=match.ladder_id)
            if match.origin == MatchOrigin.LADDER:
                ladder_top_up_soon(ladder_id=match.ladder_id)
    return True


def _seats_update(seats: Sequence[MatchSeat], names: Sequence[str]) -> None:
    """Write ``names`` of each of ``seats``: one ``UPDATE`` per seat, sent together (psycopg
    pipelines ``executemany``: one round trip). ``bulk_update`` would say it in one statement,
    but builds a ``CASE`` per field and seat, some 3 ms of CPU for a four-seat match on the
    worker's path from one match to the next."""
    concrete = {field.name: field for field in MatchSeat._meta.concrete_fields}
    fields = [concrete[name] for name in names]
    assignments = ", ".join(f"{connection.ops.quote_name(str(f.column))} = %s" for f in fields)
    table = connection.ops.quote_name(MatchSeat._meta.db_table)
    rows = [[f.get_db_prep_save(getattr(seat, f.attname), connection) for f in fields] + [seat.pk]
            for seat in seats]  # fmt: skip
    with connection.cursor() as cursor:
        cursor.executemany(f"UPDATE {table} SET {assignments} WHERE id = %s", rows)


def match_record_error(
    *, match_id: int, token: uuid.UUID, error: str, replay: bytes | None = None
) -> bool:
    """A platform failure: the match ends in ``error``, charged to no bot and never rated.
    ``replay``: what was played, kept for the operator (the site shows no replay of it)."""
    from tournaments.services import ladder_top_up_soon, tournament_match_recorded

    with transaction.atomic():
        recorded = match_transition(
            match_id=match_id, frm=MatchStatus.RUNNING, to=MatchStatus.ERROR, token=token,
            finished_at=timezone.now(), deadline=None, error=error[:10_000],
        )  # fmt: skip
        if recorded and replay is not None:
            MatchReplay.objects.update_or_create(
                match_id=match_id, defaults={"data": zlib.compress(replay, 1), "size": len(replay)}
            )
        if recorded:
            tournament_id, origin, ladder_id = Match.objects.values_list(
                "tournament_id", "origin", "ladder_id"
            ).get(pk=match_id)
            if tournament_id is not None:
                tournament_match_recorded(tournament_id=tournament_id)
            if origin == MatchOrigin.LADDER and ladder_id is not None:
                ladder_top_up_soon(ladder_id=ladder_id)  # its place in the queue is free
    return recorded


def match_requeue(*, match_id: int) -> bool:
    """An operator's re-queue of a match that ended in error (or was cancelled)."""
    for frm in (MatchStatus.ERROR, MatchStatus.CANCELLED):
        with transaction.atomic():
            if match_transition(
                match_id=match_id, frm=frm, to=MatchStatus.QUEUED, run_token=None, deadline=None,
                attempts=0, error="", finished_at=None, started_at=None, worker="",
                queued_at=timezone.now(),
            ):  # fmt: skip
                MatchReplay.objects.filter(match_id=match_id).delete()  # an audit's evidence
                _reopen_tournament(match_id)
                transaction.on_commit(lambda: _enqueue([match_id]))
                return True
    return False


def _reopen_tournament(match_id: int) -> None:
    from tournaments.services import tournament_match_requeued

    tournament_id = Match.objects.values_list("tournament_id", flat=True).get(pk=match_id)
    if tournament_id is not None:
        tournament_match_requeued(tournament_id=tournament_id)


def matches_reap(*, now: datetime | None = None) -> dict[str, int]:
    """Runs whose worker was killed or lost (its heartbeat stopped, or the lease expired):
    re-queue them, or after ``ARENA_MATCH_MAX_ATTEMPTS`` claims end them in ``error``. Counts of
    both."""
    now = now or timezone.now()
    counts = {"requeued": 0, "errored": 0}
    lost = Q(deadline__lt=now) | Q(worker__in=list(workers_lost()))
    stuck = Match.objects.filter(lost, status=MatchStatus.RUNNING)
    for match_id, token, attempts in stuck.values_list("id", "run_token", "attempts"):
        if token is None:  # pragma: no cover - a running match always holds a token
            continue
        key = "errored" if attempts >= settings.ARENA_MATCH_MAX_ATTEMPTS else "requeued"
        counts[key] += _retry_or_error(match_id, token, attempts, "its worker was lost")
    return counts


def _retry_or_error(match_id: int, token: uuid.UUID, attempts: int | None, reason: str) -> bool:
    """A claim the platform failed (``reason``): back to ``queued`` for another attempt, or in
    ``error`` once it was claimed ``ARENA_MATCH_MAX_ATTEMPTS`` times (``attempts``, read here
    when the caller could not). Never a bot's fault."""
    if attempts is None:
        attempts = Match.objects.values_list("attempts", flat=True).get(pk=match_id)
    if attempts >= settings.ARENA_MATCH_MAX_ATTEMPTS:
        error = f"{reason} {attempts} times; not charged to any bot"
        return match_record_error(match_id=match_id, token=token, error=error)
    with transaction.atomic():
        requeued = match_transition(
            match_id=match_id, frm=MatchStatus.RUNNING, to=MatchStatus.QUEUED, token=token,
            run_token=None, deadline=None, worker="", queued_at=timezone.now(),
        )  # fmt: skip
        if requeued:
            transaction.on_commit(lambda: _enqueue([match_id]))
    return requeued


def matches_redispatch(
    *, now: datetime | None = None, queued_before: datetime | None = None
) -> int:
    """Send again the run task of matches queued for longer than ``ARENA_MATCH_REDISPATCH_S``,
    and of those queued (or last sent) before ``queued_before`` (whose message may be lost: the
    broker restarted empty, or a worker that held it died); how many. Their ``queued_at``
    restarts, so a long backlog is re-sent once per period, not on every reap, and a message
    that was not lost after all only makes a claim that changes nothing."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.ARENA_MATCH_REDISPATCH_S)
    if queued_before is not None:
        stale = max(stale, queued_before)
    with transaction.atomic():
        ids = list(
            Match.objects.select_for_update(skip_locked=True)
            .filter(status=MatchStatus.QUEUED, queued_at__lte=stale)
            .values_list("id", flat=True)
        )
        Match.objects.filter(pk__in=ids, status=MatchStatus.QUEUED).update(queued_at=now)
        transaction.on_commit(lambda: _enqueue(ids))
    return len(ids)
