"""Platform benchmark: round robins through Celery + Redis + PostgreSQL with 2 worker processes.

    .venv/bin/python benchmarks/platform_throughput.py [--bots 8] [--results 100000]

(Not ``platform.py``: a script of that name would shadow the standard library's ``platform`` for
every script in this folder.)

Needs PostgreSQL and Redis on loopback. It DROPS and recreates the database named by
``BENCH_DATABASE_URL`` (default ``postgres://postgres@127.0.0.1:5432/arena_bench``) and uses Redis
database 14 with queues of its own. Prints, for Belote and Barbu round robins of ``--bots`` bots
(the bundled example bots, duplicate matches, sandboxed):

* matches per minute end to end (tournament created -> its last match recorded) with two
  worker processes, and the same matches played by the sandbox runner alone in two processes
  (no database, no broker); their ratio (target >= 0.95);
* the dispatch gap: on each worker, from a match's ``finished_at`` (stamped as the transaction
  recording it begins, so the gap includes the rest of its writes) to its next match claimed
  (median and 90th percentile over the runs);
* database queries per recorded match (claim, run, record; then the rating task) (target <= 20);
* the time to recompute a ladder of ``--results`` finished 4-bot matches (target <= 5 s; 0
  skips it);
* with ``--ladder SECONDS``, the continuous ladder of ``--bots`` Belote bots without beat: one
  top-up (beat's part), then only the top-ups that follow each result, for that long; its
  matches per minute against the runner alone on the same matches, the workers' busy share,
  the most matches pending at once (the queue depth the workers' heartbeats give: two) and the
  dispatch gap.

The issue-33 figure, the 16-bot Belote round robin (120 duplicate matches; target <= 25 s):
``--bots 16 --games belote --belote-rounds 1 --results 0``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median, quantiles
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATABASE_URL = os.environ.get(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/arena_bench"
)
BROKER_URL = os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/14")
PREFIX = f"bench-{os.getpid()}-"
#: more options for the workers' command line, e.g. BENCH_WORKER_OPTS=--prefetch-multiplier=2
WORKER_OPTIONS = os.environ.get("BENCH_WORKER_OPTS", "").split()
os.environ.update(
    DATABASE_URL=DATABASE_URL, CELERY_BROKER_URL=BROKER_URL, ARENA_EXECUTION="celery",
    ARENA_QUEUE_PREFIX=PREFIX, DJANGO_SETTINGS_MODULE="arena.settings",
)  # fmt: skip
sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]


def recreate_database() -> None:
    import psycopg

    name = DATABASE_URL.rsplit("/", 1)[1]
    with psycopg.connect(DATABASE_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}"')
        db.execute(f'CREATE DATABASE "{name}"')


recreate_database()
import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.db.models import QuerySet  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402

import engine  # noqa: E402
from arena.celery import QUEUES, app, broker_restarted  # noqa: E402
from bots.house import package_bytes  # noqa: E402
from bots.models import Bot, BotVersion, Package  # noqa: E402
from matches.models import UNFINISHED, Match, MatchOrigin, MatchSeat, MatchStatus  # noqa: E402
from matches.services import MatchSpec, match_run, matches_create  # noqa: E402
from ratings.models import Ladder  # noqa: E402
from ratings.services import (  # noqa: E402
    ladder_apply_ratings,
    ladder_for_game,
    ladder_recompute,
    ladders_ensure,
)
from tournaments.models import Tournament  # noqa: E402
from tournaments.services import ladder_schedule, tournament_create  # noqa: E402

PARAMS: dict[str, dict[str, Any]] = {"belote": {}, "barbu": {}}


def make_bots(game: str, count: int) -> list[Bot]:
    """``count`` bots of different owners, cycling over the bundled example bots."""
    import hashlib

    sources = [ROOT / "examples" / game / "heuristic.py", ROOT / "examples" / game / "minimal.py",
               ROOT / "examples" / "random"]  # fmt: skip
    bots = []
    for i in range(count):
        data, filename = package_bytes(sources[i % len(sources)])
        sha = hashlib.sha256(data).hexdigest()
        Package.objects.get_or_create(sha256=sha, defaults={"data": data, "size": len(data)})
        owner, _ = User.objects.get_or_create(username=f"bench{i}")
        bot = Bot.objects.create(owner=owner, name=f"{game}-{i}", game=game)
        version = BotVersion.objects.create(
            bot=bot, number=1, package_id=sha, filename=filename, size=len(data), status="active",
            runtime="python3", entry="bot.py" if filename.endswith(".zip") else filename,
        )  # fmt: skip
        bot.current_version = version
        bot.save()
        bots.append(bot)
    return bots


def start_workers(count: int, home: Path) -> list[subprocess.Popen[bytes]]:
    # this run's queue prefix is new to the broker: mark it seen, or the reaper's first pass
    # would take the missing marker for a broker restarted empty and send every queued match
    # again (harmless duplicate claims, but work the figures should not carry)
    broker_restarted()
    workers = []
    queues = ",".join(PREFIX + q for q in QUEUES)
    for i in range(count):
        env = os.environ | {
            "PYTHONPATH": f"{ROOT / 'platform'}:{ROOT}",
            "ARENA_PACKAGE_CACHE": str(home / f"cache{i}"),
        }
        log = open(home / f"worker{i}.log", "wb")  # noqa: SIM115
        workers.append(subprocess.Popen(
            [sys.executable, "-m", "celery", "--app=arena", "worker", "--pool=solo",
             f"--queues={queues}", f"--hostname=bench{i}@%h", "--without-gossip",
             "--without-mingle", "--loglevel=WARNING", *WORKER_OPTIONS],
            cwd=ROOT, env=env, stdout=log, stderr=log,
        ))  # fmt: skip
    deadline = time.monotonic() + 60
    while len(app.control.ping(timeout=0.5)) < count:
        if time.monotonic() > deadline:
            raise SystemExit("workers did not start; see their logs in " + str(home))
    return workers


def platform_run(game: str, bots: list[Bot], rounds: int) -> tuple[Tournament, float]:
    started = time.perf_counter()
    tournament = tournament_create(
        created_by=bots[0].owner, name=f"bench {game}", game=game,
        bot_ids=[b.pk for b in bots], params=PARAMS[game], rounds=rounds, seed=7,
    )  # fmt: skip
    while Tournament.objects.filter(pk=tournament.pk, status="running").exists():
        time.sleep(0.05)
    return tournament, time.perf_counter() - started


def dispatch_gaps(matches: QuerySet[Match]) -> list[float]:
    """Seconds from each match's ``finished_at`` to the next claim by the same worker."""
    rows = matches.order_by("started_at").values_list(
        "worker", "started_at", "finished_at"
    )
    last: dict[str, Any] = {}
    gaps = []
    for worker, started, finished in rows:
        if worker in last:
            gaps.append((started - last[worker]).total_seconds())
        last[worker] = finished
    return gaps


