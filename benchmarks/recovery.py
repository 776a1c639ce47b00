"""Recovery benchmark (issue 30): a round robin through docker-compose's processes with its
defaults, fault-free, then with the worker killed and Redis restarted empty mid-run.

    .venv/bin/python benchmarks/recovery.py [--bots 16] [--repeat 1]

The processes are docker-compose's: one worker ``celery worker --concurrency=2`` (prefork) on
the four queues, ``celery beat``, Redis without persistence, PostgreSQL; no ``ARENA_*`` period
is set, so every one is at its default (heartbeat 10 s, a worker lost after 30 s, the reaper
every 15 s, re-send after 10 minutes, the lease of 12 minutes). The round robin: ``--bots``
Belote bots (the bundled example bots, as ``platform_throughput.py`` makes them; 16 bots: 120
duplicate matches), official and so rated.

The faulted run kills the worker's whole process group with SIGKILL a quarter of the way in
(what a container's end does) and starts it again at once under the same host name (Docker's
restart policy); halfway, it stops Redis and starts it again empty after ``--outage`` seconds.
Prints both times, their difference (target <= 90 s) and the matches' attempts.

Needs PostgreSQL on loopback and ``redis-server``. It runs its OWN redis-server on
``--redis-port`` (default: a free port; it is stopped and started, so never a shared one) and
DROPS and recreates the database named by ``BENCH_DATABASE_URL`` (default
``.../arena_bench_recovery``).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARSER = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
PARSER.add_argument("--bots", type=int, default=16)
PARSER.add_argument("--redis-port", type=int, default=0, help="default: a free one")
PARSER.add_argument("--outage", type=float, default=3.0, help="seconds Redis stays down")
PARSER.add_argument("--repeat", type=int, default=1, help="pairs of runs")
ARGS = PARSER.parse_args()
if not ARGS.redis_port:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        ARGS.redis_port = probe.getsockname()[1]
BROKER_URL = f"redis://127.0.0.1:{ARGS.redis_port}/0"
os.environ.setdefault(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/arena_bench_recovery"
)
os.environ["BENCH_BROKER_URL"] = BROKER_URL
# docker-compose's defaults: none of the periods is set
for name in [n for n in os.environ if n.startswith("ARENA_") and n.endswith("_S")]:
    del os.environ[name]


class Redis:
    """A private redis-server without persistence, as docker-compose runs it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        import redis

        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(ARGS.redis_port),
             "--save", "", "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis.from_url(BROKER_URL, socket_connect_timeout=1)
        for _ in range(300):
            try:
                client.ping()
                return
            except redis.RedisError:
                time.sleep(0.1)
        raise SystemExit(f"redis-server did not start on port {ARGS.redis_port}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)


HOME = Path(tempfile.mkdtemp(prefix="arena-bench-recovery-"))
LOG_TIME = "%Y-%m-%d %H:%M:%S,%f"  # Celery's log lines start "[2026-12-05 17:01:48,787: ..."
WORKER: subprocess.Popen[bytes]  # the worker of the moment (started again after the kill)
BROKER = Redis(HOME)
BROKER.start()  # before platform_throughput's import: its set-up reaches the broker

# platform_throughput recreates the database and sets Django up, for this broker
import platform_throughput as bench  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402, TID251
from django.core.management import call_command  # noqa: E402, TID251
from django.db.models import Count  # noqa: E402, TID251
from django.utils import timezone  # noqa: E402, TID251

from arena.celery import QUEUES  # noqa: E402
from matches.models import MatchStatus  # noqa: E402
from tournaments.models import Tournament, TournamentStatus  # noqa: E402
from tournaments.services import tournament_create  # noqa: E402


def spawn(name: str, *command: str) -> subprocess.Popen[bytes]:
    """A Celery process as docker-compose starts it, in a process group of its own."""
    env = os.environ | {"PYTHONPATH": f"{ROOT / 'platform'}:{ROOT}"}
    log = open(HOME / f"{name}.log", "ab")  # noqa: SIM115
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "--app=arena", *command], cwd=ROOT, env=env,
        stdout=log, stderr=log, start_new_session=True,
    )  # fmt: skip


def start_worker() -> subprocess.Popen[bytes]:
    queues = ",".join(bench.PREFIX + q for q in QUEUES)
    return spawn("worker", "worker", f"--queues={queues}", "--concurrency=2",
                 "--hostname=celery@bench", "--loglevel=INFO")  # fmt: skip


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def round_robin(name: str, organiser: User, bot_ids: list[int]) -> Tournament:
    return tournament_create(created_by=organiser, name=name, game="belote", bot_ids=bot_ids,
                             official=True)  # fmt: skip


