"""Writes for ladders: apply ratings in order, and rebuild them from the recorded results.

One applier at a time per ladder (it locks the ladder row), taking finished, unrated matches in
``(finished_at, id)`` order and giving each the next ``rating_seq``; a from-scratch
recomputation replays the matches in ``rating_seq`` order through the same pure function
(``ratings.elo``), so it gives identical numbers. Errored matches are never rated. A duplicate
match is rated by its boards (``Match.boards``, stored when it was recorded; in the games whose
ladder reads luck-corrected scores, ``Match.corrected_boards``, chosen by
``matches.selectors.rated_boards``): each pair scores its share of the boards.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, NamedTuple

from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

import engine
from arena.dispatch import send
from matches.luck import rated_margin_scale
from matches.models import Match, MatchSeat, MatchStatus
from matches.results import BotResult, SeatResult, board_orders, board_shares, bot_results
from matches.selectors import rated_boards
from ratings.elo import DEFAULT_CONFIG, BotRating, Change, EloConfig, rate_match
from ratings.models import Ladder, Rating, RatingChange, RatingRequest

log = logging.getLogger(__name__)

BATCH = 500


def ladder_for_game(*, game: str) -> Ladder:
    if game not in engine.available_games():
        raise ValueError(f"unknown game {game!r}")
    ladder, created = Ladder.objects.get_or_create(game=game)
    if created:
        RatingRequest.objects.get_or_create(ladder=ladder)
    return ladder


def ladders_ensure() -> list[Ladder]:
    """One ladder per engine game."""
    return [ladder_for_game(game=game) for game in engine.available_games()]


def ladder_rate_soon(*, ladder_id: int) -> None:
    """Once the current transaction commits, make sure a rating task for the ladder is queued.

    Matches finish faster than one task each could rate them usefully, so a task is queued only
    if none is (compare-and-swap on ``RatingRequest.requested``), and with a short delay that
    lets it take the matches finishing meanwhile. The task clears the flag (committed) before it
    reads the unrated matches: a match committed after that read finds the flag clear and
    queues the next task.
    """
    transaction.on_commit(lambda: _request_rating(ladder_id))


RATING_DELAY_S = 1.0


def _request_rating(ladder_id: int) -> None:
    from ratings.tasks import apply_ratings_task

    requests = RatingRequest.objects.filter(ladder_id=ladder_id)
    if requests.filter(requested=False).update(requested=True):
        if not send(apply_ratings_task, ladder_id, countdown=RATING_DELAY_S):
            # the broker is down: the next match (or the overdue pass) asks again; the flag
            requests.update(requested=False)  # must not stay set
    elif not requests.exists():  # a ladder made before its request row (fixtures, the admin)
        _, created = RatingRequest.objects.get_or_create(ladder_id=ladder_id,
                                                         defaults={"requested": True})  # fmt: skip
        if created:
            send(apply_ratings_task, ladder_id, countdown=RATING_DELAY_S)


class Rated(NamedTuple):
    """What rating one match needs: its bot results and, for a match with boards, each pair's
    board share (``None``: scored by rank)."""

    results: list[BotResult]
    shares: dict[tuple[int, int], float] | None


def _results_by_match(match_ids: Sequence[int], scale: float | None) -> dict[int, Rated]:
    seats: dict[int, list[tuple[int, int, int, str]]] = defaultdict(list)
    rows = (
        MatchSeat.objects.filter(match_id__in=match_ids)
        .order_by("match_id", "seat")
        .values_list("match_id", "bot_id", "bot_version_id", "place", "fault")
    )
    for match_id, bot, version, place, fault in rows:
        seats[match_id].append((bot, version, place or 0, fault))
    boards = _boards(Match.objects.filter(pk__in=match_ids))
    return {match_id: _rated(s, boards.get(match_id), scale) for match_id, s in seats.items()}


def _boards(matches: QuerySet[Match]) -> dict[int, list[list[float]]]:
    """The boards that rate those of ``matches`` that have boards (``rated_boards``:
    luck-corrected where the game's ladder reads them so; a Badugi match has corrected boards
    only)."""
    have = Q(boards__isnull=False) | Q(corrected_boards__isnull=False)
    rows = rated_boards(matches.filter(have))
    return {match_id: boards for match_id, boards in rows if boards is not None}


def ladders_rate_overdue(*, older_than: timedelta = timedelta(minutes=1)) -> list[int]:
    """Queue a rating task for every ladder with matches left unrated for a while (a rating
    message lost with a broker restart); the ids of those ladders."""
    from ratings.tasks import apply_ratings_task

    overdue = list(
        Match.objects.filter(
            status=MatchStatus.FINISHED, rated_at__isnull=True, ladder__isnull=False,
            finished_at__lt=timezone.now() - older_than,
        ).values_list("ladder_id", flat=True).distinct()
    )  # fmt: skip
    for ladder_id in overdue:
        apply_ratings_task.delay(ladder_id)
    return overdue


def ladder_apply_ratings(*, ladder_id: int, config: EloConfig = DEFAULT_CONFIG) -> int:
    """Rate every finished, unrated match of the ladder; how many were rated."""
    total = 0
    RatingRequest.objects.filter(ladder_id=ladder_id, requested=True).update(requested=False)
    while True:
        with transaction.atomic():
            ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
            match_ids = list(
                Match.objects.filter(
                    ladder_id=ladder_id, status=MatchStatus.FINISHED, rated_at__isnull=True
                )
                .order_by("finished_at", "id")
                .values_list("id", flat=True)[:BATCH]
            )
            if not match_ids:
                return total
            results = _results_by_match(match_ids, rated_margin_scale(ladder.game, ladder.params))
            bots = {r.bot for rated in results.values() for r in rated.results}
            stored = {r.bot_id: r for r in Rating.objects.filter(ladder=ladder, bot_id__in=bots)}
            states = {
                bot: BotRating(r.rating, r.games, r.version_id, r.version_games)
                for bot, r in stored.items()
            }
            changes: list[tuple[int, int, Change]] = []
            now = timezone.now()
            rated: list[Match] = []
            for match_id in match_ids:
                ladder.rated_count += 1
                rated_match = results.get(match_id, Rated([], None))
                for change in rate_match(states, rated_match.results, config, rated_match.shares):
                    changes.append((match_id, ladder.rated_count, change))
                rated.append(Match(pk=match_id, rated_at=now, rating_seq=ladder.rated_count))
            _insert_changes(ladder.pk, changes)
            _save_ratings(ladder, states, stored)
            Match.objects.bulk_update(rated, ["rated_at", "rating_seq"])
            ladder.save(update_fields=["rated_count"])
        total += len(match_ids)


@dataclass(frozen=True)
class Recomputed:
    matches: int  # rated, in order
    rewritten: int  # history rows that differed from the recomputation (0: it agreed)


def ladder_recompute(*, ladder_id: int, config: EloConfig = DEFAULT_CONFIG) -> Recomputed:
    """Rebuild the ladder's ratings and history from its recorded results; matches rated so far
    keep their order, and any finished but unrated ones follow in ``(finished_at, id)`` order.

    Only history rows that differ from the recomputation are rewritten: a ladder holds 100,000s
    of results and, when the live ladder was right, the rewrite is empty (deleting and inserting
    every row instead would also leave as many dead rows behind)."""
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
        _order_unrated(ladder)
        states: dict[int, BotRating] = {}
        changes: list[tuple[int, int, Change]] = []
        count = 0
        scale = rated_margin_scale(ladder.game, ladder.params)
        for match_id, seq, rated_match in _rated_results(ladder.pk, scale):
            count += 1
            for change in rate_match(states, rated_match.results, config, rated_match.shares):
                changes.append((match_id, seq, change))
        rewritten = _rewrite_history(ladder.pk, changes)
        Rating.objects.filter(ladder=ladder).delete()
        _save_ratings(ladder, states, {})
        ladder.rated_count = count
        ladder.save(update_fields=["rated_count"])
    return Recomputed(count, rewritten)


def _rewrite_history(ladder_id: int, changes: list[tuple[int, int, Change]]) -> int:
    """Make the ladder's stored history equal ``changes``; how many rows were written."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT id, match_id, bot_id, seq, bot_version_id, before, after
                FROM {RatingChange._meta.db_table} WHERE ladder_id = %s""",
            [ladder_id],
        )
        stored = {
            (match, bot): (pk, (seq, version, before, after))
            for pk, match, bot, seq, version, before, after in cursor.fetchall()
        }
    missing: list[tuple[int, int, Change]] = []
    stale: list[int] = []
    for match_id, seq, c in changes:
        old = stored.pop((match_id, c.bot), None)
        if old is None or old[1] != (seq, c.version, c.before, c.after):
            missing.append((match_id, seq, c))
            if old is not None:
                stale.append(old[0])
    stale.extend(pk for pk, _ in stored.values())
    for start in range(0, len(stale), 10_000):
        RatingChange.objects.filter(pk__in=stale[start : start + 10_000]).delete()
    _insert_changes(ladder_id, missing)
    return len(missing) + len(stored)


def _order_unrated(ladder: Ladder) -> None:
    """Give the finished, unrated matches of the ladder the next places in its rating order, in
    one statement."""
    table = Match._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""UPDATE {table} SET rating_seq = ordered.seq, rated_at = %s
                FROM (SELECT id, %s + ROW_NUMBER() OVER (ORDER BY finished_at, id) AS seq
                      FROM {table}
                      WHERE ladder_id = %s AND status = %s AND rating_seq IS NULL) AS ordered
                WHERE {table}.id = ordered.id""",
            [timezone.now(), ladder.rated_count, ladder.pk, MatchStatus.FINISHED],
        )


