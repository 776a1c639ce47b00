"""Reads for ladders: the current standings, statistics and trends, rating histories."""

from __future__ import annotations

import json
import time
import zlib
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Avg, Count, F, Max, Q, QuerySet, Window
from django.db.models.functions import RowNumber

from arena.dispatch import send
from bots.models import Bot
from matches.luck import rated_margin_scale
from matches.models import Match, MatchReplay, MatchSeat, MatchStatus
from matches.results import Order, SeatResult, board_orders, bot_results
from matches.selectors import rated_boards
from ratings import fairness, strength
from ratings.models import Ladder, Rating, RatingChange

_T = TypeVar("_T")
#: a computation of cached ratings figures: how long its lock lasts at most (a process that
#: dies while computing releases it then), how long another request waits for its result, and
#: how often it looks
COMPUTE_LOCK_S = 60
COMPUTE_WAIT_S = 30.0
COMPUTE_POLL_S = 0.05
#: the lock of a refresh handed to a worker (strengths of a 1,000-bot ladder take a minute or
#: more of a loaded core: issue 35); a worker that dies while computing releases it then
REFRESH_LOCK_S = 900


def ladder_standings(*, game: str) -> QuerySet[Rating]:
    """Current ratings of the game's ladder, best first, with bot and owner loaded."""
    return (
        Rating.objects.filter(ladder__game=game)
        .select_related("bot__owner", "version")
        .order_by("-rating", "bot_id")
    )


def rating_history(*, bot_id: int) -> QuerySet[RatingChange]:
    """The bot's rating after each rated match, oldest first."""
    return RatingChange.objects.filter(bot_id=bot_id).order_by("seq")


@dataclass(frozen=True)
class LadderRow:
    """One line of a game's ladder page."""

    rank: int
    bot_id: int
    bot: str
    owner: str
    rating: float
    games: int
    wins: int  # matches it placed first in (ties for first included)
    average_place: float | None
    trend: float  # rating change over its last TREND_MATCHES rated matches


TREND_MATCHES = 10


def ladder_rows(*, game: str) -> list[LadderRow]:
    """The whole ladder with place statistics and trend, in three queries however long, read
    in one snapshot. Every figure counts the same matches: those the ladder has rated (neither
    unrated play nor a finished match still waiting for its rating)."""
    with one_snapshot():
        ratings = list(ladder_standings(game=game))
        stats: dict[int, Any] = {
            row["bot_id"]: row
            for row in MatchSeat.objects.filter(
                match__ladder__game=game, match__rated_at__isnull=False
            )
            .values("bot_id")
            .annotate(
                wins=Count("match_id", filter=Q(place=1), distinct=True), average=Avg("place")
            )
        }
        trends = _trends(game)
    return [
        LadderRow(
            rank=rank,
            bot_id=r.bot_id,
            bot=r.bot.name,
            owner=r.bot.owner.username,
            rating=r.rating,
            games=r.games,
            wins=stats.get(r.bot_id, {}).get("wins", 0),
            average_place=stats.get(r.bot_id, {}).get("average"),
            trend=trends.get(r.bot_id, 0.0),
        )
        for rank, r in enumerate(ratings, start=1)
    ]


def _trends(game: str) -> dict[int, float]:
    recent = (
        RatingChange.objects.filter(ladder__game=game)
        .annotate(back=Window(RowNumber(), partition_by=[F("bot_id")], order_by=F("seq").desc()))
        .filter(back__lte=TREND_MATCHES)
        .values_list("bot_id", "before", "after")
    )
    trends: dict[int, float] = defaultdict(float)
    for bot_id, before, after in recent:
        trends[bot_id] += after - before
    return trends


def ladder_leaders(*, per_game: int) -> dict[str, list[Rating]]:
    """The best ``per_game`` bots of every ladder, in one query."""
    ranked = (
        Rating.objects.annotate(
            position=Window(
                RowNumber(), partition_by=[F("ladder_id")], order_by=[F("rating").desc(), "bot_id"]
            )
        )
        .filter(position__lte=per_game)
        .select_related("bot__owner", "ladder")
        .order_by("ladder__game", "position")
    )
    leaders: dict[str, list[Rating]] = defaultdict(list)
    for rating in ranked:
        leaders[rating.ladder.game].append(rating)
    return dict(leaders)


