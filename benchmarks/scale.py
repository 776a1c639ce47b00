"""Scale benchmark (issue 35): what pages, the ladder scheduler, strength fits, recomputation and
storage cost at 10k, 100k and 1M stored matches with 1,000 bots on each game's ladder.

    .venv/bin/python benchmarks/scale.py [--sizes 10000,100000,1000000] [--keep] [--json FILE]

It DROPS and recreates its own PostgreSQL database (``SCALE_DATABASE_URL``, default
``postgres://postgres@127.0.0.1:5432/arena_scale``; no other database is touched), migrates it and
fills it with PostgreSQL's COPY (psycopg's ``cursor.copy``) in the project's own schema:

- 1,000 bots per game (the four games: 4,000 bots of 400 authors), each with one to three
  validated versions; a bot plays its newer versions as the timeline reaches them;
- finished matches spread evenly over the games, one every 30 s of a year-long timeline: 95 %
  rated ladder matches (duplicate, the ladder's rules), 5 % unrated challenges; their seats laid
  out by ``matches.formats`` (partnership games: one bot holds both seats of its side); results
  drawn from each bot's hidden strength (boards for duplicate play as ``engine.board_scores``
  stores them, chip totals for Badugi, a fault in 0.3 % of matches);
- a replay per match: the compressed bytes of a real duplicate match of that game played in
  process by the engine's heuristic agents (16 sampled per game, reused), so the stored sizes
  are those of real replays (their headers name other entrants: nothing here reads them
  against the seats);
- the ladders' rating changes and current ratings computed by the project's own Elo code
  (``ratings.elo.rate_match``, fed as ``ladder_apply_ratings`` feeds it), so a recomputation
  finds the stored history right, as on a live ladder;
- one finished round robin of 32 Barbu bots (the tournament page), made by the services.

Sizes are filled one after the other in the same database (10k, then 90k more, ...). At each
size it measures, in this process:

- pages and API reads: the queries of one render (Django's test ``Client`` in process,
  ``CaptureQueriesContext``, the page cache off), then p50/p95 over ``--repeat`` requests over
  HTTP to gunicorn on loopback started as deployed (``benchmarks.load.gunicorn``), with the
  cache in a Redis of this run's own: *warm*, the public page cache on
  (``ARENA_PAGE_CACHE_SECONDS``, 5 s) and each URL seen once; and *cache off*
  (``ARENA_PAGE_CACHE_SECONDS=0``: every request renders, over several bots and matches). In
  both, the ladder's computed figures (rows, strengths, fairness) are in the cache as they are
  between two results; the first request of the ladder page, which computes them, is reported
  apart. The load average is recorded with the figures (the host is shared);
- the ladder scheduler's top-up (``tournaments.services.ladder_schedule``: 1,000 active bots,
  the queue empty; no task is sent and the matches are deleted afterwards): the first, which
  computes the scheduler's fit, the next (the fit cached, as between two refreshes), and one
  of 64 matches;
- strengths with bootstrap intervals (the site's 200 resamples) and seat fairness of each
  1,000-bot ladder, as the worker computes them (``ratings.selectors.figures_refresh``); wall
  and CPU seconds (the host is shared);
- the recomputation of each game's ratings (``ratings.services.ladder_recompute``);
- ``pg_total_relation_size`` of every big table, per match and per replay per game.

It prints a table per size and writes every figure to ``--json`` (default ``var/scale.json``,
merged with the sizes already there). The load stays bounded: one process, one connection.
Filling takes about 0.2 ms per match (1M: about half an hour with the VACUUM, and ~20 GB of
disk, most of it the replays); measuring takes minutes per size, mostly the bootstrap.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
import zlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]

from benchmarks.load import free_port, gunicorn  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/arena_scale"
DATABASE_URL = os.environ.get("SCALE_DATABASE_URL", DEFAULT_URL)
os.environ["DATABASE_URL"] = DATABASE_URL
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
os.environ.setdefault("ARENA_PAGE_CACHE_SECONDS", "5")
# one BLAS thread: on a shared 2-core host a threaded BLAS in every process oversubscribes the
# cores (the bootstrap ran 3x slower with OpenBLAS's default threads; see docs/scaling.md)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")


def _private_redis() -> tuple[subprocess.Popen[bytes], str]:
    """A Redis of this run's own on a free loopback port, for the site's cache (the benchmark
    and the gunicorn it starts share it, as a deployment's processes share theirs); clearing it
    touches no one else's."""
    port = free_port()
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no"], stdout=subprocess.DEVNULL,
    )  # fmt: skip
    for _ in range(100):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.1)
    return process, f"redis://127.0.0.1:{port}/0"


REDIS, CACHE_URL = _private_redis()
os.environ["ARENA_CACHE_URL"] = CACHE_URL

import django  # noqa: E402

django.setup()

import psycopg  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client, override_settings  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402

