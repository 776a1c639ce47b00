"""Redis stopped for 10 s mid-tournament, then started again empty (no persistence: every
queued message is lost). The database is the source of truth: the reaper sees that the broker
lost its marker key, re-sends every match left queued at once (without waiting for
``ARENA_MATCH_REDISPATCH_S``), and the tournament completes with every match recorded exactly
once.

The test runs a PRIVATE redis-server on a free loopback port (never the shared one): this
module's ``redis_broker_url`` replaces conftest's, so its workers use it, and this process sends
through a Celery app of its own bound to it.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from celery import Celery
from kombu import Connection

from arena.celery import BROKER_MARKER, app, queue_config
from tests.platform.test_reliability import (
    all_rated,
    assert_recorded_exactly_once,
    finished,
    slow_tournament,
    wait_playing,
    wait_until,
)
from tests.platform.workers import StartWorker

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
OUTAGE_S = 10


class PrivateRedis:
    """A throw-away redis-server on 127.0.0.1 that can be stopped and started again."""

    def __init__(self, folder: Path) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        deadline = time.monotonic() + 30
        while True:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = PrivateRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_broker_url(private_redis: PrivateRedis) -> str:
    """conftest's workers use the private server."""
    return private_redis.url


@pytest.mark.timeout(600)
def test_redis_stopped_for_ten_seconds_mid_tournament(
    start_worker: StartWorker, private_redis: PrivateRedis, held_matches: list[int]
) -> None:
    tournament = slow_tournament(3)  # 3 matches, held: sent below through the private broker
    sender = Celery("arena-test-sender", set_as_current=False)
    sender.conf.update(task_serializer="json", **{k: app.conf[k] for k in queue_config()})

    def send(name: str, *args: int) -> None:
        # an explicit connection: Celery prefers the CELERY_BROKER_URL variable to any setting
        with Connection(private_redis.url) as broker:
            sender.send_task(name, args=args, connection=broker)

    # ARENA_MATCH_REDISPATCH_S stays at its default (10 minutes): the restart itself is seen
    worker = start_worker("w")
    for match_id in held_matches:
        send("arena.matches.run", match_id)
    marker = str(app.conf.arena_queue_prefix) + BROKER_MARKER
    redis.Redis.from_url(private_redis.url).set(marker, "set by an earlier reaper")
    wait_playing(worker, [])

    private_redis.stop()  # the broker is gone for OUTAGE_S; its queue dies with it
    time.sleep(OUTAGE_S)  # the outage itself (nothing is awaited here)
    worker.assert_alive()
    private_redis.start()
    back = time.monotonic()

    last_reap = 0.0

    def reaped_and_done() -> bool:  # beat's reaper task (the worker's thread may take the turn)
        nonlocal last_reap
        if time.monotonic() - last_reap > 2:
            send("arena.matches.reap")
            last_reap = time.monotonic()
        return finished(tournament) and all_rated(tournament)

    wait_until(reaped_and_done, [worker], "the tournament after the outage", timeout_s=300)
    print(f"the tournament done {time.monotonic() - back:.0f} s after the broker's return")
    assert_recorded_exactly_once(tournament)
    log = worker.log.read_text()
    assert "Connection to broker lost" in log or "Cannot connect" in log  # it did notice
    assert "the broker lost its queues" in log  # and the reaper re-sent what was queued
    sender.close()
