"""Workers' heartbeats and the reaper (``matches.heartbeats``): a claim whose worker stopped
beating is re-queued long before its lease ends, a worker that beats keeps its claims, a worker
judged lost records nothing with its stale token, and a broker that restarted empty gets every
queued match and validation at once. The real processes (a worker killed, Redis restarted) are in
``test_reliability.py`` and ``test_reliability_broker.py``."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta
from types import SimpleNamespace

import pytest
import redis
from celery.concurrency.solo import TaskPool as SoloPool
from django.conf import settings
from django.db.models.functions import Now
from django.test import Client
from django.utils import timezone

import bots.services
from arena.celery import (
    BROKER_MARKER,
    QUEUES,
    REAP_INTERVAL_S,
    REAPER_TURN,
    _match_slots,
    app,
    broker_restarted,
    queue_name,
    reaper_turn,
)
from bots.models import BotVersion, BotVersionStatus
from matches import heartbeats
from matches.heartbeats import worker_beat, workers_forget, workers_lost
from matches.models import Match, MatchStatus, WorkerHeartbeat
from matches.reaper import reap, reap_if_due
from matches.services import match_claim, match_record_error, matches_reap, matches_redispatch
from tests.platform.factories import active_bot
from tests.platform.test_matches import queued_match

pytestmark = pytest.mark.django_db(transaction=True)


def silent_for(name: str, seconds: float) -> None:
    """The worker ``name`` last beat ``seconds`` ago."""
    WorkerHeartbeat.objects.filter(name=name).update(beat_at=Now() - timedelta(seconds=seconds))


def test_a_worker_is_lost_after_its_silence_only_while_another_beats() -> None:
    worker_beat(name="a")
    worker_beat(name="b")
    assert WorkerHeartbeat.objects.count() == 2 and not workers_lost()
    silent_for("a", settings.ARENA_WORKER_LOST_S + 1)
    assert list(workers_lost()) == ["a"]
    silent_for("b", settings.ARENA_WORKER_LOST_S + 5)  # nobody beats: the database was away
    assert not workers_lost()
    worker_beat(name="a")  # a beats again, once more alive (the same row)
    assert list(workers_lost()) == ["b"] and WorkerHeartbeat.objects.count() == 2
    worker_beat(name="c")
    silent_for("b", 2 * 86_400)
    assert workers_forget(names=["c"]) == 2  # c dealt with, b gone for a day
    assert list(WorkerHeartbeat.objects.values_list("name", flat=True)) == ["a"]


def test_a_silent_workers_match_is_requeued_before_its_lease_ends(
    held_matches: list[int],
) -> None:
    bots_ = [active_bot("badugi") for _ in range(2)]
    lost, slow = queued_match("badugi", bots_), queued_match("badugi", bots_)
    worker_beat(name="killed")
    worker_beat(name="slow")
    old_token = match_claim(match_id=lost.pk, worker="killed")
    assert old_token is not None and match_claim(match_id=slow.pk, worker="slow")
    silent_for("killed", settings.ARENA_WORKER_LOST_S - 5)
    assert matches_reap() == {"requeued": 0, "errored": 0}  # not silent for long enough yet

    silent_for("killed", settings.ARENA_WORKER_LOST_S + 1)
    held_matches.clear()
    assert matches_reap() == {"requeued": 1, "errored": 0}  # its lease has ~12 minutes to go
    assert held_matches == [lost.pk]  # sent again
    lost.refresh_from_db()
    assert lost.status == MatchStatus.QUEUED and lost.worker == "" and lost.run_token is None
    assert Match.objects.get(pk=slow.pk).status == MatchStatus.RUNNING  # its worker beats

    # the worker judged lost was only slow after all: its claim records nothing
    new_token = match_claim(match_id=lost.pk, worker="slow")
    assert new_token is not None
    assert not match_record_error(match_id=lost.pk, token=old_token, error="late")
    lost.refresh_from_db()
    assert lost.status == MatchStatus.RUNNING and lost.run_token == new_token
    assert lost.attempts == 2


def test_a_lost_worker_has_what_was_queued_before_it_died_sent_again(
    held_matches: list[int],
) -> None:
    """It may have held messages unacknowledged, out of everyone's reach until the broker's
    visibility timeout: the matches queued before it died are sent again, once (its heartbeat
    is forgotten); those sent after it died cannot have reached it."""
    bots_ = [active_bot("badugi") for _ in range(2)]
    running, waiting = queued_match("badugi", bots_), queued_match("badugi", bots_)
    later = queued_match("badugi", bots_)
    worker_beat(name="killed")
    worker_beat(name="alive")
    assert match_claim(match_id=running.pk, worker="killed")
    silent_for("killed", settings.ARENA_WORKER_LOST_S + 1)
    Match.objects.filter(pk=waiting.pk).update(queued_at=timezone.now() - timedelta(minutes=1))
    held_matches.clear()
    reaped = reap()
    assert reaped.lost_workers == ["killed"] and reaped.requeued == 1 and reaped.resent == 1
    assert set(held_matches) == {running.pk, waiting.pk} and later.pk not in held_matches
    assert not WorkerHeartbeat.objects.filter(name="killed").exists()
    held_matches.clear()
    assert reap().resent == 0 and held_matches == []  # once
    assert Match.objects.filter(status=MatchStatus.QUEUED).count() == 3


def test_a_claim_without_a_heartbeat_waits_for_its_lease(held_matches: list[int]) -> None:
    """A task run in-process (no heartbeat) or a worker of an earlier release."""
    match = queued_match("badugi", [active_bot("badugi") for _ in range(2)])
    worker_beat(name="other")
    assert match_claim(match_id=match.pk, worker="inline")
    assert matches_reap() == {"requeued": 0, "errored": 0}
    assert matches_reap(now=timezone.now() + timedelta(days=1))["requeued"] == 1


def test_a_silent_workers_validation_goes_back_to_pending(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[int] = []
    monkeypatch.setattr(bots.services, "_enqueue_validation", lambda pk, **_: sent.append(pk))
    version = active_bot("badugi").current_version
    assert version is not None
    token = uuid.uuid4()
    BotVersion.objects.filter(pk=version.pk).update(
        status=BotVersionStatus.VALIDATING, run_token=token, worker="killed", attempts=1,
        deadline=timezone.now() + timedelta(minutes=10),
    )  # fmt: skip
    worker_beat(name="killed")
    worker_beat(name="alive")
    assert bots.services.botversions_reap() == 0
    silent_for("killed", settings.ARENA_WORKER_LOST_S + 1)
    assert bots.services.botversions_reap() == 1 and sent == [version.pk]
    version.refresh_from_db()
    assert version.status == BotVersionStatus.PENDING
    # the lost claim's verdict is refused once another claim holds the version
    BotVersion.objects.filter(pk=version.pk).update(
        status=BotVersionStatus.VALIDATING, run_token=uuid.uuid4()
    )
    assert not bots.services.botversion_transition(
        version_id=version.pk, frm=BotVersionStatus.VALIDATING, to=BotVersionStatus.ACTIVE,
        token=token,
    )  # fmt: skip


def test_everything_queued_is_sent_again_at_once(
    held_matches: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the reaper does when the broker restarted empty; otherwise only what waited
    ``ARENA_MATCH_REDISPATCH_S``."""
    match = queued_match("badugi", [active_bot("badugi") for _ in range(2)])
    sent: list[int] = []
    monkeypatch.setattr(bots.services, "_enqueue_validation", lambda pk, **_: sent.append(pk))
    version = active_bot("badugi").current_version
    assert version is not None
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersionStatus.PENDING)
    held_matches.clear()
    assert matches_redispatch() == 0 and bots.services.botversions_redispatch() == 0
    assert matches_redispatch(queued_before=timezone.now()) == 1 and held_matches == [match.pk]
    assert bots.services.botversions_redispatch(everything=True) == 1 and sent == [version.pk]