def rating_histories(*, game: str, bot_ids: Sequence[int]) -> dict[int, list[float]]:
    """Each bot's rating after every rated match of the game, oldest first, in one query;
    the first value is the rating before its first rated match."""
    histories: dict[int, list[float]] = {bot_id: [] for bot_id in bot_ids}
    rows = (
        RatingChange.objects.filter(ladder__game=game, bot_id__in=bot_ids)
        .order_by("bot_id", "seq")
        .values_list("bot_id", "before", "after")
    )
    for bot_id, before, after in rows:
        points = histories[bot_id]
        if not points:
            points.append(before)
        points.append(after)
    return histories


# -- strengths with intervals, seat fairness (issue 18) -----------------------------------------

#: the most recent finished matches a strength fit reads (bounds the work per request)
STRENGTH_WINDOW = 20_000
#: the most recent replays seat fairness reads (each is decompressed and parsed)
FAIRNESS_WINDOW = 1_000


def match_rankings(*, game: str, limit: int = STRENGTH_WINDOW) -> list[list[Order]]:
    """Finishing orders of the game's most recent ``limit`` finished ladder matches, oldest
    first: per match, its boards' orders for a duplicate match with boards
    (``matches.results.board_orders``: one per board, or two weighted by the margin; the boards
    the ladder rates by, ``matches.selectors.rated_boards``), else its
    one finishing order; an order is ``(bot id, rank)`` per bot, lower is better, equal ranks
    tie and a faulted bot ranks after every bot that did not fault (``matches.results``)."""
    params = Ladder.objects.filter(game=game).values_list("params", flat=True).first()
    scale = rated_margin_scale(game, params or {})
    recent = list(
        rated_boards(
            Match.objects.filter(ladder__game=game, status=MatchStatus.FINISHED).order_by(
                "-finished_at", "-id"
            )
        )[:limit]
    )
    boards = {match_id: b for match_id, b in recent if b is not None}
    rows = (
        MatchSeat.objects.filter(match_id__in=[match_id for match_id, _ in recent])
        .order_by("match__finished_at", "match_id", "seat")
        .values_list("match_id", "bot_id", "bot_version_id", "place", "fault")
    )
    seats: dict[int, list[SeatResult]] = defaultdict(list)
    for match_id, bot, version, place, fault in rows:
        seats[match_id].append(SeatResult(bot, version, 0.0, place or 0, bool(fault)))
    return [
        board_orders(s, boards[match_id], scale=scale) if match_id in boards
        else [[(r.bot, r.rank) for r in bot_results(s)]]
        for match_id, s in seats.items()
    ]  # fmt: skip


@dataclass(frozen=True)
class BotStrength:
    """One line of a ladder's strength table: the Bradley–Terry (heads-up) or Plackett–Luce
    (tables) strength on the Elo scale (1500 = the ladder's average bot) with its bootstrap
    95 % interval. ``tied_with_next``: its interval overlaps the next bot's, so their order is
    not established; ``above_next``: the share of bootstrap resamples in which it is stronger
    than the next bot (None for the last)."""

    rank: int
    bot_id: int
    bot: str
    owner: str
    strength: float
    low: float
    high: float
    matches: int
    tied_with_next: bool
    above_next: float | None


def ladder_strengths(
    *, game: str, resamples: int = strength.DEFAULT_RESAMPLES, seed: int = 0,
    limit: int = STRENGTH_WINDOW,
) -> list[BotStrength]:  # fmt: skip
    """Every bot that played one of the game's last ``limit`` finished matches, strongest
    first, with intervals (deterministic for a given ``seed``)."""
    rankings = match_rankings(game=game, limit=limit)
    if not rankings:
        return []
    ranking = strength.rank(rankings, resamples=resamples, seed=seed)
    bots = {b.pk: b for b in Bot.objects.filter(pk__in=[s.entrant for s in ranking.strengths])
            .select_related("owner")}  # fmt: skip
    last = len(ranking.strengths) - 1
    return [
        BotStrength(
            rank=k + 1,
            bot_id=s.entrant,
            bot=bots[s.entrant].name,
            owner=bots[s.entrant].owner.username,
            strength=s.strength,
            low=s.low,
            high=s.high,
            matches=s.matches,
            tied_with_next=k < last and ranking.tied_with_next(k),
            above_next=ranking.order_confidence[k] if k < last else None,
        )  # fmt: skip
        for k, s in enumerate(ranking.strengths)
    ]


