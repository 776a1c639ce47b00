"""What a missing cache or broker costs a request (issue 30), with the default timeouts.

    .venv/bin/python benchmarks/degraded.py [--repeat 3]

Three states of each part: *up* (this machine's Redis at ``CELERY_BROKER_URL``'s server,
database 11, keys under a prefix of this run's own), *refused* (a closed loopback port: Redis
stopped) and *silent* (a loopback server that accepts connections and never answers: a hung
host or a network partition, which costs the full timeouts). For each it prints, in this
process (Django's test ``Client``, no HTTP server):

- pages and API reads (home, a ladder, a bot, a match, a tournament; the API's games, ladder,
  match and replay) as an anonymous visitor with the page cache on (its default, 5 s): p50,
  p95 and max over ``--repeat`` passes, and the first request, which finds the part away;
- ``POST /api/challenges/`` (a write whose run task is sent after commit): the first one's
  time, which finds the broker away, and the later ones' median;
- ``GET /api/health/ready/``: its time and status.

Then the issue's scenario over HTTP (``--outage``, default 8 s): the site under gunicorn as
docker-compose runs it (``arena.gunicorn_conf``, ``DEBUG=0``) with one Redis, a private
``redis-server`` on a free loopback port, as both its cache and its broker; four clients read
the pages above in a loop and one posts a challenge every second; Redis is stopped for the
outage and started again empty. It prints, before, during and after the outage, the answers
by status, the reads' p95 and the readiness status seen.

It makes its own test database (``test_`` + ``DEGRADED_DATABASE_URL``'s name, default
``postgres://postgres@127.0.0.1:5432/arena_degraded``) and drops it at the end.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]
os.environ["DATABASE_URL"] = os.environ.get(
    "DEGRADED_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/arena_degraded"
)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
os.environ["ARENA_EXECUTION"] = "celery"

import django

django.setup()

from django.conf import settings
from django.test import Client, override_settings
from django.test.utils import setup_databases, setup_test_environment, teardown_databases

from arena import dispatch
from arena.celery import app, queue_config
from benchmarks.load import _request, free_port, gunicorn

REFUSED = "redis://127.0.0.1:1/0"


@contextmanager
def silent_server() -> Iterator[str]:
    """A loopback server that accepts connections and never answers; its redis:// URL."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
    finally:
        listener.close()
        for held_socket in held:
            held_socket.close()


def cache_at(url: str) -> dict[str, Any]:
    """``CACHES`` as settings.py makes it for ``ARENA_CACHE_URL=url``, with its defaults."""
    default = dict(settings.CACHES["default"]) if "Fallback" in settings.CACHES["default"][
        "BACKEND"] else {"OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.25,
                                     "retry_s": 5}}  # fmt: skip
    return {"default": {"BACKEND": "arena.cache.FallbackRedisCache", "LOCATION": url,
                        "KEY_PREFIX": f"bench-{uuid.uuid4().hex[:8]}",
                        "OPTIONS": dict(default["OPTIONS"])}}  # fmt: skip


@contextmanager
def broker_at(url: str) -> Iterator[None]:
    prefix = f"bench-degraded-{uuid.uuid4().hex[:8]}-"
    saved = {key: app.conf[key] for key in ("broker_url", *queue_config())}
    app.conf.update(broker_url=url, task_always_eager=False, **queue_config(prefix))
    app._pool = None  # type: ignore[attr-defined]  # Celery's pools were made for the old URL
    app.amqp._producer_pool = None  # type: ignore[attr-defined]
    dispatch._held_until = 0.0  # each state starts afresh: its first write tries the broker
    try:
        yield
    finally:
        app.conf.update(saved)
        app._pool = None  # type: ignore[attr-defined]
        app.amqp._producer_pool = None  # type: ignore[attr-defined]
        if url == UP:
            import redis

            client = redis.Redis.from_url(url)
            for key in client.scan_iter(f"{prefix}*"):
                client.delete(key)
            for key in client.scan_iter(f"_kombu.binding.{prefix}*"):
                client.delete(key)