def test_the_broker_marker_tells_a_restart_once_and_one_process_reaps_at_a_time() -> None:
    """The marker and the reaper's turn live in the broker, under this run's own prefix."""
    url = settings.CELERY_BROKER_URL
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError:
        pytest.skip(f"no Redis at {url}")
    prefix = f"utest-{uuid.uuid4().hex[:10]}-"
    saved = {k: app.conf[k] for k in ("task_always_eager", "broker_url", "arena_queue_prefix")}
    app.conf.update(task_always_eager=False, broker_url=url, arena_queue_prefix=prefix)
    client = redis.Redis.from_url(url)
    try:
        assert broker_restarted()  # the first look: no marker yet
        assert not broker_restarted() and not broker_restarted()
        client.delete(prefix + BROKER_MARKER)  # what an empty restart does
        assert broker_restarted() and not broker_restarted()
        assert reaper_turn() and not reaper_turn()  # another worker's thread, or beat's task
        assert 0 < client.ttl(prefix + REAPER_TURN) <= REAP_INTERVAL_S
        assert reap_if_due() is None
    finally:
        client.delete(prefix + BROKER_MARKER, prefix + REAPER_TURN)
        app.conf.update(saved)


def test_the_heartbeat_thread_names_the_worker_and_beats(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heartbeats, "_name", None)
    assert heartbeats.worker_name("celery@host") == "celery@host"
    started = threading.Event()
    slots: list[int] = []
    monkeypatch.setattr(heartbeats, "_beat_forever",
                        lambda name, match_slots: slots.append(match_slots) or started.set())
    name = heartbeats.heartbeat_start(hostname="celery@host", match_slots=2)
    assert started.wait(10) and slots == [2]
    assert name.startswith("celery@host ") and heartbeats.worker_name("celery@host") == name
    assert heartbeats.heartbeat_start(hostname="celery@host", match_slots=2) != name  # restart


def test_a_worker_counts_its_processes_as_match_slots_if_it_serves_rated_matches() -> None:
    def worker(pool: object, concurrency: int, *queues: str) -> SimpleNamespace:
        consuming = {queue_name(q): None for q in queues}
        amqp = SimpleNamespace(queues=SimpleNamespace(consume_from=consuming))
        return SimpleNamespace(app=SimpleNamespace(amqp=amqp), pool_cls=pool,
                               concurrency=concurrency)  # fmt: skip

    assert _match_slots(worker("prefork", 3, *QUEUES)) == 3
    assert _match_slots(worker(SoloPool, 3, "rated", "matches")) == 1  # one task at a time
    assert _match_slots(worker("prefork", 3, "ratings")) == 0  # a host for the figures


def test_operators_see_the_workers_heartbeats(admin_client: Client) -> None:
    worker_beat(name="celery@host 1a2b3c4d", match_slots=3)
    response = admin_client.get("/admin/matches/workerheartbeat/")
    assert response.status_code == 200 and b"celery@host 1a2b3c4d" in response.content
    assert b'<td class="field-match_slots">3</td>' in response.content
    assert admin_client.get("/admin/matches/workerheartbeat/add/").status_code == 403
