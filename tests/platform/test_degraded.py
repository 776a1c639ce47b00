"""The site with its cache or its broker away (issue 30): pages and API reads are served, rate
limits still refuse, a write that committed answers success and its dispatch is re-sent later,
and readiness says which part is down.

"Away" is real: the cache or the broker is pointed at a closed loopback port (connection
refused), or at a server that accepts connections and never answers. "Back" is this machine's
Redis (CELERY_BROKER_URL's server) in a database of its own with queue names of this test's own,
or a private redis-server started and stopped by the test.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings as django_settings
from django.core.cache import caches
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connections
from django.test import Client
from pytest_django import Settings

from arena import dispatch
from arena.cache import FallbackRedisCache
from arena.celery import QUEUES, app, queue_config
from bots.models import BotVersion, BotVersionStatus
from bots.services import botversions_redispatch
from matches.models import Match, MatchStatus
from matches.services import matches_redispatch
from tests.platform.api_fixtures import World, world_fixture  # noqa: F401
from tests.platform.factories import FIRST_LEGAL
from tests.platform.test_reliability_broker import PrivateRedis
from tournaments.models import Tournament
from tournaments.services import tournament_create, tournaments_reschedule

AWAY = "redis://127.0.0.1:1/0"  # nothing listens on port 1: connection refused


def redis_cache(location: str, *, timeout_s: float = 0.25, retry_s: int = 60) -> dict[str, Any]:
    return {
        "default": {
            "BACKEND": "arena.cache.FallbackRedisCache",
            "LOCATION": location,
            "KEY_PREFIX": f"arena-test-{uuid.uuid4().hex[:8]}",
            "OPTIONS": {
                "socket_connect_timeout": timeout_s,
                "socket_timeout": timeout_s,
                "retry_s": retry_s,
            },
        }
    }


def own_redis_db() -> str:
    """CELERY_BROKER_URL's Redis server, database 11 (this suite's own)."""
    url = django_settings.CELERY_BROKER_URL
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        pytest.skip(f"Redis is not reachable at {url} ({error})")
    return url.rsplit("/", 1)[0] + "/11"


@pytest.fixture
def cache_away(settings: Settings) -> FallbackRedisCache:
    """The shared cache is a Redis that refuses connections; the page cache is on."""
    settings.CACHES = redis_cache(AWAY)
    settings.ARENA_PAGE_CACHE_SECONDS = 5
    away = caches["default"]
    assert isinstance(away, FallbackRedisCache)
    away.fallback.clear()  # this process's counts from earlier tests
    return away


@contextmanager
def broker_at(url: str, **transport: float) -> Iterator[str]:
    """This process sends its tasks through the broker at ``url`` (not inline; ``transport``
    options override the broker's, e.g. its ``socket_timeout``), to queues named with a prefix
    of its own; the prefix. Celery keeps the connection pools it made for the first URL: they
    are dropped, as Celery itself does after a fork; and so is ``arena.dispatch``'s hold after
    a failure (as if ``ARENA_BROKER_RETRY_S`` had passed)."""
    prefix = f"degraded-{uuid.uuid4().hex[:10]}-"
    keys = ("broker_url", "task_always_eager", "broker_transport_options", *queue_config())
    saved = {key: app.conf[key] for key in keys}
    app.conf.update(
        broker_url=url, task_always_eager=False, **queue_config(prefix),
        broker_transport_options=saved["broker_transport_options"] | transport,
    )  # fmt: skip
    # Celery reads the environment's CELERY_BROKER_URL before its own setting (CI sets it)
    saved_env = os.environ.get("CELERY_BROKER_URL")
    os.environ["CELERY_BROKER_URL"] = url
    forget_connections()
    try:
        yield prefix
    finally:
        app.conf.update(saved)
        if saved_env is None:
            del os.environ["CELERY_BROKER_URL"]
        else:
            os.environ["CELERY_BROKER_URL"] = saved_env
        forget_connections()


def forget_connections() -> None:
    app._pool = None  # type: ignore[attr-defined]
    app.amqp._producer_pool = None  # type: ignore[attr-defined]
    dispatch._held_until = 0.0


def sent(url: str, prefix: str) -> list[tuple[str, str]]:
    """The (task name, arguments) of every message waiting in the test's queues at ``url``,
    and empty those queues."""
    client = redis.Redis.from_url(url)
    found = []
    for queue in QUEUES:
        for raw in client.lrange(prefix + queue, 0, -1):
            headers = json.loads(raw)["headers"]
            found.append((headers["task"], headers["argsrepr"]))
        client.delete(prefix + queue, f"_kombu.binding.{prefix + queue}")
    return found


# -- the cache away ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_pages_and_api_reads_are_served_with_the_cache_away(
    cache_away: FallbackRedisCache,
    world: World,
    held_matches: list[int],
    caplog: pytest.LogCaptureFixture,
) -> None:
    tournament = tournament_create(
        created_by=world.users["owner"], name="t", game="belote",
        bot_ids=[world.bot.pk, world.rival.pk],
    )  # fmt: skip
    urls = [
        "/", "/ladder/belote/", f"/bots/{world.bot.pk}/", f"/matches/{world.match.pk}/",
        f"/tournaments/{tournament.pk}/", "/tournaments/",
        "/api/games/", "/api/bots/", f"/api/bots/{world.bot.pk}/", "/api/ladders/belote/",
        f"/api/matches/{world.match.pk}/", f"/api/matches/{world.match.pk}/replay/",
        f"/api/tournaments/{tournament.pk}/", "/api/ladders/belote/strengths/",
    ]  # fmt: skip
    for _ in range(2):  # the second time from this process's own cache
        for url in urls:
            assert Client().get(url).status_code == 200, url
    outage = [r for r in caplog.records if "cannot be reached" in r.getMessage()]
    assert len(outage) <= 1  # logged when the outage starts, not per request
    assert cache_away.outage.down


@pytest.mark.django_db
def test_rate_limits_still_refuse_with_the_cache_away(
    cache_away: FallbackRedisCache, settings: Settings
) -> None:
    settings.ARENA_SIGNUPS_PER_HOUR = 2
    codes = []
    for n in range(3):
        client = Client()
        body = {"username": f"user{n}", "password1": "pw-Xk81-long", "password2": "pw-Xk81-long"}
        codes.append(client.post("/accounts/signup/", body).status_code)
    assert codes == [302, 302, 429]
    token = {"username": "nobody", "password": "wrong", "name": "t"}
    api = [Client().post("/api/auth/token/", token, content_type="application/json").status_code
           for _ in range(31)]  # fmt: skip
    assert api[-1] == 429  # DRF's throttle (ARENA_TOKENS_PER_MINUTE: 30) counts per process


@pytest.mark.django_db
def test_caching_resumes_when_the_cache_returns(
    settings: Settings, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = PrivateRedis(tmp_path)
    settings.CACHES = redis_cache(server.url, retry_s=1)
    shared = caches["default"]
    assert isinstance(shared, FallbackRedisCache)
    shared.fallback.clear()
    shared.outage.retry_at = 0.0
    assert shared.get("k") is None and shared.outage.down  # not started yet: away
    shared.set("k", "local")  # kept by this process meanwhile
    assert shared.get("k") == "local"
    server.start()
    try:
        shared.outage.retry_at = 0.0  # as if ARENA_CACHE_RETRY_S had passed
        assert shared.get("k") is None  # Redis again, which never had it
        assert not shared.outage.down
        shared.set("k", "shared")
        assert redis.Redis.from_url(server.url).dbsize() == 1  # stored in Redis
        assert shared.get("k") == "shared"
    finally:
        server.stop()
    messages = [r.getMessage() for r in caplog.records if r.name == "arena.cache"]
    assert len(messages) == 2 and "cannot be reached" in messages[0] and "back" in messages[1]


# -- the broker away --------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_writes_that_committed_answer_success_and_are_sent_when_the_broker_returns(
    world: World, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    settings.ARENA_EXECUTION = "celery"
    api = world.client("owner")
    with broker_at(AWAY):
        challenge = api.post("/api/challenges/", {"bot": world.bot.pk, "opponents":
                             [world.rival.pk]}, format="json")  # fmt: skip
        tournament = api.post("/api/tournaments/", {"game": "belote", "bots": [world.bot.pk,
                              world.rival.pk], "rounds": 2}, format="json")  # fmt: skip
        package = SimpleUploadedFile("bot.py", f"{FIRST_LEGAL}# 2\n".encode())
        upload = api.post(f"/api/bots/{world.bot.pk}/versions/", {"file": package},
                          format="multipart")  # fmt: skip
        page = Client()
        page.force_login(world.users["owner"])
        form = page.post(f"/bots/{world.bot.pk}/challenge/", {"opponents": [world.rival.pk]})
    assert challenge.status_code == 201, challenge.json()
    assert tournament.status_code == 201, tournament.json()
    assert upload.status_code == 201, upload.json()
    assert form.status_code == 302 and form["Location"].startswith("/matches/")  # its page
    assert BotVersion.objects.get(pk=upload.json()["id"]).status == BotVersionStatus.PENDING
    waiting = Match.objects.filter(status=MatchStatus.QUEUED)
    match_ids = sorted(waiting.values_list("id", flat=True))
    assert len(match_ids) == 2 and set(waiting.values_list("tournament", flat=True)) == {None}
    assert Tournament.objects.get(pk=tournament.json()["id"]).scheduled_at is None
    assert any("not sent (the broker is unreachable" in r.getMessage() for r in caplog.records)

    back = own_redis_db()
    with broker_at(back) as prefix:  # the reaper's next pass, once the broker is back
        # what could not be sent is due at once, not ARENA_MATCH_REDISPATCH_S later
        assert matches_redispatch() == len(match_ids)
        assert botversions_redispatch() == 1
        assert tournaments_reschedule(older_than=timedelta(0)) == 1
        messages = sent(back, prefix)
    runs = sorted(args for task, args in messages if task == "arena.matches.run")
    assert runs == sorted(f"({pk},)" for pk in match_ids)  # each once
    schedules = [args for task, args in messages if task == "arena.tournaments.schedule"]
    assert schedules == [f"({tournament.json()['id']},)"]
    validations = [args for task, args in messages if task == "arena.bots.validate"]
    assert validations == [f"({upload.json()['id']},)"]


@pytest.mark.django_db(transaction=True)
def test_a_hung_broker_costs_one_request_its_timeouts_not_every_request(
    world: World, settings: Settings, silent_server: SilentServer
) -> None:
    settings.ARENA_EXECUTION = "celery"
    api = world.client("owner")
    body = {"bot": world.bot.pk, "opponents": [world.rival.pk]}
    with broker_at(silent_server.url, socket_timeout=0.5, socket_connect_timeout=0.5):
        first = api.post("/api/challenges/", body, format="json")
        tried = len(silent_server.accepted)
        later = [api.post("/api/challenges/", body, format="json") for _ in range(3)]
        assert tried >= 1 and len(silent_server.accepted) == tried  # not tried again
    assert [r.status_code for r in [first, *later]] == [201] * 4
    assert Match.objects.filter(status=MatchStatus.QUEUED).count() == 4


# -- readiness --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_readiness_reports_each_part(settings: Settings) -> None:
    back = own_redis_db()
    settings.ARENA_EXECUTION = "celery"
    settings.CACHES = redis_cache(back)
    with broker_at(back):
        ready = Client().get("/api/health/ready/")
    assert ready.status_code == 200
    body = ready.json()
    assert body["status"] == "ok" and body["cache"] == {"ok": True, "detail": "redis"}
    assert body["broker"]["ok"] and body["database"]["ok"]

    settings.CACHES = redis_cache(AWAY)
    with broker_at(AWAY):
        degraded = Client().get("/api/health/ready/")
    assert degraded.status_code == 200  # the site still serves
    body = degraded.json()
    assert body["status"] == "degraded" and body["database"]["ok"]
    assert body["cache"] == {"ok": False, "detail": "unreachable (ConnectionError)"}
    assert body["broker"] == {"ok": False, "detail": "unreachable (OperationalError)"}
    assert Client().get("/api/health/live/").json() == {"status": "ok"}


@pytest.mark.django_db
def test_readiness_fails_without_the_database(monkeypatch: pytest.MonkeyPatch) -> None:
    # the probe's thread connects anew, with these settings: to a closed port
    monkeypatch.setitem(connections.settings["default"], "PORT", "1")
    monkeypatch.setitem(connections.settings["default"], "HOST", "127.0.0.1")
    response = Client().get("/api/health/ready/")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "failed" and not body["database"]["ok"]
    assert Client().get("/api/health/live/").status_code == 200  # liveness asks nothing


class SilentServer:
    """A loopback server that accepts connections and never answers (a hung host)."""

    def __init__(self) -> None:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.url = f"redis://127.0.0.1:{self.listener.getsockname()[1]}/0"
        self.accepted: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                self.accepted.append(self.listener.accept()[0])
            except OSError:
                return

    def close(self) -> None:
        self.listener.close()
        for connection in self.accepted:
            connection.close()


@pytest.fixture
def silent_server() -> Iterator[SilentServer]:
    server = SilentServer()
    try:
        yield server
    finally:
        server.close()


@pytest.mark.django_db
def test_a_part_that_never_answers_is_reported_timed_out(
    settings: Settings, silent_server: SilentServer
) -> None:
    settings.ARENA_HEALTH_TIMEOUT_S = 1
    settings.CACHES = redis_cache(silent_server.url, timeout_s=30)
    body = Client().get("/api/health/ready/").json()
    assert body["status"] == "degraded"
    assert body["cache"] == {"ok": False, "detail": "no answer within 1 s"}
