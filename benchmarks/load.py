"""Load on loopback: simulated users browse ladders, replays and tournaments and others upload
bots while a tournament runs on a Celery worker; the site is served by gunicorn. Both run as
docker-compose.yml starts them: gunicorn with ``arena.gunicorn_conf`` and ``celery --app=arena
worker`` with ``arena.celery``'s settings (2 web processes, 2 worker processes by default), with
nothing added on their command lines but an address and the benchmark's queue names.

    .venv/bin/python benchmarks/load.py [--seconds 60] [--users 50] [--uploaders 5] [--bots 6]

Needs PostgreSQL and Redis on loopback. It DROPS and recreates the database named by
``LOAD_DATABASE_URL`` (default ``postgres://postgres@127.0.0.1:5432/arena_load``) and uses
the Redis database ``LOAD_REDIS_URL`` names (default 14) with queues of its own. Prints
requests, errors and 5xx, p50/p95/p99 latency per page, and the tournament's matches per minute
without load (a first tournament alone, before; the loaded one for as long again once the load
stopped, after) and under load.

``tests/platform/test_load.py`` runs :func:`run_load` for a few seconds against the test
database (zero errors, zero 5xx; latency is never asserted).
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import os
import random
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from statistics import quantiles
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BOT_SOURCE = (ROOT / "examples" / "belote" / "minimal.py").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Uploader:
    token: str
    bot_id: int


@dataclass
class LoadReport:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter[int] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)  # transport errors and unexpected statuses
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, page: str, seconds: float, status: int, expected: Sequence[int]) -> None:
        with self.lock:
            self.latencies[page].append(seconds)
            self.statuses[status] += 1
            if status not in expected:
                self.errors.append(f"{page}: HTTP {status}")

    def error(self, page: str, message: str) -> None:
        with self.lock:
            self.errors.append(f"{page}: {message}")

    @property
    def requests(self) -> int:
        return sum(self.statuses.values())

    @property
    def server_errors(self) -> int:
        return sum(n for status, n in self.statuses.items() if status >= 500)

    def table(self) -> str:
        lines = [f"{'page':<22} {'requests':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}"]
        for page, values in sorted(self.latencies.items()):
            cuts = quantiles(values, n=100, method="inclusive") if len(values) > 1 else values * 99
            p50, p95, p99 = (1000 * cuts[i] for i in (49, 94, 98))
            lines.append(f"{page:<22} {len(values):>8} {p50:>8.0f} {p95:>8.0f} {p99:>8.0f}")
        return "\n".join(lines)


def browse_pages(*, game: str, tournament_ids: Sequence[int], match_ids: Sequence[int],
                 bot_ids: Sequence[int]) -> dict[str, list[str]]:  # fmt: skip
    """Page kind -> the URLs a browsing user picks from."""
    return {
        "home": ["/"],
        "ladder page": [f"/ladder/{game}/"],
        "ladder api": [f"/api/ladders/{game}/"],
        "tournament page": [f"/tournaments/{t}/" for t in tournament_ids],
        "tournament partial": [f"/tournaments/{t}/progress/" for t in tournament_ids],
        "tournament api": [f"/api/tournaments/{t}/" for t in tournament_ids],
        "match page": [f"/matches/{m}/" for m in match_ids],
        "replay api": [f"/api/matches/{m}/replay/" for m in match_ids],
        "bot page": [f"/bots/{b}/" for b in bot_ids],
    }


def _request(host: str, port: int, method: str, path: str, body: bytes | None = None,
             headers: Mapping[str, str] | None = None) -> tuple[int, float]:  # fmt: skip
    connection = http.client.HTTPConnection(host, port, timeout=60)
    started = time.perf_counter()
    try:
        connection.request(method, path, body=body, headers=dict(headers or {}))
        response = connection.getresponse()
        response.read()
        return response.status, time.perf_counter() - started
    finally:
        connection.close()


def _multipart(data: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="bot.py"\r\n'
        "Content-Type: text/x-python\r\n\r\n"
    ).encode()
    body += data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def run_load(base_url: str, *, seconds: float, users: int, pages: Mapping[str, Sequence[str]],
             uploaders: Sequence[Uploader], think_s: float = 1.0,
             upload_every_s: float = 5.0) -> LoadReport:  # fmt: skip
    """``users`` threads browse ``pages`` (a random page, then ``think_s`` of reading) and each
    uploader posts a new version of its bot every ``upload_every_s`` (the first at a random
    point of that interval), for ``seconds``."""
    host, port = host_port(base_url)
    report = LoadReport()
    stop = time.monotonic() + seconds
    kinds = [kind for kind, urls in pages.items() if urls]

    def browse(seed: int) -> None:
        rng = random.Random(seed)
        while time.monotonic() < stop:
            kind = rng.choice(kinds)
            try:
                status, took = _request(host, port, "GET", rng.choice(pages[kind]))
                report.add(kind, took, status, (200,))
            except OSError as err:
                report.error(kind, f"{type(err).__name__}: {err}")
            time.sleep(rng.uniform(0, 2 * think_s))

    def upload(uploader: Uploader) -> None:
        due = time.monotonic() + random.Random(uploader.bot_id).uniform(0, upload_every_s)
        while True:
            time.sleep(max(0.0, min(due, stop) - time.monotonic()))
            if time.monotonic() >= stop:
                break
            due += upload_every_s
            data = f"{BOT_SOURCE}# {uuid.uuid4().hex}\n".encode()
            body, content_type = _multipart(data)
            headers = {"Authorization": f"Token {uploader.token}", "Content-Type": content_type}
            try:
                path = f"/api/bots/{uploader.bot_id}/versions/"
                status, took = _request(host, port, "POST", path, body, headers)
                report.add("upload", took, status, (201,))
            except OSError as err:
                report.error("upload", f"{type(err).__name__}: {err}")

    threads = [threading.Thread(target=browse, args=(n,)) for n in range(users)]
    threads += [threading.Thread(target=upload, args=(u,)) for u in uploaders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return report


def warm_up(base_url: str, pages: Mapping[str, Sequence[str]]) -> None:
    """One visit to the first page of each kind, before the measured window: a site that has
    been up for a while has compiled its templates and cached its ladder's figures (a
    bootstrap and a scan of the stored replays, computed once per new ladder result). The
    other pages of each kind (replays, bots) stay cold."""
    host, port = host_port(base_url)
    for urls in pages.values():
        if urls:
            _request(host, port, "GET", urls[0])


def host_port(base_url: str) -> tuple[str, int]:
    """``("127.0.0.1", 8000)`` from ``"http://127.0.0.1:8000"``."""
    host, _, port = base_url.removeprefix("http://").partition(":")
    return host, int(port)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


#: the site runs as deployed: no debug mode (no query log, no debug pages)
PRODUCTION = {"DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(48), "ALLOWED_HOSTS": "127.0.0.1"}


@dataclass(frozen=True)
class Site:
    url: str
    pid: int  # the server's (gunicorn's master) process


@contextmanager
def gunicorn(env: Mapping[str, str], *, options: Sequence[str] = ()) -> Iterator[Site]:
    """The site under gunicorn on a free loopback port, once it answers, configured as
    docker-compose's web service is (``arena.gunicorn_conf``; ``options`` override it, for
    comparisons only)."""
    port = free_port()
    argv = ["-m", "gunicorn", "--config", "python:arena.gunicorn_conf",
            "--bind", f"127.0.0.1:{port}", *options]  # fmt: skip
    with serve("gunicorn", argv, port, env) as site:
        yield site


@contextmanager
def serve(name: str, argv: Sequence[str], port: int, env: Mapping[str, str]) -> Iterator[Site]:
    """``python argv`` serving the site on loopback ``port`` with production settings and
    ``env``, once its health check answers; stopped after."""
    log = tempfile.NamedTemporaryFile(prefix=f"arena-{name}-", suffix=".log", delete=False)
    process = subprocess.Popen(
        [sys.executable, *argv], cwd=ROOT, stdout=log, stderr=log,
        env={**os.environ, **PRODUCTION, **env,
             "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)])},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if _request("127.0.0.1", port, "GET", "/api/health/")[0] < 500:
                    break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not come up:\n{Path(log.name).read_text()}")
            time.sleep(0.2)
        yield Site(f"http://127.0.0.1:{port}", process.pid)
    finally:
        process.terminate()
        process.wait(timeout=30)
        Path(log.name).unlink(missing_ok=True)


def forget_cache(server: Any) -> None:
    """Delete the site's cache entries from a Redis ``server`` (``ARENA_CACHE_URL``): a new
    database reuses the ids, so an old run's pages would be served for this run's."""
    for key in server.scan_iter("arena:*"):
        server.delete(key)


def _stat_fields(pid: int) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command name (``[1]`` is the parent);
    empty if the process is gone."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return []


def tree_cpu_seconds(root: int) -> float:
    """CPU time (user + system) of ``root`` and all its descendants, the finished ones included
    (a reaped child's time is in its parent's ``cutime``/``cstime``); 0 if it is gone."""
    ticks = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    times: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        fields = _stat_fields(pid)
        if not fields:
            continue
        parents[pid] = int(fields[1])
        times[pid] = sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    tree, frontier = set(), [root]
    while frontier:
        pid = frontier.pop()
        if pid in times and pid not in tree:
            tree.add(pid)
            frontier += [child for child, parent in parents.items() if parent == pid]
    return sum(times[pid] for pid in tree) / ticks


def print_cpu(used: Mapping[str, float], seconds: float) -> None:
    print(f"CPU seconds used in {seconds:.0f} s (2 cores = {2 * seconds:.0f} s available):")
    for name, cpu in used.items():
        print(f"  {name:<40} {cpu:>7.1f} s")


def cpu_meters(web: int | None, workers: Sequence[int]) -> dict[str, Callable[[], float]]:
    """Readers of the CPU seconds used so far by each part of the set-up on this machine."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    postmaster = int(_stat_fields(backend)[1])  # a backend's parent is the postmaster
    meters: dict[str, Callable[[], float]] = {}
    if web is not None:
        meters["web (gunicorn)"] = lambda: tree_cpu_seconds(web)
    meters |= {
        "workers (Celery, sandboxes, bots)": lambda: sum(tree_cpu_seconds(w) for w in workers),
        "PostgreSQL": lambda: tree_cpu_seconds(postmaster),
        "load generator (this process)": lambda: sum(os.times()[:2]),
    }
    redis = [e.parent.name for e in Path("/proc").glob("*/comm") if _comm(e) == "redis-server"]
    if redis:
        meters["Redis"] = lambda: sum(tree_cpu_seconds(int(pid)) for pid in redis)
    return meters