import engine  # noqa: E402
import matches.services  # noqa: E402
from bots.models import Bot, BotVersion, BotVersionStatus, Package  # noqa: E402
from matches import formats  # noqa: E402
from matches.models import Match, MatchSeat, MatchStatus  # noqa: E402
from ratings import strength  # noqa: E402
from ratings.elo import BotRating, rate_match  # noqa: E402
from ratings.models import Ladder, Rating  # noqa: E402
from ratings.selectors import (  # noqa: E402
    figures_refresh,
    ladder_strengths_current,
)
from ratings.services import _rated, ladder_recompute, ladders_ensure  # noqa: E402
from tournaments.models import Tournament  # noqa: E402
from tournaments.services import (  # noqa: E402
    ladder_queue_depth,
    ladder_schedule,
    tournament_create,
)

_R = TypeVar("_R")
GAMES = sorted(engine.available_games())
PAGE_GAME = "barbu"
HORIZON = 1_000_000  # the timeline's length in matches: versions change along it
INTERVAL_S = 30.0  # a match finishes every 30 s: a million matches is about a year
BATCH = 10_000
SAMPLES = 16  # real replays per game
CHALLENGE_SHARE = 0.05
FAULT_SHARE = 0.003
TOURNAMENT_BOTS = 32
# targets (issue 35)
WARM_P95_MS, OFF_P95_MS, TOPUP_S, STRENGTH_S, RECOMPUTE_S = 150.0, 400.0, 1.0, 10.0, 60.0
BIG_TABLES = ["matches_match", "matches_matchseat", "matches_matchreplay",
              "ratings_ratingchange", "matches_challenge"]  # fmt: skip


# -- the database ---------------------------------------------------------------------------


def _admin_conninfo() -> tuple[str, str]:
    """(conninfo of the server's maintenance database, the benchmark's database name)."""
    base, name = DATABASE_URL.rsplit("/", 1)
    if not name or name in ("postgres", "template0", "template1"):
        raise SystemExit(f"refusing to use database {name!r}")
    return f"{base}/postgres", name


