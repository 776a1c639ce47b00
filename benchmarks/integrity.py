"""Ladder integrity benchmark: what the audit of a result and the quota-bounded tournament cost.

    .venv/bin/python benchmarks/integrity.py [--matches 20]

Needs PostgreSQL and Redis on loopback. It DROPS and recreates the database named by
``BENCH_DATABASE_URL`` (default ``postgres://postgres@127.0.0.1:5432/arena_bench_integrity``)
and uses Redis database 14 with queues of its own (deleted at the end). Prints:

* per game, the audit of a result (``matches.audit``: re-simulating the stored replay and
  deriving scores, places and boards) against playing the same duplicate match in-process with
  the engine's heuristic agents, and against the sandboxed match figures of docs/reliability.md;
* ``POST /api/tournaments/`` creating a round robin at ``ARENA_MATCHES_PER_REQUEST`` (500) with
  the defaults: the request's time, then the scheduling task's time to create the matches.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
DATABASE_URL = os.environ.get(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/arena_bench_integrity"
)
BROKER_URL = os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/14")
PREFIX = f"bench-integrity-{os.getpid()}-"
os.environ.update(
    DATABASE_URL=DATABASE_URL, CELERY_BROKER_URL=BROKER_URL, ARENA_EXECUTION="celery",
    ARENA_QUEUE_PREFIX=PREFIX, DJANGO_SETTINGS_MODULE="arena.settings", DEBUG="1",
    ALLOWED_HOSTS="testserver",
)  # fmt: skip
sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]

import engine  # noqa: E402
from matches.audit import audit_result  # noqa: E402  (engine-only: no Django needed)

#: a duplicate match with fresh sandboxed bots (docs/reliability.md, issue 33's table)
SANDBOXED_MS = {"belote": 146.0, "barbu": 316.0}


def audit_costs(matches: int) -> None:
    columns = ("match in-process", "audit", "audit/match", "of sandboxed")
    print(f"{'game':8} {columns[0]:>17} {columns[1]:>9} {columns[2]:>12} {columns[3]:>13}")
    for game in engine.available_games():
        rules = engine.load_game(game)
        played, audited = [], []
        for seed in range(matches):
            agents = [engine.make_agent(game, "heuristic", seed * 7 + s)
                      for s in range(rules.num_players)]  # fmt: skip
            start = time.perf_counter()
            result = engine.run_match(rules, None, agents, seed, duplicate=True)
            played.append(time.perf_counter() - start)
            boards = engine.boards_of_result(result) or None
            stored = json.dumps(result.replay, separators=(",", ":")).encode()
            start = time.perf_counter()
            audit_result(game=game, params=rules.params_dict(), seed=seed, duplicate=True,
                         replay=json.loads(stored), scores=result.scores,
                         placings=result.placings, boards=boards)  # fmt: skip
            audited.append(time.perf_counter() - start)
        match_ms, audit_ms = median(played) * 1e3, median(audited) * 1e3
        sandboxed = SANDBOXED_MS.get(game)
        share = f"{audit_ms / sandboxed:12.1%}" if sandboxed else f"{'-':>12}"
        ratio = audit_ms / match_ms
        print(f"{game:8} {match_ms:14.1f} ms {audit_ms:6.1f} ms {ratio:11.2f}x {share}")


def tournament_at_the_cap() -> None:
    import psycopg
    import redis

    name = DATABASE_URL.rsplit("/", 1)[1]
    with psycopg.connect(DATABASE_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}"')
        db.execute(f'CREATE DATABASE "{name}"')
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client

    from arena.celery import QUEUES
    from tests.platform.factories import UserFactory, active_bot
    from tournaments.models import Tournament
    from tournaments.services import tournament_schedule

    call_command("migrate", verbosity=0)
    bots = [active_bot("barbu").pk for _ in range(16)]  # 120 pairs / 6 per table: 20 per round
    rounds = settings.ARENA_MATCHES_PER_REQUEST // 20
    user = UserFactory()
    client = Client()
    client.force_login(user)
    body = {"game": "barbu", "bots": bots, "rounds": rounds}
    start = time.perf_counter()
    response = client.post("/api/tournaments/", body, content_type="application/json")
    request_s = time.perf_counter() - start
    assert response.status_code == 201, response.content[:300]
    tournament = Tournament.objects.get(pk=response.json()["id"])
    start = time.perf_counter()
    created = tournament_schedule(tournament_id=tournament.pk)
    schedule_s = time.perf_counter() - start
    print(f"POST /api/tournaments/ creating {tournament.planned_matches} matches (the cap): "
          f"{request_s * 1e3:.0f} ms; the scheduling task: {created} matches in "
          f"{schedule_s:.2f} s")  # fmt: skip
    broker = redis.Redis.from_url(BROKER_URL)
    for queue in QUEUES:
        broker.delete(PREFIX + queue, f"_kombu.binding.{PREFIX}{queue}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=20, help="matches per game to audit")
    args = parser.parse_args()
    audit_costs(args.matches)
    tournament_at_the_cap()


if __name__ == "__main__":
    main()
