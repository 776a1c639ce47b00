"""Site benchmark (issue 11): server time and query count of the heaviest pages, and the replay
page's weight.

In-process through Django's test client, on a throwaway PostgreSQL database created next to the
one ``DATABASE_URL`` names (``<name>_webbench``, dropped at the end) and filled with bulk inserts:

- the Barbu ladder with 1,000 bots and 100,000 rated matches (400,000 seats and rating changes);
- a tournament page with 64 bots, its whole schedule finished;
- the replay viewer of a Barbu Geronimo duplicate match (with doubling) played by the engine's
  house agents: the page, then the API's replay JSON the viewer fetches.

Each page is requested once (filling the caches: the ladder's rows are kept until a rating of
the ladder changes), then ``--repeat`` times; the median server time is printed with the query
count and the ratio to the targets (100 ms, 15 queries), and the first request's time. The replay
page's weight is the gzip size of its HTML, every script and style sheet it loads (the viewer's
modules included) and the replay JSON. No match is run: the schedule's run tasks are not sent.

Run: ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/arena_web python benchmarks/web.py``
(about 2 minutes, most of it the bulk inserts).
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.contrib.staticfiles import finders  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402

import matches.services  # noqa: E402
from bots.models import Bot, BotVersion, BotVersionStatus, Package  # noqa: E402
from matches.execution import play  # noqa: E402
from matches.models import Match, MatchOrigin, MatchSeat, MatchStatus  # noqa: E402
from matches.services import MatchSpec, match_claim, match_record_result, matches_create  # noqa: E402,E501
from ratings.models import Rating, RatingChange  # noqa: E402
from ratings.services import ladder_for_game  # noqa: E402
from tournaments.services import tournament_create  # noqa: E402

TARGET_MS = 100.0
TARGET_QUERIES = 15
TARGET_WEIGHT_KB = 300.0
GAME = "barbu"
BATCH = 5_000
_ASSET = re.compile(r'<(?:script[^>]*\bsrc|link[^>]*\bhref)="/static/([^"]+)"')
_IMPORT = re.compile(r'^import [^"]*"\./([^"]+)";', re.MULTILINE)


@contextmanager
def throwaway_database() -> Iterator[None]:
    """A fresh database beside the configured one, migrated, and dropped afterwards."""
    connection.settings_dict["TEST"]["NAME"] = f"{connection.settings_dict['NAME']}_webbench"
    setup_test_environment(debug=False)
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        yield
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def make_bots(count: int, owners: int) -> list[BotVersion]:
    users = User.objects.bulk_create(User(username=f"author{i}") for i in range(owners))
    data = b"print('bot')\n"
    package = Package.objects.create(sha256="0" * 64, data=data, size=len(data))
    bots = Bot.objects.bulk_create(
        Bot(owner=users[i % owners], name=f"bot{i}", game=GAME) for i in range(count)
    )
    versions = BotVersion.objects.bulk_create(
        BotVersion(bot=b, number=1, package=package, filename="bot.py", runtime="python3",
                   entry="bot.py", size=len(data), status=BotVersionStatus.ACTIVE)
        for b in bots
    )  # fmt: skip
    for bot, version in zip(bots, versions, strict=True):
        bot.current_version = version
    Bot.objects.bulk_update(bots, ["current_version"], batch_size=BATCH)
    return versions


def fill_ladder(versions: list[BotVersion], matches: int, rng: random.Random) -> None:
    """``matches`` finished, rated four-seat matches between random bots of ``versions``."""
    ladder = ladder_for_game(game=GAME)
    rating = {v.bot_id: 1500.0 for v in versions}
    games = dict.fromkeys(rating, 0)
    start = timezone.now() - timedelta(days=100)
    for first in range(0, matches, BATCH):
        rows = Match.objects.bulk_create(
            Match(game=GAME, params={}, seed=i, duplicate=True, origin=MatchOrigin.LADDER,
                  ladder=ladder, status=MatchStatus.FINISHED,
                  finished_at=start + timedelta(minutes=i), rated_at=start)
            for i in range(first, min(first + BATCH, matches))
        )  # fmt: skip
        seats, changes = [], []
        for match in rows:
            table = rng.sample(versions, 4)
            for seat, version in enumerate(table):
                seats.append(MatchSeat(match=match, seat=seat, bot_id=version.bot_id,
                                       bot_version=version, score=float(seat),
                                       place=seat + 1))  # fmt: skip
                before = rating[version.bot_id]
                rating[version.bot_id] = after = before + (1.5 - seat) * 4
                games[version.bot_id] += 1
                changes.append(RatingChange(ladder=ladder, match=match, seq=match.seed,
                                            bot_id=version.bot_id, bot_version=version,
                                            before=before, after=after))  # fmt: skip
        MatchSeat.objects.bulk_create(seats, batch_size=BATCH)
        RatingChange.objects.bulk_create(changes, batch_size=BATCH)
    Rating.objects.bulk_create(
        Rating(ladder=ladder, bot_id=v.bot_id, rating=rating[v.bot_id], games=games[v.bot_id],
               version=v, version_games=games[v.bot_id])
        for v in versions
    )  # fmt: skip


def finished_tournament(versions: list[BotVersion], rng: random.Random) -> int:
    """A tournament of these bots with every scheduled match finished (places at random)."""
    creator = User.objects.create(username="organiser")
    tournament = tournament_create(created_by=creator, name="Big", game=GAME,
                                   bot_ids=[v.bot_id for v in versions])  # fmt: skip
    now = timezone.now()
    tournament.matches.update(status=MatchStatus.FINISHED, finished_at=now)
    seats = list(MatchSeat.objects.filter(match__tournament=tournament))
    by_match: dict[int, list[MatchSeat]] = {}
    for seat in seats:
        by_match.setdefault(seat.match_id, []).append(seat)
    for table in by_match.values():
        places = rng.sample(range(1, len(table) + 1), len(table))
        for seat, place in zip(table, places, strict=True):
            seat.place, seat.score = place, float(10 * (len(table) - place))
    MatchSeat.objects.bulk_update(seats, ["place", "score"], batch_size=BATCH)
    return tournament.pk


def geronimo_match(versions: list[BotVersion]) -> int:
    """A Barbu Geronimo duplicate match with doubling, played by the house agents."""
    params = {"mode": "geronimo", "doubling": True}
    (match,) = matches_create(game=GAME, params=params, duplicate=True,
                              origin=MatchOrigin.CHALLENGE,
                              specs=[MatchSpec(entrants=versions[:4], seed=11)])  # fmt: skip
    token = match_claim(match_id=match.pk, worker="bench")
    assert token is not None
    seats = list(MatchSeat.objects.filter(match=match).order_by("seat"))
    played = play(game=GAME, params=match.params, seed=match.seed, duplicate=True,
                  seats=[None] * len(seats))  # fmt: skip
    played.logs = [""] * len(seats)
    assert match_record_result(match=match, token=token, played=played, seats=seats)
    return match.pk


def measure(client: Client, url: str, repeat: int) -> tuple[float, float, int, bytes]:
    """The first request's server time (ms; it fills the caches), the median over ``repeat``
    warm requests, the queries of one, and the body."""
    started = time.perf_counter()
    client.get(url)
    first = (time.perf_counter() - started) * 1000
    times = []
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return first, statistics.median(times), len(queries), response.content


def static_text(name: str) -> bytes:
    path = finders.find(name)
    assert isinstance(path, str), name
    return Path(path).read_bytes()


def page_assets(html: str) -> dict[str, bytes]:
    """Every script and style sheet the page loads, following the viewer's module imports."""
    pending = _ASSET.findall(html)
    found: dict[str, bytes] = {}
    while pending:
        name = pending.pop()
        if name in found:
            continue
        found[name] = static_text(name)
        if name.endswith(".js"):
            folder = name.rsplit("/", 1)[0]
            pending += [f"{folder}/{m}" for m in _IMPORT.findall(found[name].decode())]
    return found