UP = settings.CELERY_BROKER_URL.rsplit("/", 1)[0] + "/11"


def world() -> tuple[list[str], str, dict[str, Any]]:
    """Public URLs over fresh data, a token and a challenge's body."""
    import matches.services
    from api.services import token_create
    from tests.platform.api_fixtures import store_replay
    from tests.platform.factories import UserFactory, active_bot, finished_match
    from tournaments.services import tournament_create

    enqueue = matches.services._enqueue
    matches.services._enqueue = lambda ids: None  # type: ignore[assignment]  # no play here
    owner = UserFactory()
    bots = [active_bot("belote", owner=owner)] + [active_bot("belote") for _ in range(3)]
    versions = [b.current_version for b in bots]
    match = finished_match("belote", versions[:2], [1, 2])  # type: ignore[arg-type]
    store_replay(match)
    with override_settings(CELERY_TASK_ALWAYS_EAGER=True):
        app.conf.task_always_eager = True
        tournament = tournament_create(created_by=owner, name="t", game="belote",
                                       bot_ids=[b.pk for b in bots])  # fmt: skip
    urls = [
        "/", "/ladder/belote/", f"/bots/{bots[1].pk}/", f"/matches/{match.pk}/",
        f"/tournaments/{tournament.pk}/", "/api/games/", "/api/ladders/belote/",
        f"/api/matches/{match.pk}/", f"/api/matches/{match.pk}/replay/",
    ]  # fmt: skip
    matches.services._enqueue = enqueue  # type: ignore[assignment]  # challenges are sent
    token = token_create(user=owner, name="bench")[1]
    return urls, token, {"bot": bots[0].pk, "opponents": [bots[1].pk]}


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds >= 0.0095 else f"{seconds * 1000:.1f} ms"


def pages(urls: list[str], repeat: int) -> tuple[float, list[float]]:
    """The first request's time and every later one's."""
    times = []
    for _ in range(repeat):
        for url in urls:
            start = time.perf_counter()
            status = Client().get(url).status_code
            times.append(time.perf_counter() - start)
            assert status == 200, (url, status)
    return times[0], times[1:]


@contextmanager
def private_redis() -> Iterator[Callable[[bool], str]]:
    """A redis-server without persistence on a free loopback port; yields ``run(on)``, which
    starts (``on``) or stops it and returns its URL."""
    import redis

    port = free_port()
    url = f"redis://127.0.0.1:{port}"
    process: list[subprocess.Popen[bytes]] = []

    def run(on: bool) -> str:
        if not on:
            process.pop().terminate()
            return url
        process.append(subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "",
             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        ))  # fmt: skip
        for _ in range(100):
            try:
                redis.Redis.from_url(url, socket_connect_timeout=0.5).ping()
                return url
            except redis.RedisError:
                time.sleep(0.1)
        raise RuntimeError("redis-server did not start")

    try:
        yield run
    finally:
        for running in process:
            running.terminate()


