"""Writes for ladders: apply ratings in order, and rebuild them from the recorded results.

One applier at a time per ladder (it locks the ladder row), taking finished, unrated matches in
``(finished_at, id)`` order and giving each the next ``rating_seq``; a from-scratch
recomputation replays the matches in ``rating_seq`` order through the same pure function
(``ratings.elo``), so it gives identical numbers. Errored matches are never rated.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

import engine
from matches.models import Match, MatchSeat, MatchStatus
from matches.results import BotResult, SeatResult, bot_results
from ratings.elo import DEFAULT_CONFIG, BotRating, Change, EloConfig, rate_match
from ratings.models import Ladder, Rating, RatingChange

BATCH = 500


def ladder_for_game(*, game: str) -> Ladder:
    if game not in engine.available_games():
        raise ValueError(f"unknown game {game!r}")
    ladder, _ = Ladder.objects.get_or_create(game=game)
    return ladder


def ladders_ensure() -> list[Ladder]:
    """One ladder per engine game."""
    return [ladder_for_game(game=game) for game in engine.available_games()]


def ladder_rate_soon(*, ladder_id: int) -> None:
    """Queue the ladder's rating task once the current transaction commits."""
    from ratings.tasks import apply_ratings_task

    transaction.on_commit(lambda: apply_ratings_task.delay(ladder_id))


def _results_by_match(match_ids: Sequence[int]) -> dict[int, list[BotResult]]:
    seats: dict[int, list[SeatResult]] = defaultdict(list)
    rows = (
        MatchSeat.objects.filter(match_id__in=match_ids)
        .order_by("match_id", "seat")
        .values_list("match_id", "bot_id", "bot_version_id", "score", "place", "fault")
    )
    for match_id, bot, version, score, place, fault in rows.iterator(chunk_size=10_000):
        seats[match_id].append(SeatResult(bot, version, score or 0.0, place or 0, bool(fault)))
    return {match_id: bot_results(s) for match_id, s in seats.items()}


def ladder_apply_ratings(*, ladder_id: int, config: EloConfig = DEFAULT_CONFIG) -> int:
    """Rate every finished, unrated match of the ladder; how many were rated."""
    total = 0
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
            results = _results_by_match(match_ids)
            bots = {r.bot for rs in results.values() for r in rs}
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
                for change in rate_match(states, results.get(match_id, []), config):
                    changes.append((match_id, ladder.rated_count, change))
                rated.append(Match(pk=match_id, rated_at=now, rating_seq=ladder.rated_count))
            _insert_changes(ladder.pk, changes)
            _save_ratings(ladder, states, stored)
            Match.objects.bulk_update(rated, ["rated_at", "rating_seq"])
            ladder.save(update_fields=["rated_count"])
        total += len(match_ids)


def ladder_recompute(*, ladder_id: int, config: EloConfig = DEFAULT_CONFIG) -> int:
    """Rebuild the ladder's ratings and history from its recorded results; matches rated so far
    keep their order, and any finished but unrated ones follow. How many matches were rated."""
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
        finished = Match.objects.filter(ladder_id=ladder_id, status=MatchStatus.FINISHED)
        rated = list(
            finished.filter(rating_seq__isnull=False)
            .order_by("rating_seq")
            .values_list("id", flat=True)
        )
        unrated = list(
            finished.filter(rating_seq__isnull=True)
            .order_by("finished_at", "id")
            .values_list("id", flat=True)
        )
        order = rated + unrated
        results = _results_by_match(order)
        states: dict[int, BotRating] = {}
        changes: list[tuple[int, int, Change]] = []
        for seq, match_id in enumerate(order, start=1):
            for change in rate_match(states, results.get(match_id, []), config):
                changes.append((match_id, seq, change))
        RatingChange.objects.filter(ladder=ladder).delete()
        Rating.objects.filter(ladder=ladder).delete()
        _insert_changes(ladder.pk, changes)
        _save_ratings(ladder, states, {})
        now = timezone.now()
        Match.objects.bulk_update(
            [Match(pk=m, rated_at=now, rating_seq=seq) for seq, m in
             enumerate(order, start=1) if seq > len(rated)],  # fmt: skip
            ["rated_at", "rating_seq"],
            batch_size=5_000,
        )
        ladder.rated_count = len(order)
        ladder.save(update_fields=["rated_count"])
    return len(order)


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
                for row in rows:
                    copy.write_row(row)
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