def _comm(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def matches_span_seconds(tournament: Any) -> float:
    """Seconds from the tournament's first claim to its last record."""
    from django.db.models import Max, Min

    span = tournament.matches.aggregate(start=Min("started_at"), end=Max("finished_at"))
    return float((span["end"] - span["start"]).total_seconds())


def matches_per_minute(tournament: Any) -> float:
    """Matches of the tournament per minute, from its first claim to its last record."""
    return float(tournament.matches.count() / (matches_span_seconds(tournament) / 60))


# -- the standalone benchmark ------------------------------------------------------------------


def main() -> None:  # pragma: no cover - a benchmark, run by hand
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--uploaders", type=int, default=5)
    parser.add_argument("--bots", type=int, default=6, help="tournament entrants")
    parser.add_argument(
        "--rounds",
        type=int,
        default=33,  # 495 matches, the most one request may create (ARENA_MATCHES_PER_REQUEST)
        help="tournament rounds (enough for the tournament to outlast the load)",
    )
    parser.add_argument(
        "--upload-every",
        type=float,
        default=60.0,
        help="seconds between one uploader's uploads (default: the most the "
        "platform's default limit, 60 an hour, allows on average)",
    )
    args = parser.parse_args()

    database = os.environ.get("LOAD_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/arena_load")
    prefix = f"load-{os.getpid()}-"
    redis_url = os.environ.get("LOAD_REDIS_URL", "redis://127.0.0.1:6379/14")
    env = {"DATABASE_URL": database, "CELERY_BROKER_URL": redis_url, "ARENA_CACHE_URL": redis_url,
           "ARENA_EXECUTION": "celery", "ARENA_QUEUE_PREFIX": prefix,
           "ARENA_UPLOADS_PER_HOUR": "0", "DJANGO_SETTINGS_MODULE": "arena.settings"}  # fmt: skip
    os.environ.update(env)
    import redis

    broker = redis.Redis.from_url(redis_url)
    forget_cache(broker)
    sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]
    import psycopg

    name = database.rsplit("/", 1)[1]
    with psycopg.connect(database.rsplit("/", 1)[0] + "/postgres", autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}"')
        db.execute(f'CREATE DATABASE "{name}"')
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db.models import Max
    from django.utils import timezone

    from api.services import token_create
    from bots.models import BotVersion
    from bots.services import bot_create_with_version
    from tournaments.services import tournament_create

    call_command("migrate", verbosity=0)
    home = Path(tempfile.mkdtemp(prefix="arena-load-"))
    from arena.celery import QUEUES, app, broker_restarted

    # this run's queue prefix is new to the broker: mark it seen, or the reaper's first pass
    # would take the missing marker for a broker restarted empty and send the first
    # tournament's queued matches again (duplicate claims the "alone" rate would carry)
    broker_restarted()
    queues = [prefix + q for q in QUEUES]
    # docker-compose's worker: every queue (this run's, by ARENA_QUEUE_PREFIX) and
    # ARENA_WORKER_CONCURRENCY processes, from arena.celery
    workers = [subprocess.Popen(
        [sys.executable, "-m", "celery", "--app=arena", "worker", f"--hostname=load-{prefix}@%h"],
        cwd=home, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
             "ARENA_PACKAGE_CACHE": str(home / "cache"), "MEDIA_ROOT": str(home)},
    )]  # fmt: skip
    try:
        owner = User.objects.create(username="load-owner")
        counter = itertools.count()
        entrants = [
            bot_create_with_version(
                owner=owner,
                name=f"entrant{n}",
                game="belote",
                filename="bot.py",
                chunks=[f"{BOT_SOURCE}# {n}\n".encode()],
            ).bot
            for n in range(args.bots)
        ]
        uploaders = []
        for n in range(args.uploaders):
            user = User.objects.create(username=f"uploader{n}")
            version = bot_create_with_version(
                owner=user, name="mine", game="belote", filename="bot.py",
                chunks=[f"{BOT_SOURCE}# up{n}-{next(counter)}\n".encode()],
            )  # fmt: skip
            uploaders.append(Uploader(token_create(user=user, name="load")[1], version.bot_id))
        deadline = time.monotonic() + 300
        while BotVersion.objects.filter(status__in=["pending", "validating"]).exists():
            if time.monotonic() > deadline:
                raise SystemExit("validation did not finish")
            time.sleep(0.5)

        def tournament(label: str) -> Any:
            return tournament_create(
                created_by=owner, name=label, game="belote", bot_ids=[b.pk for b in entrants],
                params={"target": 500}, rounds=args.rounds,
            )  # fmt: skip

        def wait(t: Any) -> None:
            while (t.refresh_from_db() or t.status) == "running":
                time.sleep(0.5)

        # the workers' first matches (imports, package unpacking) before any measurement, as a
        # deployment that has been up a while would have them: otherwise the rate alone before
        # the load carries them and the loaded tournament, started later, does not
        warm = tournament_create(  # by a user of its own: each has an hourly quota of matches
            created_by=User.objects.create(username="load-warm-up"), name="warm-up",
            game="belote", bot_ids=[b.pk for b in entrants], params={"target": 500}, rounds=1,
        )  # fmt: skip
        wait(warm)
        meters = cpu_meters(None, [w.pid for w in workers])
        before = {name: meter() for name, meter in meters.items()}
        quiet = tournament("without load")
        wait(quiet)
        print(f"without load: {quiet.matches.count()} matches")
        print_cpu({name: meter() - before[name] for name, meter in meters.items()},
                  matches_span_seconds(quiet))  # fmt: skip
        pages = browse_pages(
            game="belote", tournament_ids=[quiet.pk],
            match_ids=list(quiet.matches.values_list("id", flat=True)),
            bot_ids=[b.pk for b in entrants],
        )  # fmt: skip
        with gunicorn(env) as site:
            loaded = tournament("under load")
            pages["tournament page"].append(f"/tournaments/{loaded.pk}/")
            pages["tournament partial"].append(f"/tournaments/{loaded.pk}/progress/")
            warm_up(site.url, pages)
            while not loaded.matches.filter(status="finished").exists():
                time.sleep(0.2)  # measure from the tournament's first result
            meters = cpu_meters(site.pid, [w.pid for w in workers])
            before = {name: meter() for name, meter in meters.items()}
            window_start, started = timezone.now(), time.monotonic()
            report = run_load(site.url, seconds=args.seconds, users=args.users, pages=pages,
                              uploaders=uploaders, upload_every_s=args.upload_every)  # fmt: skip
            window = time.monotonic() - started
            used = {name: meter() - before[name] for name, meter in meters.items()}
            in_window = loaded.matches.filter(finished_at__gte=window_start,
                                              finished_at__lte=timezone.now())  # fmt: skip
            print(f"load: {window:.0f} s, {args.users} users browsing, {args.uploaders} "
                  f"uploading every {args.upload_every:g} s, a {loaded.matches.count()}-match "
                  f"tournament on {app.conf.worker_concurrency} worker processes")  # fmt: skip
            print(report.table())
            print(f"requests {report.requests}, errors {len(report.errors)}, "
                  f"5xx {report.server_errors}")  # fmt: skip
            for line in report.errors[:10]:
                print("  ", line)
            print_cpu(used, window)
        # the matches recorded while the load ran, up to the last of them
        last = in_window.aggregate(last=Max("finished_at"))["last"]
        loaded_rate = in_window.count() / ((last - window_start).total_seconds() / 60)
        # the same tournament for as long again once the load stopped: on a machine shared with
        # other work, a change of that work between the two measurements shows as a difference
        # between the rate alone before and after
        after_start = timezone.now()
        time.sleep(args.seconds)
        after = loaded.matches.filter(finished_at__gte=after_start)
        after_last = after.aggregate(last=Max("finished_at"))["last"]
        if not loaded.matches.exclude(status="finished").exists():
            print("note: the tournament ended too soon (more --rounds lasts longer)")
        rates = {"alone before the load": matches_per_minute(quiet)}
        if after_last is not None:
            minutes = (after_last - after_start).total_seconds() / 60
            rates["alone after the load"] = after.count() / minutes
        for label, rate in rates.items():
            print(f"matches per minute: {rate:.1f} {label}, {loaded_rate:.1f} under load "
                  f"({100 * (loaded_rate / rate - 1):+.0f} %)")  # fmt: skip
    finally:
        for worker in workers:
            worker.terminate()
            worker.wait(timeout=60)
        broker.delete(*queues)  # the rest of the loaded tournament is not played


if __name__ == "__main__":
    main()