def _rated_results(ladder_id: int, scale: float | None) -> Iterable[tuple[int, int, Rated]]:
    """``(match id, rating_seq, what rating it needs)`` of the ladder's rated matches, in rating
    order."""
    boards = _boards(
        Match.objects.filter(
            ladder_id=ladder_id, status=MatchStatus.FINISHED, rating_seq__isnull=False
        )
    )
    match_table, seat_table = Match._meta.db_table, MatchSeat._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT s.match_id, m.rating_seq, s.bot_id, s.bot_version_id, s.place, s.fault
                FROM {seat_table} s JOIN {match_table} m ON m.id = s.match_id
                WHERE m.ladder_id = %s AND m.status = %s AND m.rating_seq IS NOT NULL
                ORDER BY m.rating_seq, s.seat""",
            [ladder_id, MatchStatus.FINISHED],
        )
        current, seq = None, 0
        seats: list[tuple[int, int, int, str]] = []
        for match_id, match_seq, bot, version, place, fault in cursor.fetchall():
            if match_id != current:
                if current is not None:
                    yield current, seq, _rated(seats, boards.get(current), scale)
                current, seq, seats = match_id, match_seq, []
            seats.append((bot, version, place or 0, fault))
        if current is not None:
            yield current, seq, _rated(seats, boards.get(current), scale)


def _rated(
    seats: list[tuple[int, int, int, str]], boards: list[list[float]] | None, scale: float | None
) -> Rated:
    """The bot results of a match's ``(bot, version, place, fault)`` seat rows (ratings need no
    scores), with a shortcut for the usual case of one seat per bot, and its board shares
    (shared by margin on ``scale``, ``matches.results.board_orders``)."""
    if boards is None and len({bot for bot, _, _, _ in seats}) == len(seats):
        return Rated([BotResult(b, v, 0.0, p, 1 if f else 0) for b, v, p, f in seats], None)
    results = [SeatResult(b, v, 0.0, p, bool(f)) for b, v, p, f in seats]
    shares = None if boards is None else board_shares(board_orders(results, boards, scale=scale))
    return Rated(bot_results(results), shares)


def _insert_changes(ladder_id: int, changes: Iterable[tuple[int, int, Change]]) -> None:
    rows = (
        (ladder_id, match_id, seq, c.bot, c.version, c.before, c.after)
        for match_id, seq, c in changes
    )
    columns = ["ladder_id", "match_id", "seq", "bot_id", "bot_version_id", "before", "after"]
    if connection.vendor == "postgresql":  # COPY: a full recomputation writes 100,000s of rows
        table = RatingChange._meta.db_table
        with connection.cursor() as cursor:
            raw: Any = cursor.cursor  # the psycopg cursor under Django's wrapper
            with raw.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                # COPY's text format; repr() writes a float exactly (the row's own formatting
                # per value is several times slower)
                lines = [
                    f"{ladder}\t{match}\t{seq}\t{bot}\t{version}\t{before!r}\t{after!r}\n"
                    for ladder, match, seq, bot, version, before, after in rows
                ]
                copy.write("".join(lines))
        return
    RatingChange.objects.bulk_create(
        (RatingChange(**dict(zip(columns, row, strict=True))) for row in rows), batch_size=2_000
    )


def _save_ratings(ladder: Ladder, states: dict[int, BotRating], stored: dict[int, Rating]) -> None:
    fields = ["rating", "games", "version", "version_games", "updated_at"]
    now = timezone.now()
    changed, new = [], []
    for bot, s in states.items():
        row = stored.get(bot)
        if row is None:
            new.append(Rating(ladder=ladder, bot_id=bot, rating=s.rating, games=s.games,
                              version_id=s.version, version_games=s.version_games))  # fmt: skip
            continue
        row.rating, row.games, row.version_id = s.rating, s.games, s.version
        row.version_games, row.updated_at = s.version_games, now
        changed.append(row)
    Rating.objects.bulk_create(new, batch_size=2_000)
    Rating.objects.bulk_update(changed, fields, batch_size=2_000)