def seat_fairness(*, game: str, limit: int = FAIRNESS_WINDOW) -> fairness.SeatFairness:
    """Results by seat and by dealer position over the game's most recent ``limit`` finished
    rated matches (under the ladder's rules, so every one is dealt alike), from their
    replays."""
    stored = (
        MatchReplay.objects.filter(match__ladder__game=game, match__status=MatchStatus.FINISHED)
        .order_by("-match__finished_at", "-match_id")
        .values_list("data", flat=True)[:limit]
    )
    return fairness.seat_fairness(
        game, (json.loads(zlib.decompress(bytes(data))) for data in stored)
    )


def ladder_strengths_current(*, game: str) -> list[BotStrength]:
    """:func:`ladder_strengths` as of a recent ladder result (see :func:`_per_result`; the
    bootstrap takes seconds to minutes, and pages and the API read it often)."""
    return _per_result("strengths", game, lambda: ladder_strengths(game=game))


def seat_fairness_current(*, game: str) -> fairness.SeatFairness:
    """:func:`seat_fairness` as of a recent ladder result (see :func:`_per_result`; it reads up
    to a thousand stored replays)."""
    return _per_result("fairness", game, lambda: seat_fairness(game=game))


@dataclass(frozen=True)
class LadderFit:
    """What the ladder scheduler pairs by: the point strength fit of the game's recent matches
    (None without any), and how long computing it took (seconds, wall clock)."""

    fit: strength.Fit[int] | None
    seconds: float = 0.0


def ladder_fit(*, game: str) -> LadderFit:
    """:class:`LadderFit` of the game's last :data:`STRENGTH_WINDOW` finished matches."""
    started = time.perf_counter()
    fit = strength.fit_matches(match_rankings(game=game))
    return LadderFit(fit, time.perf_counter() - started)


#: the scheduler fits again at most once per this many times its last fit's own duration
TOP_UP_FIT_DUTY = 10


def ladder_fit_for_top_up(*, game: str) -> LadderFit:
    """:func:`ladder_fit` for the scheduler, which tops a ladder's queue up on a worker after
    each of its results: computed again whenever a newer ladder result exists, but at most
    once per :data:`TOP_UP_FIT_DUTY` times the last fit's own duration. A ladder of a few bots
    (a fit in milliseconds) so pairs by a fit that holds every result, while one of 1,000 bots
    and 20,000 matches (1-17 s, issue 35) pairs by one up to a few minutes old, and the
    fits take at most a tenth of a worker's time (docs/ranking.md, "The ladder tops up after
    each result")."""
    key = f"ratings:schedule:{game}"
    latest = _latest_ladder_match(game)  # read first: a result arriving meanwhile is newer
    stored: tuple[int | None, float, LadderFit] | None = cache.get(key)
    if stored is not None:
        stamp, at, fitted = stored
        if stamp == latest or time.time() - at < TOP_UP_FIT_DUTY * fitted.seconds:
            return fitted
    fitted = ladder_fit(game=game)
    cache.set(key, (latest, time.time(), fitted), timeout=24 * 3600)
    return fitted


def figures_refresh(*, kind: str, game: str) -> None:
    """Compute a ladder's ``kind`` of figures (``"strengths"`` or ``"fairness"``) and store them
    where :func:`_per_result` reads them, then release the lock of the read that asked for it
    (the task ``arena.ratings.figures`` runs this on a worker)."""
    compute: Callable[[], object] = {
        "strengths": lambda: ladder_strengths(game=game),
        "fairness": lambda: seat_fairness(game=game),
    }[kind]
    key = f"ratings:{kind}:{game}"
    try:
        stamp = _latest_ladder_match(game)  # read first: a result arriving meanwhile is newer
        cache.set(key, (stamp, time.time(), compute()), timeout=24 * 3600)
    finally:
        cache.delete(f"{key}:computing")


def _latest_ladder_match(game: str) -> int | None:
    """The id of the game's latest finished ladder match: the ladder's id first, so that the
    maximum is one step down the index ``match_ladder_latest`` whatever the number of matches
    (joined to the ladder by game, PostgreSQL read every match of the game)."""
    ladder = Ladder.objects.filter(game=game).values_list("pk", flat=True).first()
    if ladder is None:
        return None
    latest: int | None = Match.objects.filter(
        ladder_id=ladder, status=MatchStatus.FINISHED
    ).aggregate(latest=Max("id"))["latest"]
    return latest