def report(name: str, first: float, ms: float, queries: int) -> None:
    print(f"{name:<34} {ms:7.1f} ms ({ms / TARGET_MS:4.2f} of target; first {first:5.0f} ms)  "
          f"{queries:3d} queries ({queries / TARGET_QUERIES:4.2f} of target)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=1_000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--tournament-bots", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    rng = random.Random(7)
    matches.services._enqueue = lambda match_ids: None  # nothing is played: no run task is sent
    with throwaway_database():
        started = time.perf_counter()
        versions = make_bots(args.bots, owners=max(1, args.bots // 10))
        fill_ladder(versions, args.matches, rng)
        tournament_id = finished_tournament(versions[: args.tournament_bots], rng)
        match_id = geronimo_match(versions)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        seconds = time.perf_counter() - started
        print(f"data: {args.bots} bots, {args.matches} ladder matches, a tournament of "
              f"{args.tournament_bots} bots, in {seconds:.0f} s\n")  # fmt: skip

        client = Client()
        pages: dict[str, Callable[[], tuple[float, float, int, bytes]]] = {
            f"ladder ({args.bots} bots)": lambda: measure(client, f"/ladder/{GAME}/", args.repeat),
            f"tournament ({args.tournament_bots} bots)":
                lambda: measure(client, f"/tournaments/{tournament_id}/", args.repeat),
            "replay page (Geronimo, duplicate)":
                lambda: measure(client, f"/matches/{match_id}/", args.repeat),
            "replay JSON (API)":
                lambda: measure(client, f"/api/matches/{match_id}/replay/", args.repeat),
        }  # fmt: skip
        bodies = {}
        for name, run in pages.items():
            first, ms, queries, bodies[name] = run()
            report(name, first, ms, queries)

        html = bodies["replay page (Geronimo, duplicate)"]
        parts = {"page HTML": html, "replay JSON": bodies["replay JSON (API)"],
                 **page_assets(html.decode())}  # fmt: skip
        print("\nreplay page weight (gzip -6):")
        total = 0
        for part, body in parts.items():
            size = len(gzip.compress(body, compresslevel=6))
            total += size
            print(f"  {part:<32} {len(body) / 1024:8.1f} kB raw {size / 1024:7.1f} kB gzip")
        kb = total / 1024
        print(
            f"  {'total':<32} {'':>16} {kb:7.1f} kB gzip "
            f"({kb / TARGET_WEIGHT_KB:4.2f} of the {TARGET_WEIGHT_KB:.0f} kB target)"
        )


if __name__ == "__main__":
    main()
