"""End to end on real parts: PostgreSQL (under CI), Redis, real Celery worker processes that
share nothing with this (web) process but the database and the broker, and the sandbox.

Bots are uploaded here; workers with their own empty working directory, media folder, package
cache and temp dir validate them and play a round robin; standings, ladder, cross-table and
replays are checked, a duplicated delivery records nothing, and a worker killed with SIGKILL
mid-match is recovered by the reaper.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

import engine
from bots.house import package_bytes
from bots.models import Bot, BotVersion, BotVersionStatus
from bots.services import bot_create_with_version
from matches.heartbeats import live_match_slots
from matches.models import UNFINISHED, Match, MatchOrigin, MatchStatus
from matches.selectors import match_replay
from matches.services import MatchSpec, matches_create, matches_reap
from matches.tasks import run_match_task
from ops.services import heartbeat_send
from ratings.models import Ladder, Rating, RatingChange
from ratings.selectors import ladder_standings
from ratings.services import ladder_for_game, ladder_recompute
from sandbox.bytecode import FAILED
from tests.platform.factories import CRASHES, FIRST_LEGAL, SLOW, UserFactory
from tests.platform.workers import StartWorker, Worker
from tournaments.models import TournamentStatus
from tournaments.selectors import tournament_progress, tournament_table
from tournaments.services import ladder_schedule, tournament_create

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def wait_until(condition: Callable[[], bool], workers: list[Worker], what: str,
               timeout_s: float = 180) -> None:  # fmt: skip
    deadline = time.monotonic() + timeout_s
    while not condition():
        for worker in workers:
            worker.assert_alive()
        if time.monotonic() > deadline:
            logs = "\n".join(w.log.read_text()[-3000:] for w in workers)
            pytest.fail(f"{what}: not within {timeout_s} s\n{logs}")
        time.sleep(0.2)


def drain(worker: Worker) -> None:
    """Wait until the (solo) worker has handled everything sent before now: it answers a
    heartbeat sent after those messages only once it got to it."""
    heartbeat = heartbeat_send()
    wait_until(lambda: (heartbeat.refresh_from_db() or heartbeat.answered_at) is not None,
               [worker], "heartbeat")  # fmt: skip


def upload(owner_name: str, name: str, source: str | Path) -> BotVersion:
    if isinstance(source, Path):
        data, filename = package_bytes(source)
    else:
        data, filename = source.encode(), "bot.py"
    return bot_create_with_version(
        owner=UserFactory(username=owner_name), name=name, game="belote", chunks=[data],
        filename=filename,
    )  # fmt: skip


@pytest.mark.timeout(600)
def test_uploads_validate_and_a_round_robin_plays_on_a_worker(start_worker: StartWorker) -> None:
    versions = [
        upload("ada", "heuristic", EXAMPLES / "belote" / "heuristic.py"),
        upload("bob", "first-legal", FIRST_LEGAL),
        upload("cy", "random", EXAMPLES / "random"),  # a zipped folder with bot.toml
        upload("dee", "crasher", CRASHES),
    ]
    assert {v.status for v in versions} == {BotVersionStatus.PENDING}
    worker = start_worker("w1")
    wait_until(
        lambda: not BotVersion.objects.filter(status__in=["pending", "validating"]).exists(),
        [worker], "validation",
    )  # fmt: skip
    statuses = dict(BotVersion.objects.values_list("bot__name", "status"))
    assert statuses == {"heuristic": "active", "first-legal": "active", "random": "active",
                        "crasher": "rejected"}  # fmt: skip
    crasher = BotVersion.objects.get(bot__name="crasher")
    assert crasher.fault == "crash" and "my bug is here" in crasher.log
    # the worker fetched every package from the database into its own cache, and compiled the
    # bytecode of each (all Python bots) once, in the sandbox, into the same cache
    cached = {p.name for p in worker.package_cache.iterdir()}
    assert cached == {v.sha256 for v in versions} | {"bytecode"}
    compiled = list((worker.package_cache / "bytecode").iterdir())
    assert len(compiled) == len(versions)
    assert all(list(c.rglob("*.pyc")) and not (c / FAILED).exists() for c in compiled)

    bots = list(Bot.objects.filter(current_version__status="active").order_by("name"))
    Ladder.objects.filter(pk=ladder_for_game(game="belote").pk).update(params={"target": 500})
    tournament = tournament_create(  # official under the ladder's rules: rated
        created_by=bots[0].owner, name="e2e", game="belote", bot_ids=[b.pk for b in bots],
        params={"target": 500}, rounds=2, official=True,
    )  # fmt: skip
    assert tournament.rated
    wait_until(lambda: (tournament.refresh_from_db() or tournament.status) != "running",
               [worker], "the tournament")  # fmt: skip
    assert tournament.status == TournamentStatus.FINISHED
    progress = tournament_progress(tournament=tournament)
    assert (progress.done, progress.total, progress.failed) == (6, 6, 0)

    standings = tournament_table(tournament=tournament).standings
    assert [s.matches for s in standings] == [4, 4, 4]
    assert sum(s.points for s in standings) == 6.0  # one point per two-entrant match
    cross = tournament_table(tournament=tournament).cross
    for a in cross.bots:
        for b in cross.bots:
            if a != b:
                assert cross.meetings[a, b] == 2
                assert cross.points[a, b] + cross.points[b, a] == 2.0
    for s in standings:
        assert s.points == sum(cross.points[s.bot_id, o] for o in cross.bots if o != s.bot_id)

    for match in tournament.matches.all():
        assert match.status == MatchStatus.FINISHED and match.worker.startswith("w1-")
        replay = match_replay(match_id=match.pk)
        assert len(engine.resimulate(replay)) == 2
        seats = list(match.seats.order_by("seat").select_related("bot_version__bot__owner"))
        assert replay["entrants"] == [str(s.bot_version) for s in seats]
        assert [s.score for s in seats] == replay["result"]["scores"]

    ladder = ladder_for_game(game="belote")
    wait_until(lambda: not Match.objects.filter(ladder=ladder, status="finished",
                                                rated_at__isnull=True).exists(),
               [worker], "rating")  # fmt: skip
    ladder_rows = list(ladder_standings(game="belote"))
    assert sorted(r.games for r in ladder_rows) == [4, 4, 4]
    assert [r.rating for r in ladder_rows] == sorted((r.rating for r in ladder_rows), reverse=True)
    assert RatingChange.objects.count() == 12
    live = list(Rating.objects.order_by("bot_id").values_list("bot_id", "rating"))
    assert ladder_recompute(ladder_id=ladder.pk).rewritten == 0
    assert list(Rating.objects.order_by("bot_id").values_list("bot_id", "rating")) == live

    # a message delivered twice: the second delivery finds the match finished and does nothing
    match = tournament.matches.first()
    assert match is not None
    before = (match.attempts, match.finished_at, match.worker)
    run_match_task.delay(match.pk)
    drain(worker)
    match.refresh_from_db()
    assert (match.attempts, match.finished_at, match.worker) == before
    assert RatingChange.objects.filter(match=match).count() == 2


@pytest.mark.timeout(600)
def test_the_reaper_recovers_a_match_whose_worker_was_killed(start_worker: StartWorker) -> None:
    bots = []
    for name in ("slow-a", "slow-b"):
        version = upload(name, name, SLOW + f"# {name}\n")
        bots.append(version)
    first = start_worker("doomed")
    wait_until(lambda: BotVersion.objects.filter(status="active").count() == 2, [first],
               "validation")  # fmt: skip
    versions = [BotVersion.objects.get(pk=v.pk) for v in bots]
    Ladder.objects.filter(pk=ladder_for_game(game="belote").pk).update(
        params={"target": 300}, scheduling=False,  # its result tops no queue up: this match only
    )  # fmt: skip
    [match] = matches_create(  # a ladder match, so that its rating is checked too
        game="belote", params={"target": 300}, duplicate=True, origin=MatchOrigin.LADDER,
        specs=[MatchSpec(entrants=versions)],
    )  # fmt: skip
    assert match.rated
    wait_until(lambda: (match.refresh_from_db() or match.status) == "running", [first],
               "the claim")  # fmt: skip
    time.sleep(1.0)  # well inside the match (several seconds of deliberate thinking)
    os.kill(first.process.pid, signal.SIGKILL)
    first.process.wait(timeout=30)
    match.refresh_from_db()
    assert match.status == MatchStatus.RUNNING and match.attempts == 1  # orphaned

    assert matches_reap() == {"requeued": 0, "errored": 0}  # its lease has not expired yet
    assert matches_reap(now=timezone.now() + timedelta(hours=1)) == {"requeued": 1, "errored": 0}
    second = start_worker("rescuer")
    wait_until(lambda: (match.refresh_from_db() or match.status) == "finished", [second],
               "the re-queued match", timeout_s=240)  # fmt: skip
    assert match.attempts == 2 and match.worker.startswith("rescuer-")
    assert match.seats.exclude(fault="").count() == 0  # no bot was blamed
    assert len(engine.resimulate(match_replay(match_id=match.pk))) == 2
    wait_until(lambda: RatingChange.objects.filter(match=match).count() == 2, [second],
               "rating")  # fmt: skip


@pytest.mark.timeout(600)
def test_each_ladder_result_tops_the_queue_up_on_the_worker(start_worker: StartWorker) -> None:
    """Without beat: the ladder keeps as many matches pending as the live workers play at once
    (a solo worker: one), and the worker that records a result chooses the next match."""
    for owner, name in (("ada", "first-a"), ("bob", "first-b")):
        upload(owner, name, FIRST_LEGAL + f"# {name}\n")
    worker = start_worker("w1")
    wait_until(lambda: BotVersion.objects.filter(status="active").count() == 2, [worker],
               "validation")  # fmt: skip
    assert live_match_slots() == 1  # its heartbeat says: one match at a time
    Ladder.objects.filter(pk=ladder_for_game(game="belote").pk).update(params={"target": 300})
    ladder = ladder_for_game(game="belote")
    assert len(ladder_schedule(ladder=ladder)) == 1  # the first match: beat's part
    played = Match.objects.filter(ladder=ladder, origin=MatchOrigin.LADDER)
    wait_until(lambda: played.filter(status=MatchStatus.FINISHED).count() >= 3, [worker],
               "three ladder results, each match queued by the last one's result")  # fmt: skip
    Ladder.objects.filter(pk=ladder.pk).update(scheduling=False)
    drain(worker)
    assert played.filter(status__in=UNFINISHED).count() <= 1  # never more than the slots
    assert not played.filter(status=MatchStatus.ERROR).exists()