def runner_alone(matches: QuerySet[Match], home: Path) -> float:
    """The same matches (same packages, seeds and seats) played by the sandbox runner alone in
    two processes taking the next match as they come free; the seconds until all are done."""
    files: dict[str, Path] = {}
    jobs = []
    for match in matches.order_by("id"):
        seats = []
        for s in match.seats.order_by("seat").select_related("bot_version__package"):
            version = s.bot_version
            if version.sha256 not in files:
                folder = home / "packages" / version.sha256
                folder.mkdir(parents=True, exist_ok=True)
                (folder / version.filename).write_bytes(bytes(version.package.data))
                files[version.sha256] = folder / version.filename
            seats.append(str(files[version.sha256]))
        jobs.append({"game": match.game, "params": match.params, "seed": match.seed,
                     "duplicate": match.duplicate, "seats": seats})  # fmt: skip
    job_file = home / "jobs.json"
    job_file.write_text(json.dumps(jobs))
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "runner_alone.py"), str(job_file), "2"],
        stdout=subprocess.PIPE, text=True, check=True,
    )  # fmt: skip
    return float(done.stdout)


def ladder_run(bots: list[Bot], seconds: float, home: Path) -> None:
    """The ladder of ``bots``' game with no beat, for ``seconds``: one top-up, then only those
    that follow each result (``ladder_top_up_soon``, on the workers); then its figures."""
    game = bots[0].game
    for ladder in ladders_ensure():
        Ladder.objects.filter(pk=ladder.pk).update(scheduling=ladder.game == game)
    ladder = ladder_for_game(game=game)
    depth = len(ladder_schedule(ladder=ladder))
    time.sleep(seconds)
    Ladder.objects.filter(pk=ladder.pk).update(scheduling=False)
    played = Match.objects.filter(ladder=ladder, origin=MatchOrigin.LADDER)
    while played.filter(status__in=UNFINISHED).exists():
        time.sleep(0.1)
    rows = [(queued, started, finished) for queued, started, finished
            in played.values_list("queued_at", "started_at", "finished_at")
            if started is not None and finished is not None]  # fmt: skip
    window = (max(r[2] for r in rows) - min(r[0] for r in rows)).total_seconds()
    busy = sum((finished - started).total_seconds() for _, started, finished in rows) / (2 * window)
    events = sorted([(q, 1) for q, _, _ in rows] + [(f, -1) for _, _, f in rows])
    pending = most = 0
    for _, step in events:
        pending += step
        most = max(most, pending)
    gaps = dispatch_gaps(played)
    failed = played.exclude(status=MatchStatus.FINISHED).count()
    per_min = len(rows) / window * 60
    alone_per_min = len(rows) / runner_alone(played, home) * 60
    gap_p50, gap_p90 = (quantiles(gaps, n=10)[i] * 1000 for i in (4, 8))
    print(
        f"ladder {game} {len(bots)} bots, {seconds:.0f} s: {len(rows)} matches, "
        f"{per_min:.1f}/min (runner alone {alone_per_min:.1f}/min, ratio "
        f"{per_min / alone_per_min:.2f}); workers busy {busy:.0%}; queue depth {depth}, most "
        f"pending {most}; gap p50 {gap_p50:.1f} ms, p90 {gap_p90:.1f} ms"
        + (f" ({failed} failed)" if failed else ""),
        flush=True,
    )


