"""Faults on real parts (PostgreSQL under CI, Redis, Celery worker processes that share only
the database and the broker with this process, the sandbox): workers killed with SIGKILL,
joining and leaving mid-tournament, the database connection dropped during a match, the task
time limits, the same message delivered twice. docs/reliability.md lists the scenarios.

After each, the invariants: every match of the tournament recorded exactly once (finished, one
replay that re-simulates, one result per seat, one rating change per entrant), no bot blamed,
standings equal to a recomputation from the replays alone, and the ladder equal to a from-scratch
recomputation. ``test_reliability_broker.py`` (Redis stopped) uses the helpers here.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import OperationalError, connection
from django.utils import timezone
from pytest_django import Settings

import engine
from matches import formats
from matches.heartbeats import worker_beat
from matches.models import Match, MatchReplay, MatchStatus, WorkerHeartbeat
from matches.results import SeatResult, bot_results, pairwise_points
from matches.selectors import match_replay
from matches.services import matches_reap
from matches.tasks import run_match_task
from ratings.models import Ladder, Rating, RatingChange
from ratings.services import ladder_for_game, ladder_recompute, ladders_rate_overdue
from tests.platform.factories import SLOW, active_bot
from tests.platform.workers import StartWorker, Worker
from tournaments.models import Tournament, TournamentStatus
from tournaments.selectors import tournament_table
from tournaments.services import tournament_create, tournament_schedule

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

#: a bot that thinks 0.3 s per decision: a Belote match takes well over a minute
GLACIAL = SLOW.replace("time.sleep(0.03)", "time.sleep(0.3)")
PARAMS = {"target": 300}


def wait_until(condition: Callable[[], bool], workers: list[Worker], what: str,
               timeout_s: float = 240) -> None:  # fmt: skip
    """Poll ``condition`` (the workers must stay alive meanwhile)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        for worker in workers:
            worker.assert_alive()
        if time.monotonic() > deadline:
            logs = "\n".join(f"--- {w.name}\n{w.log.read_text()[-3000:]}" for w in workers)
            pytest.fail(f"{what}: not within {timeout_s} s\n{logs}")
        time.sleep(0.2)


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (the sandboxed bots of the match it is playing)."""
    found: list[int] = []
    # a process can end while it is read (a bot between two games): ENOENT once it is reaped,
    # ESRCH (ProcessLookupError) while it exits
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except (FileNotFoundError, ProcessLookupError):
        return found
    for task in tasks:
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):  # the thread or process ended meanwhile
            continue
    return found


def descendants(pid: int) -> list[int]:
    out = children(pid)
    for child in list(out):
        out += descendants(child)
    return out


def playing(worker: Worker) -> Match | None:
    """The match ``worker`` holds once it has started the bots (past its database reads)."""
    match = Match.objects.filter(status=MatchStatus.RUNNING, worker__startswith=f"{worker.name}-")
    held = match.first()
    return held if held is not None and descendants(worker.process.pid) else None


def wait_playing(worker: Worker, others: list[Worker]) -> Match:
    """Wait until ``worker`` is inside a match; that match (as seen by the check that succeeded:
    asking again could fall between two games of the set, while no bot process runs)."""
    seen: list[Match] = []

    def inside() -> bool:
        match = playing(worker)
        if match is not None:
            seen.append(match)
        return match is not None

    wait_until(inside, [worker, *others], f"{worker.name} playing")
    return seen[-1]


def slow_tournament(bots: int, source: str = SLOW, rounds: int = 1) -> Tournament:
    """A Belote round robin of ``bots`` slow bots (their versions stored, already active)."""
    entrants = [active_bot("belote", source=source) for _ in range(bots)]
    organiser, _ = User.objects.get_or_create(username="organiser", is_staff=True)
    Ladder.objects.filter(pk=ladder_for_game(game="belote").pk).update(params=PARAMS)
    tournament = tournament_create(  # official, under the ladder's rules: rated
        created_by=organiser, name="faults", game="belote", bot_ids=[b.pk for b in entrants],
        params=PARAMS, rounds=rounds, official=True,
    )  # fmt: skip
    # its scheduling task, run here so the test knows its matches at once (the message that
    # creation sent then finds it scheduled and creates nothing)
    tournament_schedule(tournament_id=tournament.pk)
    return tournament


def finished(tournament: Tournament) -> bool:
    tournament.refresh_from_db()
    return tournament.status != TournamentStatus.RUNNING


def all_rated(tournament: Tournament) -> bool:
    unrated = tournament.matches.filter(status=MatchStatus.FINISHED, rated_at__isnull=True)
    return not unrated.exists()


def rated_with_reaper(tournament: Tournament) -> Callable[[], bool]:
    """A condition for :func:`wait_until`: every finished match of ``tournament`` is rated. It
    also runs the reaper's ratings pass every 20 s, as beat does every minute in a deployment: a
    worker killed while it held a (delayed) rating message takes that message with it, and the
    pass is what asks again."""
    last_pass = time.monotonic()

    def condition() -> bool:
        nonlocal last_pass
        if all_rated(tournament):
            return True
        if time.monotonic() - last_pass > 20:
            ladders_rate_overdue(older_than=timedelta(seconds=20))
            last_pass = time.monotonic()
        return False

    return condition


def assert_recorded_exactly_once(tournament: Tournament) -> None:
    """Every match finished once with its result, replay and ratings; no bot blamed."""
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    matches = list(tournament.matches.prefetch_related("seats"))
    assert {m.status for m in matches} == {MatchStatus.FINISHED}
    assert MatchReplay.objects.filter(match__tournament=tournament).count() == len(matches)
    for match in matches:
        seats = sorted(match.seats.all(), key=lambda s: s.seat)
        replay = match_replay(match_id=match.pk)
        assert len(engine.resimulate(replay)) == 2  # both games of the duplicate set
        assert [s.score for s in seats] == replay["result"]["scores"]
        game = formats.load(match.game, match.params)
        assert [s.place for s in seats] == formats.seat_places(game, replay["result"]["placings"])
        assert {s.fault for s in seats} == {""}, f"a bot was blamed in {match}"
        entrants = len({s.bot_id for s in seats})
        assert RatingChange.objects.filter(match=match).count() == entrants
    assert_standings_match_the_replays(tournament, matches)
    assert_ladder_equals_a_recomputation()


def assert_standings_match_the_replays(tournament: Tournament, matches: list[Match]) -> None:
    """Points and matches per bot, recomputed from the stored replays alone."""
    points: dict[int, float] = {}
    played: dict[int, int] = {}
    for match in matches:
        replay = match_replay(match_id=match.pk)
        faulted = {f["entrant"] for game in replay["games"] for f in game["faults"]}
        seats = sorted(match.seats.all(), key=lambda s: s.seat)
        results = bot_results(
            SeatResult(s.bot_id, s.bot_version_id, replay["result"]["scores"][s.seat],
                       replay["result"]["placings"][s.seat], s.seat in faulted)
            for s in seats
        )  # fmt: skip
        for r in results:
            played[r.bot] = played.get(r.bot, 0) + 1
        for (a, _b), p in pairwise_points(results).items():
            points[a] = points.get(a, 0.0) + p
    standings = tournament_table(tournament=tournament).standings
    assert {s.bot_id: s.points for s in standings} == points
    assert {s.bot_id: s.matches for s in standings} == played


def assert_ladder_equals_a_recomputation(game: str = "belote") -> None:
    ladder = ladder_for_game(game=game)
    live = list(Rating.objects.filter(ladder=ladder).order_by("bot_id")
                .values_list("bot_id", "rating", "games"))  # fmt: skip
    assert ladder_recompute(ladder_id=ladder.pk).rewritten == 0
    again = list(Rating.objects.filter(ladder=ladder).order_by("bot_id")
                 .values_list("bot_id", "rating", "games"))  # fmt: skip
    assert again == live


def reap_orphan(match: Match) -> None:
    """The reaper's pass once the lease of ``match`` (whose worker died) has expired; only runs
    claimed before it can have expired too."""
    match.refresh_from_db()
    assert match.status == MatchStatus.RUNNING and match.deadline is not None
    counts = matches_reap(now=match.deadline + timedelta(seconds=1))
    assert counts["requeued"] >= 1 and counts["errored"] == 0


def kill(worker: Worker) -> None:
    os.kill(worker.process.pid, signal.SIGKILL)
    worker.process.wait(timeout=60)


#: short heartbeat periods for the workers and the reaper of a test (the defaults: 10 s, 30 s)
QUICK_HEARTBEATS = {"ARENA_WORKER_HEARTBEAT_S": "1", "ARENA_WORKER_LOST_S": "3"}


@pytest.mark.timeout(600)
def test_a_worker_killed_mid_tournament_is_replaced(
    start_worker: StartWorker, settings: Settings
) -> None:
    """The killed worker's heartbeat stops: the reaper re-queues its match long before the
    claim's lease would have ended (periods shortened here; docs/reliability.md has the time
    with the defaults)."""
    settings.ARENA_WORKER_LOST_S = 3
    tournament = slow_tournament(3)
    doomed = start_worker("doomed", env=QUICK_HEARTBEATS)
    orphan = wait_playing(doomed, [])
    kill(doomed)
    killed_at = timezone.now()
    orphan.refresh_from_db()
    assert orphan.status == MatchStatus.RUNNING and orphan.attempts == 1  # nobody knows yet
    assert orphan.deadline is not None and orphan.worker.startswith("doomed-")

    rescuer = start_worker("rescuer", env=QUICK_HEARTBEATS)

    def requeued() -> bool:  # a pass of the reaper, here at every poll (the rescuer's own
        matches_reap()  # reaper thread may come first)
        orphan.refresh_from_db()
        return orphan.queued_at > killed_at

    deadline = orphan.deadline
    wait_until(requeued, [rescuer], "the orphan re-queued", timeout_s=120)
    assert orphan.queued_at < deadline  # by the heartbeat, not the lease
    assert orphan.queued_at - killed_at >= timedelta(seconds=2)  # silent for ARENA_WORKER_LOST_S
    wait_until(lambda: finished(tournament), [rescuer], "the tournament")
    wait_until(rated_with_reaper(tournament), [rescuer], "the ratings")
    assert_recorded_exactly_once(tournament)
    orphan.refresh_from_db()
    assert orphan.attempts == 2 and orphan.worker.startswith("rescuer-")
    assert set(tournament.matches.exclude(pk=orphan.pk).values_list("attempts", flat=True)) == {1}
    assert WorkerHeartbeat.objects.filter(name__startswith="rescuer-").count() == 1


@pytest.mark.timeout(600)
def test_a_slow_worker_under_cpu_load_keeps_its_match(
    start_worker: StartWorker, settings: Settings
) -> None:
    """Its heartbeat comes from a thread of its own: a worker whose match crawls on a CPU that
    busy processes take keeps beating, and the reaper (here at every poll, a worker lost after
    6 s of silence, while another worker beats) never takes its match away."""
    settings.ARENA_WORKER_LOST_S = 6
    tournament = slow_tournament(2)  # one match
    worker = start_worker("slow", env={"ARENA_WORKER_HEARTBEAT_S": "1", "ARENA_WORKER_LOST_S": "6"})
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        match = wait_playing(worker, [])

        def finished_unreaped() -> bool:
            worker_beat(name="another worker")  # the other workers of a deployment
            assert matches_reap() == {"requeued": 0, "errored": 0}
            return finished(tournament)

        wait_until(finished_unreaped, [worker], "the match", timeout_s=400)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED and match.attempts == 1


@pytest.mark.timeout(600)
def test_workers_join_and_leave_and_every_message_is_delivered_twice(
    start_worker: StartWorker, held_matches: list[int]
) -> None:
    """Each worker has its own home, media folder, package cache and temp dir (another host).
    Every run message is sent twice: the duplicates meet a claim that changes nothing."""
    tournament = slow_tournament(4)  # 6 matches
    assert len(held_matches) == 6
    for match_id in held_matches * 2:
        run_match_task.delay(match_id)
    first = start_worker("first")
    wait_playing(first, [])
    second = start_worker("second")  # joins mid-tournament
    wait_playing(second, [first])
    first.process.send_signal(signal.SIGTERM)  # leaves gracefully: ends its match, then exits
    first.process.wait(timeout=240)
    third = start_worker("third")
    orphan = wait_playing(second, [third])  # second's next match...
    kill(second)  # ...is interrupted for good
    reap_orphan(orphan)
    wait_until(lambda: finished(tournament), [third], "the tournament")
    wait_until(rated_with_reaper(tournament), [third], "the ratings")

    assert_recorded_exactly_once(tournament)
    by_worker = {w.split("-")[0] for w in tournament.matches.values_list("worker", flat=True)}
    assert by_worker >= {"first", "third"}  # the work spread; second's last match was redone
    orphan.refresh_from_db()
    assert orphan.attempts == 2 and orphan.worker.startswith("third-")
    others = tournament.matches.exclude(pk=orphan.pk)
    assert set(others.values_list("attempts", flat=True)) == {1}  # duplicates claimed nothing


@pytest.mark.timeout(600)
def test_the_database_connection_dropped_during_a_match(start_worker: StartWorker) -> None:
    """The worker's connection is terminated while its bots play: it reconnects to record the
    result it holds (one attempt, nothing half-written)."""
    if connection.vendor != "postgresql":
        pytest.skip("terminates a PostgreSQL backend (CI runs on PostgreSQL)")
    tournament = slow_tournament(2)  # one match
    worker = start_worker("w")
    match = wait_playing(worker, [])
    assert _terminate_other_sessions() >= 1
    wait_until(lambda: finished(tournament), [worker], "the tournament")
    wait_until(rated_with_reaper(tournament), [worker], "the ratings")
    assert_recorded_exactly_once(tournament)
    match.refresh_from_db()
    assert match.attempts == 1
    assert "OperationalError" not in worker.log.read_text()  # handled, not a task failure


def _terminate_other_sessions() -> int:
    """Terminate every other session on this test's database (a worker's); how many."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        (terminated,) = cursor.fetchone() or (0,)
    return int(terminated)