def outage(seconds: float, urls: list[str], token: str, challenge: dict[str, Any]) -> None:
    """The issue's scenario over HTTP (see the module's docstring)."""
    from django.db import connection

    from tests.platform.workers import database_url

    phases = {"before": 4.0, "during": seconds, "after": 6.0}
    answers: dict[str, Counter[str]] = defaultdict(Counter)
    reads: dict[str, list[float]] = defaultdict(list)
    readiness: dict[str, Counter[str]] = defaultdict(Counter)
    phase = ["before"]
    stop = threading.Event()

    def reader(offset: int) -> None:
        for url in itertools.islice(itertools.cycle(urls), offset, None):
            if stop.is_set():
                return
            now = phase[0]
            status, took = _request("127.0.0.1", port, "GET", url)
            answers[now][f"read {status}"] += 1
            reads[now].append(took)

    def writer() -> None:
        body = json.dumps(challenge).encode()
        headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
        while not stop.wait(1.0):
            now = phase[0]
            status = _request("127.0.0.1", port, "POST", "/api/challenges/", body, headers)[0]
            answers[now][f"challenge {status}"] += 1

    def prober() -> None:
        while not stop.wait(0.5):
            now = phase[0]
            connection_ = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection_.request("GET", "/api/health/ready/")
            response = connection_.getresponse()
            readiness[now][f"{response.status} {json.loads(response.read())['status']}"] += 1
            connection_.close()

    with private_redis() as redis_server:
        url = redis_server(True)
        env = {"DATABASE_URL": database_url(connection.settings_dict), "ARENA_EXECUTION": "celery",
               "CELERY_BROKER_URL": f"{url}/0", "ARENA_CACHE_URL": f"{url}/1",
               "ARENA_QUEUE_PREFIX": "bench-outage-"}  # fmt: skip
        with gunicorn(env) as site:
            port = int(site.url.rsplit(":", 1)[1])
            threads = [threading.Thread(target=reader, args=(i,)) for i in range(4)]
            threads += [threading.Thread(target=writer), threading.Thread(target=prober)]
            for thread in threads:
                thread.start()
            try:
                for name, length in phases.items():
                    phase[0] = name
                    if name == "during":
                        redis_server(False)
                    elif name == "after":
                        redis_server(True)  # empty: no persistence
                    time.sleep(length)
            finally:
                stop.set()
                for thread in threads:
                    thread.join()
    print(f"\nRedis (cache and broker) stopped for {seconds:g} s under gunicorn, DEBUG=0:")
    print("| phase | answers | reads p95 | readiness |")
    print("|---|---|---|---|")
    for name, length in phases.items():
        counted = ", ".join(f"{key}: {n}" for key, n in sorted(answers[name].items()))
        ready = ", ".join(f"{key}: {n}" for key, n in sorted(readiness[name].items()))
        p95 = statistics.quantiles(reads[name], n=20)[18] if len(reads[name]) > 1 else 0.0
        print(f"| {name} ({length:g} s) | {counted} | {ms(p95)} | {ready} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--outage", type=float, default=8.0, help="seconds Redis is stopped")
    args = parser.parse_args()
    setup_test_environment()
    old = setup_databases(verbosity=0, interactive=False)
    try:
        urls, token, challenge = world()
        rows = []
        with silent_server() as silent:
            for state, url in (("up", UP), ("refused", REFUSED), ("silent", silent)):
                with override_settings(CACHES=cache_at(url), ARENA_PAGE_CACHE_SECONDS=5):
                    first, rest = pages(urls, args.repeat)
                    with broker_at(url):
                        writes = []
                        for _ in range(args.repeat):
                            start = time.perf_counter()
                            response = Client().post(
                                "/api/challenges/", challenge, content_type="application/json",
                                HTTP_AUTHORIZATION=f"Token {token}",
                            )  # fmt: skip
                            writes.append(time.perf_counter() - start)
                            assert response.status_code == 201, response.content
                        start = time.perf_counter()
                        ready = Client().get("/api/health/ready/")
                        ready_s = time.perf_counter() - start
                quantiles = statistics.quantiles(rest, n=20)
                rows.append((
                    state, ms(first), ms(statistics.median(rest)), ms(quantiles[18]),
                    ms(max(rest)), ms(writes[0]), ms(statistics.median(writes[1:])),
                    f"{ready.status_code} {ready.json()['status']} in {ms(ready_s)}",
                ))  # fmt: skip
        print(f"{len(urls)} URLs x {args.repeat} passes; cache and broker in the same state")
        header = ("cache+broker", "first read", "reads p50", "p95", "max", "first challenge",
                  "later p50", "readiness")  # fmt: skip
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
        outage(args.outage, urls, token, challenge)
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