def queries_per_match(bots: list[Bot]) -> tuple[int, int, int]:
    """Queries of one match task (cold and warm package cache) and of its rating task (the
    ladder's own matches: rated)."""
    counts = []
    ladder = ladder_for_game(game=bots[0].game)
    for _ in range(2):
        with transaction.atomic():
            [match] = matches_create(
                game=bots[0].game, params={}, duplicate=True, origin=MatchOrigin.LADDER,
                specs=[MatchSpec(entrants=[b.current_version for b in bots])],  # type: ignore[misc]
            )  # fmt: skip
        with CaptureQueriesContext(connection) as run:
            assert match_run(match_id=match.pk, worker="bench")
        counts.append(len(run))
    with CaptureQueriesContext(connection) as rating:
        ladder_apply_ratings(ladder_id=ladder.pk)
    return counts[0], counts[1], len(rating) // 2


def recompute_figures(results: int) -> tuple[float, float]:
    """Seconds to recompute a ladder of ``results`` 4-bot matches: first from nothing (it orders
    them and writes every history row), then again over the stored history (it checks every
    row and finds nothing to rewrite)."""
    import random

    rng = random.Random(1)
    owner = User.objects.create(username="recompute")
    bots, versions = [], []
    package = Package.objects.first()
    assert package is not None
    for i in range(64):
        bot = Bot.objects.create(owner=owner, name=f"r{i}", game="bauer")
        version = BotVersion.objects.create(bot=bot, number=1, package=package, filename="b.py",
                                            runtime="python3", entry="b.py", size=1,
                                            status="active")  # fmt: skip
        bots.append(bot)
        versions.append(version)
    ladder = ladder_for_game(game="bauer")  # an otherwise empty ladder
    now = timezone.now()
    made = 0
    while made < results:
        batch = min(5_000, results - made)
        matches = Match.objects.bulk_create(
            Match(
                game="bauer",
                seed=made + i,
                origin=MatchOrigin.LADDER,
                ladder=ladder,
                status=MatchStatus.FINISHED,
                finished_at=now,
            )
            for i in range(batch)
        )
        seats = []
        for match in matches:
            table = rng.sample(range(64), 4)
            places = rng.sample([1, 2, 3, 4], 4)
            for seat, (b, place) in enumerate(zip(table, places, strict=True)):
                seats.append(
                    MatchSeat(
                        match=match,
                        seat=seat,
                        bot=bots[b],
                        bot_version=versions[b],
                        score=0.0,
                        place=place,
                    )
                )
        MatchSeat.objects.bulk_create(seats, batch_size=5_000)
        made += batch
    started = time.perf_counter()
    first = ladder_recompute(ladder_id=ladder.pk)
    first_s = time.perf_counter() - started
    assert first.rewritten == 4 * results
    started = time.perf_counter()
    again = ladder_recompute(ladder_id=ladder.pk)
    assert again.rewritten == 0
    return first_s, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--belote-rounds", type=int, default=3)
    parser.add_argument("--barbu-rounds", type=int, default=4)
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, medians printed")
    parser.add_argument("--games", default="belote,barbu", help="round robins to run")
    parser.add_argument("--ladder", type=float, default=0.0, metavar="SECONDS",
                        help="then play the Belote ladder for this long (0: not)")  # fmt: skip
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    home = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    workers = start_workers(2, home)
    fields: dict[str, list[Bot]] = {}
    try:
        print(f"medians of {args.repeat} runs; platform and runner matches per minute")
        print(f"{'round robin':<22} {'matches':>7} {'platform':>8} {'platform/min':>12} "
              f"{'runner/min':>10} {'ratio':>6} {'gap p50':>8} {'gap p90':>8}")  # fmt: skip
        rounds_of = {"belote": args.belote_rounds, "barbu": args.barbu_rounds}
        for game in filter(None, args.games.split(",")):  # "": none
            rounds = rounds_of[game]
            fields[game] = bots = make_bots(game, args.bots)
            platform_rates, alone_rates, seconds, gaps, failed = [], [], [], [], 0
            for _ in range(args.repeat):  # alternating, so drifting machine load hits both
                tournament, platform_s = platform_run(game, bots, rounds)
                total = tournament.matches.count()
                failed += tournament.matches.exclude(status="finished").count()
                seconds.append(platform_s)
                gaps += dispatch_gaps(tournament.matches.all())
                platform_rates.append(total / platform_s * 60)
                alone_rates.append(total / runner_alone(tournament.matches.all(), home) * 60)
            per_min, alone_per_min = median(platform_rates), median(alone_rates)
            gap_p50, gap_p90 = (quantiles(gaps, n=10)[i] * 1000 for i in (4, 8))
            label = f"{game} {args.bots} bots x{rounds}"
            print(
                f"{label:<22} {total:>7} {median(seconds):>7.1f}s {per_min:>12.1f} "
                f"{alone_per_min:>10.1f} {per_min / alone_per_min:>6.2f} {gap_p50:>6.1f}ms "
                f"{gap_p90:>6.1f}ms" + (f"  ({failed} failed)" if failed else ""),
                flush=True,
            )
        if args.ladder:
            ladder_run(make_bots("belote", args.bots), args.ladder, home)
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=60)
    settings.ARENA_PACKAGE_CACHE = home / "cache-here"  # cold for the first match below
    for game in fields:
        table = fields[game][: engine.load_game(game).num_players]
        if game == "belote":
            table = table[:2]
        cold, warm, rating = queries_per_match(table)
        print(
            f"queries per recorded {game} match: {warm} (first run of a package: {cold}) "
            f"+ {rating} in the rating task (target <= 20)"
        )
    import redis

    client = redis.Redis.from_url(BROKER_URL)
    client.delete(*(PREFIX + queue for queue in QUEUES))  # what the match tasks above sent
    if args.results:
        first, again = recompute_figures(args.results)
        print(
            f"recompute a ladder of {args.results:,} 4-bot results: {again:.2f} s (target <= 5 s);"
            f" from nothing, writing all {4 * args.results:,} history rows: {first:.2f} s"
        )


if __name__ == "__main__":
    main()