@pytest.mark.timeout(600)
def test_a_worker_keeps_its_database_session_from_match_to_match(
    start_worker: StartWorker,
) -> None:
    """A worker keeps its PostgreSQL session across its matches, as the web keeps its own
    (``CONN_MAX_AGE``), where Celery's Django fixup would open a new one for every task (about 14
    ms of the server's CPU per match); a session that died meanwhile costs the next match
    nothing (checked before reuse, ``CONN_HEALTH_CHECKS``): one attempt each, no error."""
    if connection.vendor != "postgresql":
        pytest.skip("reads and terminates PostgreSQL sessions (CI runs on PostgreSQL)")
    first = slow_tournament(2)  # one match
    worker = start_worker("w")
    wait_until(lambda: finished(first), [worker], "the first tournament")
    wait_until(rated_with_reaper(first), [worker], "its ratings")
    assert _terminate_other_sessions() >= 1  # the worker is idle: its kept session dies
    tournament = slow_tournament(3)  # three more matches, one after the other
    wait_until(lambda: finished(tournament), [worker], "the tournament")
    wait_until(rated_with_reaper(tournament), [worker], "the ratings")
    assert_recorded_exactly_once(tournament)
    assert set(tournament.matches.values_list("attempts", flat=True)) == {1}
    assert "OperationalError" not in worker.log.read_text()
    # the last match was claimed and recorded on a session opened before it started
    last = tournament.matches.order_by("-started_at").first()
    assert last is not None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_start < %s",
            [last.started_at],
        )
        (kept,) = cursor.fetchone() or (0,)
    assert kept >= 1