def _per_result(kind: str, game: str, compute: Callable[[], _T]) -> _T:
    """``compute()`` as of the game's latest finished ladder match, computed again at most every
    ``settings.ARENA_FIGURES_REFRESH_SECONDS``. On a busy ladder a result arrives every second
    or so (every tournament match is rated too), and each would otherwise start a new
    computation on the next page view; in between, the figures lag the newest results by at
    most that many seconds.

    Out-of-date figures are computed again by a worker (:func:`figures_refresh`), off the
    request path: a 1,000-bot ladder's bootstrap takes far longer than a page may (issue 35),
    and the request that noticed serves the previous figures meanwhile. Only a request that
    finds none at all (a new ladder, an emptied cache) or no broker computes them itself."""

    def refresh() -> bool:
        from ratings.tasks import refresh_figures_task  # tasks import selectors: import late

        return send(refresh_figures_task, kind, game)

    return _cached(
        f"{kind}:{game}", compute, stamp=_latest_ladder_match(game),
        max_age=settings.ARENA_FIGURES_REFRESH_SECONDS, refresh=refresh,
    )  # fmt: skip


def _cached(
    key: str, compute: Callable[[], _T], *, stamp: Hashable, max_age: float = 0,
    refresh: Callable[[], bool] | None = None,
) -> _T:  # fmt: skip
    """``compute()`` kept in the cache under ``ratings:<key>`` with ``stamp``, a mark of the
    data it was computed from: served while the data's stamp is the same, or for ``max_age``
    seconds after it was computed.

    One computation per key at a time, across every web process: the request that finds the
    figures out of date takes a lock in the cache and computes. The others meanwhile get the
    previous figures, or, when there are none yet, wait for the new ones (up to
    :data:`COMPUTE_WAIT_S`, then compute themselves, in case the first one died). Without the
    lock, a burst of views of a ladder page started one bootstrap or replay scan each, and the
    slower each became on a busy machine the more requests piled into it.

    With ``refresh``, out-of-date figures are not computed here: ``refresh()`` hands the
    computation to a worker, which releases the lock when it has stored them (False: it could
    not, and this request computes), and the previous figures are served."""
    full_key = f"ratings:{key}"

    def fresh(stored: tuple[Hashable, float, _T]) -> bool:
        return stored[0] == stamp or time.time() - stored[1] < max_age

    stored: tuple[Hashable, float, _T] | None = cache.get(full_key)
    if stored is not None and fresh(stored):
        return stored[2]
    lock = f"{full_key}:computing"
    locked = cache.add(lock, 1, timeout=COMPUTE_LOCK_S if refresh is None else REFRESH_LOCK_S)
    if locked:  # a computation that ended since the first look has left its figures
        stored = cache.get(full_key)
        if stored is not None and fresh(stored):
            cache.delete(lock)
            return stored[2]
        if stored is not None and refresh is not None and refresh():
            newer: tuple[Hashable, float, _T] | None = cache.get(full_key)
            return (newer or stored)[2]  # newer: the task ran inline (no separate workers)
    elif stored is not None:
        return stored[2]
    else:
        deadline = time.monotonic() + COMPUTE_WAIT_S
        while time.monotonic() < deadline:
            time.sleep(COMPUTE_POLL_S)
            stored = cache.get(full_key)
            if stored is not None:
                return stored[2]
    try:
        value = compute()
        cache.set(full_key, (stamp, time.time(), value), timeout=24 * 3600)
    finally:
        if locked:
            cache.delete(lock)
    return value


def ladder_rows_current(*, game: str) -> list[LadderRow]:
    """:func:`ladder_rows`, computed again when the ladder rates a match (its statistics
    aggregate every rated match of the game: hundreds of milliseconds for a ladder of 100,000
    matches). The stamp is the ladder's count of rated matches with its bots' latest change,
    and the rows only count rated matches, so a cached row holds one moment of the ladder."""
    stamp = Rating.objects.filter(ladder__game=game).aggregate(
        bots=Count("pk"), changed=Max("updated_at"), rated=Max("ladder__rated_count")
    )
    changed = stamp["changed"].timestamp() if stamp["changed"] else 0
    return _cached(
        f"ladder-rows:{game}", lambda: ladder_rows(game=game),
        stamp=(stamp["bots"], changed, stamp["rated"]),
    )  # fmt: skip


@contextmanager
def one_snapshot() -> Iterator[None]:
    """Run the reads inside in one snapshot of the database (PostgreSQL's repeatable read), so
    that a rating committed between two of them cannot make their figures disagree; inside an
    outer transaction, or on SQLite (whose transactions already read one snapshot), it is a
    plain atomic block."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        yield
