import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NoReturn

import pytest
import redis
from django.conf import settings
from django.core.cache import cache
from django.db import connection

from arena.celery import QUEUES, app, queue_config
from tests.platform.workers import StartWorker, Worker, database_url

ROOT = Path(__file__).resolve().parents[2]


def unavailable(reason: str) -> NoReturn:
    """Skip a test whose outside prerequisite is missing. Under CI, where .ci/run provides every
    prerequisite, fail instead: a silent skip there would hide a broken set-up."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(autouse=True)
def pages_rendered_afresh(settings: Any) -> None:
    """Every request renders its page and a ladder's figures follow its latest result
    (``arena.pagecache`` and ``ratings.selectors._cached`` have their own tests): a test that
    changes data and reads a page again must see the change at once."""
    settings.ARENA_PAGE_CACHE_SECONDS = 0
    settings.ARENA_FIGURES_REFRESH_SECONDS = 0


@pytest.fixture(autouse=True)
def no_rate_limit_history() -> None:
    """Every test starts with no requests counted against its address: the rate limiters count
    in this process's cache, which outlives a test, and a test that sent many (the API fuzzing
    asks for dozens of tokens) would otherwise throttle the next test's log-in within the
    minute."""
    cache.clear()


@pytest.fixture
def redis_broker_url() -> str:
    """The configured Redis broker, skipping the test if it does not answer."""
    url: str = settings.CELERY_BROKER_URL
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        unavailable(f"Redis is not reachable at CELERY_BROKER_URL={url} ({error})")
    return url


@pytest.fixture
def chromium_path() -> str:
    path = shutil.which("chromium")
    if path is None:
        unavailable("Chromium is not installed: scripts/test.sh installs Debian's chromium as root")
    return path


@pytest.fixture
def start_worker(redis_broker_url: str, tmp_path: Path) -> Iterator[StartWorker]:
    """Start real worker processes on queues of this test's own (a fresh prefix), so concurrent
    test runs sharing this Redis never take each other's messages. Each worker gets the test
    database and the broker and nothing else: its own empty working directory, media folder,
    package cache and temp dir. This process sends tasks through the broker while it runs."""
    prefix = f"itest-{uuid.uuid4().hex[:10]}-"
    workers: list[Worker] = []
    temps: list[Path] = []

    def start(name: str, *args: str, env: Mapping[str, str] | None = None) -> Worker:
        """``args`` are added to (and may override) the worker's command line, ``env`` to
        its environment (e.g. ``--pool=prefork``, a short time limit)."""
        home = tmp_path / name
        for folder in ("cwd", "media", "package-cache"):
            (home / folder).mkdir(parents=True)
        # its temp dir holds the staged bots, which the sandbox uid must reach: pytest's own
        # tmp_path is private to root, so this one lives in the system's temp folder
        temp = Path(tempfile.mkdtemp(prefix=f"arena-{name}-"))
        temp.chmod(0o711)
        temps.append(temp)
        env = os.environ | {
            "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
            "DJANGO_SETTINGS_MODULE": "arena.settings",
            "DATABASE_URL": database_url(connection.settings_dict),
            "CELERY_BROKER_URL": redis_broker_url,
            "ARENA_EXECUTION": "celery",
            "ARENA_QUEUE_PREFIX": prefix,
            "MEDIA_ROOT": str(home / "media"),
            "ARENA_PACKAGE_CACHE": str(home / "package-cache"),
            "TMPDIR": str(temp),
            # one host: the sandbox's uid pool is shared by every worker on it
            "ARENA_SANDBOX_LOCKS": str(tmp_path / "uid-locks"),
            **(env or {}),
        }
        queues = ",".join(prefix + q for q in QUEUES)
        command = [sys.executable, "-m", "celery", "--app=arena", "worker", "--pool=solo",
                   f"--queues={queues}", f"--hostname={name}-{prefix}@%h", "--without-gossip",
                   "--without-mingle", "--loglevel=INFO", *args]  # fmt: skip
        log = home / "worker.log"
        with log.open("wb") as output:
            process = subprocess.Popen(
                command, cwd=home / "cwd", env=env, stdout=output, stderr=output
            )
        worker = Worker(name, process, log, home)
        workers.append(worker)
        return worker

    saved = {key: app.conf[key] for key in ("task_always_eager", *queue_config())}
    app.conf.update(task_always_eager=False, **queue_config(prefix))
    try:
        yield start
    finally:
        app.conf.update(saved)
        for worker in workers:
            if worker.process.poll() is None:
                worker.process.terminate()  # warm shutdown
                try:
                    worker.process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    worker.process.kill()
                    worker.process.wait()
        for temp in temps:
            shutil.rmtree(temp, ignore_errors=True)
        client = redis.Redis.from_url(redis_broker_url)
        for queue in QUEUES:
            name = prefix + queue
            client.delete(name, f"_kombu.binding.{name}", f"_kombu.binding_permanent.{name}")


@pytest.fixture
def held_matches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Keep new matches queued: the ids their run tasks would be sent for are collected instead
    (inline execution would otherwise play them as soon as they are committed)."""
    held: list[int] = []
    monkeypatch.setattr("matches.services._enqueue", held.extend)
    return held