@pytest.mark.timeout(600)
def test_a_match_over_the_time_limit_is_retried_then_the_platforms_error(
    start_worker: StartWorker, held_matches: list[int]
) -> None:
    """At the task's (soft) time limit the match is given back for another attempt; after the
    attempt cap it ends in ``error``, charged to no bot and never rated; the tournament still
    completes. The limits travel in the message: this process sends with a 3 s limit, and so
    does the worker when it re-queues (ARENA_TASK_TIME_LIMIT_S)."""
    tournament = slow_tournament(2, source=GLACIAL)
    [match] = tournament.matches.all()
    run_match_task.apply_async((match.pk,), soft_time_limit=3, time_limit=63)
    worker = start_worker("limited", "--pool=prefork", "--concurrency=1",
                          env={"ARENA_TASK_TIME_LIMIT_S": "3"})  # fmt: skip
    wait_until(lambda: finished(tournament), [worker], "the tournament")
    assert_charged_to_no_bot(tournament, match, "it ran past the task's time limit")


@pytest.mark.timeout(600)
def test_a_match_whose_worker_dies_on_every_attempt_is_the_platforms_error(
    start_worker: StartWorker,
) -> None:
    """What the hard time limit does (the pool kills the process running the task), done with
    SIGKILL: the reaper re-queues the match until the attempt cap, then ends it in ``error``."""
    tournament = slow_tournament(2, source=GLACIAL)
    [match] = tournament.matches.all()
    cap = settings.ARENA_MATCH_MAX_ATTEMPTS
    for attempt in range(1, cap + 1):
        worker = start_worker(f"doomed{attempt}")
        assert wait_playing(worker, []).pk == match.pk
        kill(worker)
        if attempt < cap:
            reap_orphan(match)
    match.refresh_from_db()
    assert match.deadline is not None
    assert matches_reap(now=match.deadline + timedelta(seconds=1)) == {
        "requeued": 0, "errored": 1,
    }  # fmt: skip
    assert finished(tournament)
    assert_charged_to_no_bot(tournament, match, "its worker was lost")