def recreate_database() -> None:
    conninfo, name = _admin_conninfo()
    with psycopg.connect(conninfo, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    call_command("migrate", verbosity=0)


def database_exists() -> bool:
    conninfo, name = _admin_conninfo()
    with psycopg.connect(conninfo, autocommit=True) as admin:
        return (
            admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
            is not None
        )


def sql(query: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(query, params or [])
        return list(cursor.fetchall()) if cursor.description else []


# -- real replays -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    data: bytes  # zlib level 1, as matches.services stores it
    size: int  # uncompressed
    boards: int  # boards of the set (0: none, Badugi)


def sample_replays(game: str, count: int, rng: random.Random) -> list[Sample]:
    """Real duplicate matches of ``game`` under the ladder's rules by the heuristic agents."""
    rules = formats.load(game, {})
    samples = []
    for _ in range(count):
        seed = rng.getrandbits(63)
        agents = [engine.make_agent(game, "heuristic", seed * 31 + i)
                  for i in range(rules.num_players)]  # fmt: skip
        result = engine.run_match(rules, None, agents, seed, duplicate=True)
        replay = json.dumps(result.replay, separators=(",", ":")).encode()
        boards = engine.boards_of_result(result) or []
        samples.append(Sample(zlib.compress(replay, 1), len(replay), len(boards)))
    return samples


# -- bots -------------------------------------------------------------------------------------


@dataclass
class Roster:
    """A game's bots: versions (ids, oldest first), hidden strengths and owners."""

    ladder: Ladder
    bots: list[int]
    versions: dict[int, list[int]]
    strength: dict[int, float]
    owner: dict[int, int]
    states: dict[int, BotRating] = field(default_factory=dict)
    rated: int = 0

    def version_at(self, bot: int, index: int) -> int:
        versions = self.versions[bot]
        return versions[min(len(versions) - 1, index * len(versions) // HORIZON)]


def make_bots(per_game: int) -> None:
    owners = User.objects.bulk_create(User(username=f"author{i:03d}") for i in range(400))
    packages = []
    for number in (1, 2, 3):
        data = f"# bot version {number}\nprint('pass')\n".encode()
        packages.append(Package.objects.create(sha256=f"{number:064x}", data=data,
                                               size=len(data)))  # fmt: skip
    created = timezone.now() - timedelta(days=400)
    for g, game in enumerate(GAMES):
        bots = Bot.objects.bulk_create(
            Bot(owner=owners[(g * per_game + i) % len(owners)], name=f"{game}-{i:04d}", game=game)
            for i in range(per_game)
        )
        versions = BotVersion.objects.bulk_create(
            BotVersion(bot=bot, number=n, package=packages[n - 1], filename="bot.py",
                       runtime="python3", entry="bot.py", size=packages[n - 1].size,
                       status=BotVersionStatus.ACTIVE, validated_at=created)
            for bot in bots for n in range(1, 1 + _version_count(bot.pk))
        )  # fmt: skip
        first = {v.bot_id: v.pk for v in versions if v.number == 1}
        for bot in bots:
            bot.current_version_id = first[bot.pk]
        Bot.objects.bulk_update(bots, ["current_version"])
    Bot.objects.update(created_at=created)
    BotVersion.objects.update(created_at=created)


def _version_count(bot_id: int) -> int:
    return 1 + bot_id % 3


def load_rosters() -> dict[str, Roster]:
    ladders = {ladder.game: ladder for ladder in ladders_ensure()}
    rosters = {}
    for game in GAMES:
        bots = dict(Bot.objects.filter(game=game).values_list("id", "owner_id"))
        versions: dict[int, list[int]] = defaultdict(list)
        for bot, version in (
            BotVersion.objects.filter(bot__game=game)
            .order_by("bot_id", "number")
            .values_list("bot_id", "id")
        ):
            versions[bot].append(version)
        roster = Roster(
            ladders[game],
            sorted(bots),
            dict(versions),
            {b: random.Random(b * 7919).gauss(0.0, 1.0) for b in bots},
            bots,
        )
        roster.states = {
            r.bot_id: BotRating(r.rating, r.games, r.version_id, r.version_games)
            for r in Rating.objects.filter(ladder=roster.ladder)
        }  # fmt: skip
        roster.rated = roster.ladder.rated_count
        rosters[game] = roster
    return rosters


# -- matches ----------------------------------------------------------------------------------

NULL = "\\N"


def _ts(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat()


@dataclass
class Outcome:
    seat_scores: list[float]
    places: list[int]
    boards: list[list[float]] | None
    faulted: int | None  # the faulted entrant


def play_synthetic(rules: engine.Game, strengths: list[float], boards: int,
                   rng: random.Random) -> Outcome:  # fmt: skip
    """A result drawn from the entrants' strengths, shaped as the engine records one."""
    entrant_of = formats.seat_entrants(rules)
    n = len(strengths)
    faulted = rng.randrange(n) if rng.random() < FAULT_SHARE else None
    if boards == 0:  # Badugi: one result per set, the chips
        chips = round(100 * (strengths[0] - strengths[1]) + rng.gauss(0, 150))
        per_entrant = [float(chips), float(-chips)]
        board_rows = None
    else:
        board_rows = []
        per_entrant = [0.0] * n
        for _ in range(boards):
            perf = [0.5 * s + rng.gauss(0, 1) for s in strengths]
            if rules.name == "bauer":  # a board says which side reached five tricks
                best = max(perf)
                values = [1.0 if p == best else 0.0 for p in perf]
            elif rules.name == "belote":  # card points, shared by margin
                values = [float(max(0, min(162, round(81 + 40 * (p - sum(perf) / n)))))
                          for p in perf]  # fmt: skip
            else:  # Barbu: the table's scores
                values = [float(round(30 * p)) for p in perf]
            if faulted is not None:
                values[faulted] = min(values) - 1.0
            board_rows.append([values[entrant_of[s]] for s in range(len(entrant_of))])
            for e in range(n):
                per_entrant[e] += values[e]
    seat_scores = [per_entrant[entrant_of[s]] for s in range(len(entrant_of))]
    last = [] if faulted is None else [s for s in range(len(entrant_of))
                                       if entrant_of[s] == faulted]  # fmt: skip
    places = engine.placings(seat_scores, last=last)
    return Outcome(seat_scores, places, board_rows, faulted)


@dataclass
class Batch:
    matches: list[str] = field(default_factory=list)
    seats: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    challenges: list[str] = field(default_factory=list)
    replays: list[tuple[int, bytes, int]] = field(default_factory=list)


def fill(rosters: dict[str, Roster], samples: dict[str, list[Sample]], start: int, stop: int,
         t0: float, rng: random.Random) -> None:  # fmt: skip
    """Matches ``start`` to ``stop`` of the timeline (ids follow the table's largest)."""
    first_id = (sql("SELECT COALESCE(MAX(id), 0) FROM matches_match")[0][0] or 0) + 1
    rules = {game: formats.load(game, {}) for game in GAMES}
    scales = {game: engine.game_class(game).board_margin_scale for game in GAMES}
    for lo in range(start, stop, BATCH):
        batch = Batch()
        for index in range(lo, min(stop, lo + BATCH)):
            match_id = first_id + index - start
            game = GAMES[index % len(GAMES)]
            roster, game_rules = rosters[game], rules[game]
            size = formats.entrants_per_match(game_rules)
            bots = rng.sample(roster.bots, size)
            versions = [roster.version_at(b, index) for b in bots]
            sample = rng.choice(samples[game])
            outcome = play_synthetic(game_rules, [roster.strength[b] for b in bots],
                                     sample.boards, rng)  # fmt: skip
            finished = t0 + index * INTERVAL_S + rng.uniform(0, INTERVAL_S / 2)
            rated = rng.random() >= CHALLENGE_SHARE
            entrant_of = formats.seat_entrants(game_rules)
            seat_rows = []
            for seat, entrant in enumerate(entrant_of):
                fault = "timeout" if outcome.faulted == entrant else ""
                partnership = NULL if not game_rules.teams else str(entrant)
                batch.seats.append(
                    f"{match_id}\t{seat}\t{partnership}\t{bots[entrant]}\t{versions[entrant]}\t"
                    f"{outcome.seat_scores[seat]!r}\t{outcome.places[seat]}\t{fault}\t"
                    f"{'no reply within the move time' if fault else ''}\t\n"
                )
                seat_rows.append((bots[entrant], versions[entrant], outcome.places[seat], fault))
            boards = NULL if outcome.boards is None else json.dumps(outcome.boards)
            if rated:
                roster.rated += 1
                seq, ladder, requested, origin = str(roster.rated), roster.ladder.pk, NULL, "ladder"
                rated_at = _ts(finished + 2)
                result = _rated(seat_rows, outcome.boards, scales[game])
                for c in rate_match(roster.states, result.results, shares=result.shares):
                    batch.changes.append(f"{ladder}\t{match_id}\t{seq}\t{c.bot}\t{c.version}\t"
                                         f"{c.before!r}\t{c.after!r}\n")  # fmt: skip
            else:
                seq, ladder, rated_at, origin = NULL, NULL, NULL, "challenge"
                requested = str(roster.owner[bots[0]])
                batch.challenges.append(f"{requested}\t{match_id}\t{_ts(finished - 120)}\n")
            batch.matches.append(
                f"{match_id}\t{game}\t{{}}\t{rng.getrandbits(128)}\tt\t{origin}\t{NULL}\t{NULL}\t"
                f"{ladder}\t{requested}\tfinished\t1\t{NULL}\t{NULL}\tscale-worker\t\t"
                f"{_ts(finished - 120)}\t{_ts(finished - 40)}\t{_ts(finished)}\t{rated_at}\t"
                f"{seq}\t{boards}\n"
            )
            batch.replays.append((match_id, sample.data, sample.size))
        _copy(batch)


def _copy(batch: Batch) -> None:
    with connection.cursor() as wrapper:
        cursor: Any = wrapper.cursor
        text = [
            ("matches_match (id, game, params, seed, duplicate, origin, tournament_id, round, "
             "ladder_id, requested_by_id, status, attempts, run_token, deadline, worker, error, "
             "queued_at, started_at, finished_at, rated_at, rating_seq, boards)", batch.matches),
            ("matches_matchseat (match_id, seat, partnership, bot_id, bot_version_id, score, "
             "place, fault, fault_message, log)", batch.seats),
            ("ratings_ratingchange (ladder_id, match_id, seq, bot_id, bot_version_id, before, "
             "after)", batch.changes),
            ("matches_challenge (requested_by_id, match_id, created_at)", batch.challenges),
        ]  # fmt: skip
        for table, lines in text:
            with cursor.copy(f"COPY {table} FROM STDIN") as copy:
                copy.write("".join(lines))
        with cursor.copy(
            "COPY matches_matchreplay (match_id, data, size) FROM STDIN (FORMAT BINARY)"
        ) as copy:
            copy.set_types(["int8", "bytea", "int4"])
            for row in batch.replays:
                copy.write_row(row)


def save_state(rosters: dict[str, Roster], index: int) -> None:
    """Ratings, ladders' counts and bots' current versions as of timeline position ``index``."""
    for roster in rosters.values():
        Rating.objects.filter(ladder=roster.ladder).delete()
        Rating.objects.bulk_create(
            Rating(ladder=roster.ladder, bot_id=bot, rating=s.rating, games=s.games,
                   version_id=s.version, version_games=s.version_games)
            for bot, s in roster.states.items()
        )  # fmt: skip
        Ladder.objects.filter(pk=roster.ladder.pk).update(rated_count=roster.rated)
        roster.ladder.rated_count = roster.rated
        bots = list(Bot.objects.filter(game=roster.ladder.game))
        for bot in bots:
            bot.current_version_id = roster.version_at(bot.pk, max(0, index - 1))
        Bot.objects.bulk_update(bots, ["current_version"], batch_size=BATCH)
    for table in ("matches_match", "matches_matchseat", "ratings_ratingchange",
                  "matches_challenge"):  # fmt: skip
        sql(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
            f"(SELECT COALESCE(MAX(id), 1) FROM {table}))")  # fmt: skip


def make_tournament(rosters: dict[str, Roster], rng: random.Random) -> int:
    """A finished round robin of Barbu bots, scheduled by the services (places at random)."""
    roster = rosters[PAGE_GAME]
    creator = User.objects.create(username="organiser")
    tournament = tournament_create(created_by=creator, name="Scale open", game=PAGE_GAME,
                                   bot_ids=roster.bots[:TOURNAMENT_BOTS], seed=1)  # fmt: skip
    now = timezone.now()
    tournament.matches.update(status=MatchStatus.FINISHED, finished_at=now, started_at=now)
    seats = list(MatchSeat.objects.filter(match__tournament=tournament))
    by_match: dict[int, list[MatchSeat]] = defaultdict(list)
    for seat in seats:
        by_match[seat.match_id].append(seat)
    for table in by_match.values():
        places = rng.sample(range(1, len(table) + 1), len(table))
        for seat, place in zip(table, places, strict=True):
            seat.place, seat.score = place, float(10 * (len(table) - place))
    MatchSeat.objects.bulk_update(seats, ["place", "score"], batch_size=BATCH)
    Tournament.objects.filter(pk=tournament.pk).update(status="finished", finished_at=now)
    return tournament.pk


# -- measurements -----------------------------------------------------------------------------


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def page_urls(tournament_id: int, rng: random.Random) -> dict[str, list[str]]:
    game = PAGE_GAME
    bots = list(Bot.objects.filter(game=game).order_by("id").values_list("id", flat=True))
    bot_ids = rng.sample(bots, 10)
    top = sql("SELECT MAX(id) FROM matches_match WHERE game = %s AND ladder_id IS NOT NULL",
              [game])[0][0]  # fmt: skip
    ids = [
        m
        for (m,) in sql(
            "SELECT id FROM matches_match WHERE game = %s AND status = 'finished' "
            "AND ladder_id IS NOT NULL AND id > %s ORDER BY id LIMIT 2000",
            [game, top - 40_000],
        )
    ]
    match_ids = [ids[-1], *rng.sample(ids, 9)]
    return {
        "home": ["/"],
        "ladder": [f"/ladder/{game}/", f"/ladder/{game}/?page=2"],
        "bot": [f"/bots/{b}/" for b in bot_ids],
        "match": [f"/matches/{m}/" for m in match_ids],
        "tournament": [f"/tournaments/{tournament_id}/"],
        "api ladder": [f"/api/ladders/{game}/"],
        "api strengths": [f"/api/ladders/{game}/strengths/"],
        "api history": [f"/api/ladders/{game}/history/?bot={b}" for b in bot_ids],
        "api bot": [f"/api/bots/{b}/" for b in bot_ids],
        "api matches": ["/api/matches/", *[f"/api/matches/?bot={b}" for b in bot_ids]],
        "api match": [f"/api/matches/{m}/" for m in match_ids],
        "api replay": [f"/api/matches/{m}/replay/" for m in match_ids],
        "api tournament": [f"/api/tournaments/{tournament_id}/"],
    }


def say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def _get(conn: http.client.HTTPConnection, url: str) -> tuple[int, int, float]:
    """(status, body bytes, milliseconds) of one GET on a kept-alive connection."""
    started = time.perf_counter()
    conn.request("GET", url)
    response = conn.getresponse()
    body = response.read()
    return response.status, len(body), (time.perf_counter() - started) * 1000


def measure_pages(urls: dict[str, list[str]], repeat: int) -> dict[str, Any]:
    """Queries per page in process (a render: the page cache off), then p50/p95 over HTTP from
    gunicorn on loopback as deployed (``arena.gunicorn_conf``, two uvicorn workers, niceness 0
    so that other engineers' processes on this host do not weigh more than in production), with
    the page cache on (warm: every URL seen once first) and off."""
    out: dict[str, Any] = {}
    client = Client()
    started = time.perf_counter()  # the first view computes the ladder's rows
    response = client.get(f"/ladder/{PAGE_GAME}/")
    assert response.status_code == 200
    out["ladder first view s"] = time.perf_counter() - started
    with override_settings(ARENA_PAGE_CACHE_SECONDS=0):
        for name, choices in urls.items():
            queries = 0
            for url in choices[:3]:
                with CaptureQueriesContext(connection) as captured:
                    response = client.get(url)
                assert response.status_code == 200, (url, response.status_code)
                queries = max(queries, len(captured))
            out[name] = {"queries": queries}
    for mode, seconds in (("warm", settings.ARENA_PAGE_CACHE_SECONDS), ("off", 0)):
        env = {"ARENA_PAGE_CACHE_SECONDS": str(seconds), "ARENA_WEB_NICE": "0",
               "ARENA_WEB_WORKERS": "2"}  # fmt: skip
        with gunicorn(env) as site:
            host, _, port = site.url.removeprefix("http://").partition(":")
            conn = http.client.HTTPConnection(host, int(port), timeout=300)
            for name, choices in urls.items():
                say(f"page {name} ({mode}, gunicorn)")
                for url in choices:  # each URL seen once (warm: stored in the page cache)
                    _get(conn, url)
                times, size = [], 0
                for k in range(repeat):
                    url = choices[k % len(choices)]
                    status, size, ms = _get(conn, url)
                    assert status == 200, (url, status)
                    times.append(ms)
                out[name][mode] = {"p50 ms": statistics.median(times),
                                   "p95 ms": _pct(times, 0.95), "bytes": size}  # fmt: skip
            conn.close()
    out["load average"] = os.getloadavg()
    return out


def _cpu_and_wall(row: dict[str, float], key: str, call: Callable[[], _R]) -> _R:
    """``call()``, its wall seconds in ``row[key + " s"]`` and CPU seconds in ``+ " cpu s"``
    (the host is shared: CPU time is what the work costs)."""
    cpu, wall = time.process_time(), time.perf_counter()
    value = call()
    row[f"{key} s"], row[f"{key} cpu s"] = time.perf_counter() - wall, time.process_time() - cpu
    return value


def measure_ladders(rosters: dict[str, Roster]) -> dict[str, Any]:
    """Per game (see :func:`measure_ladder`); the figures stay in the cache for the pages."""
    cache.clear()
    out = {}
    for game, roster in rosters.items():
        say(f"ladder {game}")
        out[game] = measure_ladder(game, roster.ladder)
    return out


def measure_ladder(game: str, ladder: Ladder) -> dict[str, Any]:
    """The top-up (the first computes the scheduler's fit, the next uses it as a worker's
    top-ups do between two refreshes; the queue depth's and 64), the strengths and fairness as
    the worker refreshes them, and the recomputation."""
    row: dict[str, Any] = {}

    def top_up(label: str, depth: int) -> None:
        with override_settings(ARENA_LADDER_QUEUE_DEPTH=depth):
            created = _cpu_and_wall(row, label, lambda: ladder_schedule(
                ladder=ladder, rng=random.Random(depth)))  # fmt: skip
        assert len(created) == depth, (game, len(created))
        Match.objects.filter(pk__in=[m.pk for m in created]).delete()

    depth = ladder_queue_depth()  # no worker beats here: the default depth
    top_up("top-up first", depth)
    top_up("top-up", depth)
    top_up("top-up 64", 64)
    row["strength resamples"] = strength.DEFAULT_RESAMPLES
    _cpu_and_wall(row, "strengths", lambda: figures_refresh(kind="strengths", game=game))
    row["strength bots"] = len(ladder_strengths_current(game=game))
    _cpu_and_wall(row, "fairness", lambda: figures_refresh(kind="fairness", game=game))
    done = _cpu_and_wall(row, "recompute", lambda: ladder_recompute(ladder_id=ladder.pk))
    row["recompute matches"], row["recompute rewritten"] = done.matches, done.rewritten
    row["load average"] = os.getloadavg()[0]
    return row


def measure_storage() -> dict[str, Any]:
    out: dict[str, Any] = {"tables": {}}
    matches_count = sql("SELECT COUNT(*) FROM matches_match")[0][0]
    for table in BIG_TABLES:
        (total, heap, rows), = sql(
            f"SELECT pg_total_relation_size('{table}'), pg_relation_size('{table}'), "
            f"(SELECT COUNT(*) FROM {table})"
        )  # fmt: skip
        out["tables"][table] = {"bytes": total, "heap": heap, "rows": rows}
    replay_total = out["tables"]["matches_matchreplay"]["bytes"]
    stored = sql("SELECT SUM(pg_column_size(data)) FROM matches_matchreplay")[0][0] or 1
    overhead = replay_total / stored  # TOAST chunks, tuples and index on top of the bytes
    per_game = {}
    for game, count, data, raw, seats, changes in sql(
        "SELECT m.game, COUNT(*), AVG(pg_column_size(r.data)), AVG(r.size), "
        "AVG((SELECT COUNT(*) FROM matches_matchseat s WHERE s.match_id = m.id)), "
        "AVG((SELECT COUNT(*) FROM ratings_ratingchange c WHERE c.match_id = m.id)) "
        "FROM matches_match m JOIN matches_matchreplay r ON r.match_id = m.id "
        "WHERE m.id IN (SELECT id FROM matches_match TABLESAMPLE SYSTEM (2)) GROUP BY m.game"
    ):
        t = out["tables"]
        rows_bytes = (t["matches_match"]["bytes"] / max(1, matches_count)
                      + float(seats) * t["matches_matchseat"]["bytes"]
                      / max(1, t["matches_matchseat"]["rows"])
                      + float(changes) * t["ratings_ratingchange"]["bytes"]
                      / max(1, t["ratings_ratingchange"]["rows"]))  # fmt: skip
        per_game[game] = {
            "sampled": count, "replay stored bytes": float(data) * overhead,
            "replay compressed bytes": float(data), "replay json bytes": float(raw),
            "rows bytes": rows_bytes, "match bytes": rows_bytes + float(data) * overhead,
        }  # fmt: skip
    out["per game"] = per_game
    out["database bytes"] = sql("SELECT pg_database_size(current_database())")[0][0]
    out["matches"] = matches_count
    return out


# -- the report -------------------------------------------------------------------------------


def report(size: int, result: dict[str, Any]) -> None:
    """The figures of one size, those measured (``--pages-only``, ``--ladders-only``)."""
    filled = f" (filled in {result['fill s']:.0f} s)" if "fill s" in result else ""
    print(f"\n=== {size:,} matches{filled} ===")
    if "pages" in result:
        report_pages(result["pages"])
    if "ladders" in result:
        report_ladders(result["ladders"])
    if "storage" in result:
        report_storage(result["storage"])


def report_pages(pages: dict[str, Any]) -> None:
    print(f"{'page':<16} {'q':>3} {'warm p50':>9} {'p95':>7}   {'off p50':>8} {'p95':>7}  "
          f"target p95 150 / 400 ms (gunicorn, loopback)")  # fmt: skip
    for name, modes in pages.items():
        if not isinstance(modes, dict):
            continue
        w, o = modes["warm"], modes["off"]
        ok = "ok" if w["p95 ms"] <= WARM_P95_MS and o["p95 ms"] <= OFF_P95_MS else "FAIL"
        print(f"{name:<16} {modes['queries']:3d} {w['p50 ms']:9.1f} {w['p95 ms']:7.1f}   "
              f"{o['p50 ms']:8.1f} {o['p95 ms']:7.1f}  {ok}")  # fmt: skip
    print("load average while measuring pages: "
          + " ".join(f"{x:.2f}" for x in pages["load average"]))  # fmt: skip
    print(
        f"ladder page first view (computes the rows; strengths, fairness cached): "
        f"{pages['ladder first view s']:.2f} s"
    )


def report_ladders(ladders: dict[str, Any]) -> None:
    print(f"\n{'ladder':<8} {'top-up':>15} {'top-up 64':>10} {'strengths':>15} {'R':>4} "
          f"{'bots':>5} {'fairness':>9} {'recompute':>15} {'matches':>8} {'load':>5}  "
          f"(wall/cpu s; top-up: first/next)")  # fmt: skip
    for game, row in ladders.items():
        print(f"{game:<8} {row['top-up first s']:7.2f}/{row['top-up s']:<7.2f} "
              f"{row['top-up 64 s']:10.2f} "
              f"{row['strengths s']:7.1f}/{row['strengths cpu s']:<7.1f} "
              f"{row['strength resamples']:4d} {row['strength bots']:5d} {row['fairness s']:9.2f} "
              f"{row['recompute s']:7.1f}/{row['recompute cpu s']:<7.1f} "
              f"{row['recompute matches']:8d} {row['load average']:5.2f}")  # fmt: skip


def report_storage(storage: dict[str, Any]) -> None:
    print(f"\ndatabase {storage['database bytes'] / 2**30:.2f} GiB")
    for table, t in storage["tables"].items():
        print(f"  {table:<22} {t['rows']:>10,} rows {t['bytes'] / 2**20:10.1f} MiB "
              f"({t['bytes'] / max(1, t['rows']):7.0f} B/row)")  # fmt: skip
    for game, g in storage["per game"].items():
        print(f"  {game:<8} per match {g['match bytes'] / 1024:6.1f} KiB: replay "
              f"{g['replay stored bytes'] / 1024:6.1f} KiB stored "
              f"({g['replay json bytes'] / 1024:6.1f} KiB JSON), "
              f"rows {g['rows bytes'] / 1024:5.2f} KiB")  # fmt: skip


def plot(results: dict[str, Any], folder: Path) -> list[Path]:
    """One PNG per figure against the number of matches (log-log), from ``--json``'s results."""
    import matplotlib  # a dev dependency: only the plots need it

    matplotlib.use("Agg")
    from matplotlib import pyplot

    sizes = sorted(int(k) for k in results)
    rows = [results[str(n)] for n in sizes]
    pages = [name for name, v in rows[-1]["pages"].items() if isinstance(v, dict)]
    figures: dict[str, tuple[str, dict[str, list[float]]]] = {
        "scaling-pages-warm.png": ("page p95, page cache on (ms)", {
            p: [r["pages"][p]["warm"]["p95 ms"] for r in rows] for p in pages}),
        "scaling-pages-off.png": ("page p95, page cache off (ms)", {
            p: [r["pages"][p]["off"]["p95 ms"] for r in rows] for p in pages}),
        "scaling-queries.png": ("queries per page", {
            p: [r["pages"][p]["queries"] for r in rows] for p in pages}),
        "scaling-ladder.png": ("CPU seconds per game's ladder (1,000 bots)", {
            f"{game} {what}": [r["ladders"][game][f"{what} cpu s"] for r in rows]
            for game in GAMES for what in ("top-up", "strengths", "recompute")}),
        "scaling-storage.png": ("stored bytes per match (rows + replay)", {
            game: [r["storage"]["per game"][game]["match bytes"] for r in rows]
            for game in GAMES}),
    }  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for filename, (title, series) in figures.items():
        figure, axes = pyplot.subplots(figsize=(7, 4.2), dpi=80)
        for k, (label, values) in enumerate(series.items()):  # past ten colours: dashed
            axes.plot(sizes, values, marker="o", linestyle="-" if k < 10 else "--", label=label)
        axes.set_xscale("log")
        axes.set_yscale("log" if filename != "scaling-queries.png" else "linear")
        axes.set_xlabel("stored matches")
        axes.set_title(title)
        axes.grid(True, which="both", alpha=0.3)
        axes.legend(fontsize=6, ncol=2)
        figure.tight_layout()
        figure.savefig(folder / filename)
        pyplot.close(figure)
        written.append(folder / filename)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        default="10000,100000,1000000",
        help="matches at which to measure, ascending (comma-separated)",
    )
    parser.add_argument("--bots", type=int, default=1_000, help="bots per game")
    parser.add_argument("--repeat", type=int, default=20, help="requests per page and mode")
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the database a previous run filled and go on from its size",
    )
    parser.add_argument("--skip-measure", action="store_true", help="fill only")
    parser.add_argument(
        "--pages-only", action="store_true",
        help="with --keep: measure the pages again at the size the database holds (after a fix)",
    )  # fmt: skip
    parser.add_argument(
        "--ladders-only", action="store_true",
        help="with --keep: measure the ladders again at the size the database holds (after a fix)",
    )  # fmt: skip
    parser.add_argument("--json", type=Path, default=ROOT / "var" / "scale.json")
    parser.add_argument(
        "--plot", type=Path, metavar="FOLDER", help="only draw --json's figures into FOLDER"
    )
    args = parser.parse_args()
    if args.plot:
        for path in plot(json.loads(args.json.read_text()), args.plot):
            print(f"wrote {path}")
        return
    sizes = sorted(int(s) for s in args.sizes.split(","))
    setup_test_environment(debug=False)
    rng = random.Random(35)
    matches.services._enqueue = lambda match_ids: None  # nothing runs: no task is sent
    if args.keep and database_exists():
        call_command("migrate", verbosity=0)
        tournament_id = Tournament.objects.get(name="Scale open").pk
    else:
        recreate_database()
        make_bots(args.bots)
        tournament_id = 0
    rosters = load_rosters()
    if not tournament_id:
        tournament_id = make_tournament(rosters, rng)
    done = sql("SELECT COUNT(*) FROM matches_match WHERE tournament_id IS NULL")[0][0]
    if args.pages_only:  # after a fix: the pages again at the size the database holds
        results = json.loads(args.json.read_text())
        figures_refresh(kind="strengths", game=PAGE_GAME)  # as measure_ladders leaves them
        for game in GAMES:
            figures_refresh(kind="fairness", game=game)
        results[str(done)]["pages"] = measure_pages(
            page_urls(tournament_id, random.Random(done)), args.repeat
        )
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
        report(done, results[str(done)])
        return
    if args.ladders_only:  # after a fix: the ladders again at the size the database holds
        results = json.loads(args.json.read_text()) if args.json.exists() else {}
        results.setdefault(str(done), {})["ladders"] = measure_ladders(rosters)
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
        report(done, {"ladders": results[str(done)]["ladders"]})
        return
    t0 = time.time() - HORIZON * INTERVAL_S - 3600
    samples = {game: sample_replays(game, SAMPLES, random.Random(game)) for game in GAMES}
    results: dict[str, Any] = json.loads(args.json.read_text()) if args.json.exists() else {}
    for size in sizes:
        if size < done:
            print(f"skipping {size:,}: the database holds {done:,} matches")
            continue
        started = time.perf_counter()
        say(f"filling to {size:,}")
        fill(rosters, samples, done, size, t0, rng)
        save_state(rosters, size)
        done = size
        sql(
            "VACUUM (ANALYZE) matches_match, matches_matchseat, ratings_ratingchange, "
            "ratings_rating, bots_bot, matches_challenge"
        )
        sql("ANALYZE matches_matchreplay")
        result: dict[str, Any] = {"fill s": time.perf_counter() - started, "bots per game":
                                  args.bots}  # fmt: skip
        if args.skip_measure:
            print(f"filled {size:,} in {result['fill s']:.0f} s")
            continue
        result["ladders"] = measure_ladders(rosters)
        result["pages"] = measure_pages(page_urls(tournament_id, random.Random(size)),
                                        args.repeat)  # fmt: skip
        result["storage"] = measure_storage()
        result["measured at"] = timezone.now().isoformat()
        report(size, result)
        results[str(size)] = result
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(f"\nwritten to {args.json}")


if __name__ == "__main__":
    try:
        main()
    finally:
        REDIS.terminate()
        REDIS.wait(timeout=30)
