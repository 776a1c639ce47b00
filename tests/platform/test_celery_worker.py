"""A real Celery worker process, a real Redis broker and the test database (not eager mode)."""

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import redis
from django.db import connection

from arena.celery import app
from ops.models import Heartbeat
from ops.services import heartbeat_send

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def database_url(database: dict[str, Any]) -> str:
    """The DATABASE_URL of the database this test is using (pytest-django's test database)."""
    if connection.vendor == "sqlite":
        return f"sqlite:///{database['NAME']}"  # NAME is absolute: sqlite:////...
    credentials = quote(database["USER"]) + (
        f":{quote(database['PASSWORD'])}" if database["PASSWORD"] else ""
    )
    return f"postgres://{credentials}@{database['HOST']}:{database['PORT']}/{database['NAME']}"


@dataclass
class Worker:
    queue: str
    process: subprocess.Popen[bytes]
    log: Path

    def assert_alive(self) -> None:
        assert self.process.poll() is None, f"worker exited:\n{self.log.read_text()}"


@pytest.fixture
def worker(redis_broker_url: str, tmp_path: Path) -> Iterator[Worker]:
    """A worker consuming a queue of its own, so that concurrent test runs sharing this Redis
    cannot take each other's messages. It uses the same settings module with the test database
    and executes tasks itself; this process sends through the broker instead of running them."""
    queue = f"itest-{uuid.uuid4().hex[:12]}"
    env = os.environ | {
        "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
        "DJANGO_SETTINGS_MODULE": "arena.settings",
        "DATABASE_URL": database_url(connection.settings_dict),
        "CELERY_BROKER_URL": redis_broker_url,
        "ARENA_EXECUTION": "celery",
    }
    command = [sys.executable, "-m", "celery", "--app=arena", "worker", "--pool=solo"]
    command += [f"--queues={queue}", f"--hostname={queue}@%h", "--without-gossip"]
    command += ["--without-mingle", "--loglevel=INFO"]
    log = tmp_path / "worker.log"
    with log.open("wb") as output:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=output)
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    try:
        yield Worker(queue=queue, process=process, log=log)
    finally:
        app.conf.task_always_eager = eager
        process.terminate()  # warm shutdown
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        keys = (queue, f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}")
        redis.Redis.from_url(redis_broker_url).delete(*keys)


def test_worker_answers_a_heartbeat_sent_through_redis(worker: Worker) -> None:
    heartbeat = heartbeat_send(queue=worker.queue)
    deadline = time.monotonic() + 60
    while heartbeat.answered_at is None:
        worker.assert_alive()
        assert time.monotonic() < deadline, f"no answer in 60 s:\n{worker.log.read_text()}"
        time.sleep(0.1)
        heartbeat.refresh_from_db()
    assert heartbeat.answered_by == f"{worker.queue}@{socket.gethostname()}"
    assert Heartbeat.objects.filter(answered_at__isnull=True).count() == 0
    worker.assert_alive()