def assert_charged_to_no_bot(tournament: Tournament, match: Match, reason: str) -> None:
    match.refresh_from_db()
    cap = settings.ARENA_MATCH_MAX_ATTEMPTS
    assert match.status == MatchStatus.ERROR and match.attempts == cap
    assert f"{reason} {cap} times; not charged to any bot" in match.error
    assert set(match.seats.values_list("fault", flat=True)) == {""}
    assert not RatingChange.objects.filter(match=match).exists()
    assert not MatchReplay.objects.filter(match=match).exists()
    assert [s.matches for s in tournament_table(tournament=tournament).standings] == [0, 0]


def test_recording_reconnects_once_after_the_connection_was_terminated() -> None:
    """The unit behind the dropped-connection scenario: a terminated connection fails the next
    query; ``_reconnecting`` opens a new one and runs the recording again."""
    import psycopg

    from matches.services import _reconnecting
    from tests.platform.workers import database_url

    if connection.vendor != "postgresql":
        pytest.skip("terminates a PostgreSQL backend (CI runs on PostgreSQL)")

    def terminate_mine() -> None:
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            (pid,) = cursor.fetchone() or (0,)
        with psycopg.connect(database_url(connection.settings_dict), autocommit=True) as other:
            other.execute("SELECT pg_terminate_backend(%s)", [pid])

    terminate_mine()
    with pytest.raises(OperationalError):
        Match.objects.exists()
    connection.close()
    terminate_mine()
    assert _reconnecting(lambda: not Match.objects.exists())