def running(tournament: Tournament) -> bool:
    return Tournament.objects.filter(pk=tournament.pk, status=TournamentStatus.RUNNING).exists()


def attempts(tournament: Tournament) -> str:
    """How many matches took how many claims, and how many did not finish."""
    counts = dict(tournament.matches.values_list("attempts").annotate(n=Count("id")))
    unfinished = tournament.matches.exclude(status=MatchStatus.FINISHED).count()
    claims = ", ".join(f"{n} x{a}" for a, n in sorted(counts.items()))
    return f"{claims} claims; {unfinished} not finished"


def fault_free(organiser: User, bot_ids: list[int]) -> float:
    started = time.monotonic()
    clean = round_robin("fault-free", organiser, bot_ids)
    while running(clean):
        time.sleep(0.2)
    clean_s = time.monotonic() - started
    print(f"fault-free: {clean.matches.count()} matches in {clean_s:.1f} s ({attempts(clean)})",
          flush=True)  # fmt: skip
    return clean_s


def faulted(organiser: User, bot_ids: list[int], clean_s: float) -> float:
    """The worker killed a quarter of the way (by the fault-free time), Redis restarted empty
    halfway; the seconds until the last match is recorded."""
    global WORKER
    started = time.monotonic()
    tournament = round_robin("faulted", organiser, bot_ids)
    kill_at, outage_at = started + clean_s / 4, started + clean_s / 2
    events = []
    killed = back = datetime.now()
    while running(tournament):
        now = time.monotonic()
        if kill_at and now >= kill_at:
            os.killpg(WORKER.pid, signal.SIGKILL)  # the container ends with its processes
            WORKER.wait()
            killed = datetime.now()
            WORKER = start_worker()  # the restart policy, under the same host name
            events.append(f"worker killed at {now - started:.1f} s")
            kill_at = 0
        if outage_at and now >= outage_at:
            BROKER.stop()
            time.sleep(ARGS.outage)
            BROKER.start()  # empty: every queued message is gone
            back = datetime.now()
            events.append(f"Redis down {now - started:.1f}-{time.monotonic() - started:.1f} s")
            outage_at = 0
        time.sleep(0.2)
    faulted_s = time.monotonic() - started
    print(f"faulted: {tournament.matches.count()} matches in {faulted_s:.1f} s "
          f"({attempts(tournament)}); {'; '.join(events)}")  # fmt: skip
    for match_id, queued_at in tournament.matches.filter(attempts__gt=1).values_list(
        "id", "queued_at"
    ):  # the killed worker's matches: re-queued by the reaper (unless re-sent since)
        when = timezone.localtime(queued_at).replace(tzinfo=None)
        since = (when - killed).total_seconds()
        print(f"  match {match_id} queued again {since:.1f} s after the kill")
    for line in (HOME / "worker.log").read_text().splitlines():  # the reaper's findings
        if "sent again" in line and (when := datetime.strptime(line[1:24], LOG_TIME)) > killed:
            since = f"{(when - killed).total_seconds():.1f} s after the kill"
            if when > back:
                since = f"{(when - back).total_seconds():.1f} s after Redis came back"
            print(f"  reaper, {since}: {line.split('] ', 1)[1]}")
    return faulted_s


def main() -> None:
    global WORKER
    call_command("migrate", verbosity=0)
    organiser = User.objects.create(username="organiser", is_staff=True)
    bot_ids = [b.pk for b in bench.make_bots("belote", ARGS.bots)]
    beat = spawn("beat", "beat", f"--schedule={HOME / 'celerybeat-schedule'}",
                 "--loglevel=INFO")  # fmt: skip
    WORKER = start_worker()
    try:
        for run in range(1, ARGS.repeat + 1):
            print(f"run {run}; load average {os.getloadavg()[0]:.1f}", flush=True)
            clean_s = fault_free(organiser, bot_ids)
            faulted_s = faulted(organiser, bot_ids, clean_s)
            print(f"difference: {faulted_s - clean_s:+.1f} s (target <= 90 s); load average "
                  f"{os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
        print(f"logs in {HOME}")
    finally:
        stop(WORKER)
        stop(beat)
        BROKER.stop()


if __name__ == "__main__":
    main()
