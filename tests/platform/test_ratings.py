"""Elo maths (pure) and the ladder services: ordered application, idempotence, recomputation."""

from __future__ import annotations

import random
from io import StringIO

import pytest
from django.core.management import call_command
from pytest_django import Settings

import engine
from matches.luck import rated_margin_scale
from matches.models import Match
from matches.results import (
    BotResult,
    SeatResult,
    board_points,
    board_rankings,
    board_shares,
    bot_results,
)
from ratings.elo import DEFAULT_CONFIG, BotRating, EloConfig, expected, rate_match
from ratings.models import Rating, RatingChange
from ratings.selectors import ladder_standings, rating_history
from ratings.services import (
    Recomputed,
    ladder_apply_ratings,
    ladder_for_game,
    ladder_recompute,
)
from tests.platform.factories import active_bot, add_version, finished_match

EQUAL_K = EloConfig(k=20.0, k_provisional=20.0)


def result(bot: int, place: int, faults: int = 0, version: int = 1) -> BotResult:
    return BotResult(bot, version, 0.0, place, faults)


# -- pure ------------------------------------------------------------------------------------


def test_two_entrants_win_moves_ratings_by_k_times_surprise() -> None:
    ratings: dict[int, BotRating] = {}
    changes = rate_match(ratings, [result(1, 1), result(2, 2)], EQUAL_K)
    assert [c.after - c.before for c in changes] == pytest.approx([10.0, -10.0])
    assert ratings[1].rating == pytest.approx(1510.0) and ratings[1].games == 1


def test_a_table_of_four_is_zero_sum_with_equal_k_and_scaled_per_opponent() -> None:
    rng = random.Random(5)
    ratings = {b: BotRating(rng.uniform(1200, 1800), 30, 1, 30) for b in range(1, 5)}
    places = [1, 2, 2, 4]  # a tie for second
    entries = [result(bot, place) for bot, place in enumerate(places, start=1)]
    changes = rate_match(ratings, entries, EQUAL_K)
    assert sum(c.after - c.before for c in changes) == pytest.approx(0.0, abs=1e-9)
    assert changes[0].after > changes[0].before and changes[3].after < changes[3].before
    # the winner beat three opponents, each pair weighted K/3: at most K in all
    assert changes[0].after - changes[0].before < EQUAL_K.k


def test_a_tie_between_equals_changes_nothing() -> None:
    ratings: dict[int, BotRating] = {}
    changes = rate_match(ratings, [result(1, 1), result(2, 1)], EQUAL_K)
    assert [c.after for c in changes] == [1500.0, 1500.0]


def test_a_faulted_entrant_loses_even_with_a_better_place() -> None:
    ratings: dict[int, BotRating] = {}
    changes = rate_match(ratings, [result(1, 1, faults=1), result(2, 2)], EQUAL_K)
    assert changes[0].after < changes[0].before and changes[1].after > changes[1].before


def test_a_board_share_is_the_pairs_fractional_score_in_one_update() -> None:
    # 6½ boards of 10 against an equal opponent: K · (0.65 − 0.5) = 3 points, in one update
    ratings: dict[int, BotRating] = {}
    shares = {(1, 2): 0.65, (2, 1): 0.35}
    changes = rate_match(ratings, [result(1, 2), result(2, 1)], EQUAL_K, shares)
    assert [c.after - c.before for c in changes] == pytest.approx([3.0, -3.0])
    assert ratings[1].games == 1  # one match, not ten


def test_board_rankings_merge_team_seats_and_put_a_faulted_bot_last_on_every_board() -> None:
    seats = [SeatResult(7, 1, 0.0, 1, False), SeatResult(8, 2, 0.0, 2, False),
             SeatResult(7, 1, 0.0, 1, False), SeatResult(8, 2, 0.0, 2, True)]  # fmt: skip
    boards = [[1, 2, 1, 2], [2, 1, 2, 1], [1, 1, 1, 1]]
    rankings = board_rankings(seats, boards)
    assert [[bot for bot, _ in board] for board in rankings] == [[7, 8]] * 3
    assert all(dict(board)[8] > dict(board)[7] for board in rankings)  # 8 faulted: lost all
    clean = [s._replace(faulted=False) for s in seats]
    shares = board_shares(board_rankings(clean, boards))
    assert shares == {(7, 8): 0.5, (8, 7): 0.5}  # one board each, one tie
    assert board_points(board_rankings(clean, boards)) == {7: 1.5, 8: 1.5}


def test_bot_results_merge_partner_seats_and_faults() -> None:
    seats = [SeatResult(7, 1, 80.0, 1, False), SeatResult(8, 2, 20.0, 3, False),
             SeatResult(7, 1, 80.0, 1, True), SeatResult(8, 2, 20.0, 3, False)]  # fmt: skip
    merged = bot_results(seats)
    assert [(r.bot, r.place, r.faults, r.score) for r in merged] == [
        (7, 1, 1, 80.0),
        (8, 3, 0, 20.0),
    ]
    assert merged[0].rank > merged[1].rank  # the faulted team ranks last


def test_new_versions_start_from_the_bots_rating_with_provisional_k() -> None:
    config = DEFAULT_CONFIG
    ratings = {1: BotRating(1600.0, 100, 1, 100), 2: BotRating(1600.0, 100, 5, 100)}
    first = rate_match(ratings, [result(1, 1, version=1), result(2, 2, version=5)], config)
    assert first[0].after - first[0].before == pytest.approx(config.k / 2)  # settled: normal K
    second = rate_match(ratings, [result(1, 1, version=2), result(2, 2, version=5)], config)
    assert second[0].before == first[0].after  # the new version keeps the bot's rating
    assert ratings[1].version == 2 and ratings[1].version_games == 1
    assert second[0].after - second[0].before == pytest.approx(
        config.k_provisional * (1 - expected(second[0].before, second[1].before))
    )
    late = rate_match(ratings, [result(1, 2, version=1), result(2, 1, version=5)], config)
    assert ratings[1].version == 2  # a late match of the old version does not switch back
    assert late[0].after - late[0].before == pytest.approx(
        -config.k * expected(late[0].before, late[1].before)
    )


# -- with the database -----------------------------------------------------------------------


@pytest.mark.django_db
def test_apply_rates_each_match_once_in_finish_order() -> None:
    a, b = active_bot("belote"), active_bot("belote")
    va, vb = a.current_version, b.current_version
    assert va is not None and vb is not None
    older = finished_match("belote", [va, vb], [1, 2], minutes_ago=5)
    newer = finished_match("belote", [va, vb], [2, 1], minutes_ago=1)
    ladder = ladder_for_game(game="belote")
    assert ladder_apply_ratings(ladder_id=ladder.pk) == 2
    assert ladder_apply_ratings(ladder_id=ladder.pk) == 0  # nothing is rated twice
    older.refresh_from_db()
    newer.refresh_from_db()
    assert (older.rating_seq, newer.rating_seq) == (1, 2)
    assert RatingChange.objects.count() == 4  # one per bot per match
    first = RatingChange.objects.get(match=older, bot=a)
    assert first.before == 1500.0 and first.after > 1500.0
    assert Rating.objects.get(bot=a).games == 2
    # the reads the ladder pages use: best first, and each bot's rating match by match
    standings = list(ladder_standings(game="belote"))
    assert [r.bot_id for r in standings] == sorted(
        [a.pk, b.pk], key=lambda bot: -Rating.objects.get(bot_id=bot).rating
    )
    history = list(rating_history(bot_id=a.pk))
    assert [h.match_id for h in history] == [older.pk, newer.pk]
    assert history[0].after == history[1].before == first.after
    assert history[1].after == standings[[r.bot_id for r in standings].index(a.pk)].rating


@pytest.mark.django_db
def test_a_duplicate_match_is_rated_by_its_boards() -> None:
    a, b = active_bot("bauer"), active_bot("bauer")
    assert a.current_version and b.current_version
    # a placed second over the set but won 3 of the 4 boards: the ladder credits a, each board
    # shared by its margin on the scale of Bauer's corrected boards (matches.luck)
    finished_match("bauer", [a.current_version, b.current_version], [2, 1],
                   boards=[[1, 0], [1, 0], [1, 0], [0, 1]])  # fmt: skip
    ladder_apply_ratings(ladder_id=ladder_for_game(game="bauer").pk)
    change = RatingChange.objects.get(bot=a)
    won = engine.margin_share(1, rated_margin_scale("bauer", {}))
    assert won > 0.85
    # provisional K 48 against an equal opponent: 48 · (its mean share − 0.5)
    assert change.after - change.before == pytest.approx(48 * ((3 * won + 1 - won) / 4 - 0.5))


@pytest.mark.django_db
def test_a_belote_board_is_shared_by_its_margin() -> None:
    a, b = active_bot("belote"), active_bot("belote")
    assert a.current_version and b.current_version
    # a won one board by 162 points and lost three by 2: by boards b, by points a
    boards = [[162, 0], [80, 82], [80, 82], [80, 82]]
    finished_match("belote", [a.current_version, b.current_version], [2, 1], boards=boards)
    ladder_apply_ratings(ladder_id=ladder_for_game(game="belote").pk)
    share = (engine.margin_share(162, 81) + 3 * engine.margin_share(-2, 81)) / 4
    assert share > 0.5
    change = RatingChange.objects.get(bot=a)
    assert change.after - change.before == pytest.approx(48 * (share - 0.5))


@pytest.mark.django_db
def test_errored_matches_are_never_rated() -> None:
    a, b = active_bot("bauer"), active_bot("bauer")
    assert a.current_version and b.current_version
    match = finished_match("bauer", [a.current_version, b.current_version], [1, 2])
    Match.objects.filter(pk=match.pk).update(status="error")
    assert ladder_apply_ratings(ladder_id=ladder_for_game(game="bauer").pk) == 0
    assert not Rating.objects.exists()


@pytest.mark.django_db
def test_recompute_from_scratch_equals_the_live_ladder() -> None:
    rng = random.Random(11)
    bots = [active_bot("barbu") for _ in range(6)]
    ladder = ladder_for_game(game="barbu")
    for step in range(40):
        if step == 20:  # a new version mid-way: provisional K again
            add_version(bots[0])
        table = rng.sample(bots, 4)
        versions = [b.current_version for b in table]
        places = rng.sample([1, 2, 3, 4], 4)
        faults = ["timeout" if rng.random() < 0.1 else "" for _ in table]
        # every other match a duplicate set with 1 to 6 boards, ties included
        boards = [[rng.randint(1, 4) for _ in table] for _ in range(rng.randint(1, 6))]
        finished_match("barbu", versions, places, faults=faults,  # type: ignore[arg-type]
                       minutes_ago=100 - step, boards=boards if step % 2 else None)  # fmt: skip
        if step % 7 == 0:  # the live ladder is applied in irregular batches
            ladder_apply_ratings(ladder_id=ladder.pk)
    ladder_apply_ratings(ladder_id=ladder.pk)

    def snapshot() -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
        ratings = list(Rating.objects.order_by("bot_id").values_list(
            "bot_id", "rating", "games", "version_id", "version_games"))  # fmt: skip
        changes = list(RatingChange.objects.order_by("seq", "bot_id").values_list(
            "match_id", "seq", "bot_id", "bot_version_id", "before", "after"))  # fmt: skip
        return ratings, changes

    live = snapshot()
    assert len(live[1]) == 40 * 4
    assert ladder_recompute(ladder_id=ladder.pk) == Recomputed(40, 0)  # it agrees, exactly
    assert snapshot() == live
    # damaged rows are repaired; from nothing, everything is rebuilt identically
    RatingChange.objects.filter(pk=RatingChange.objects.order_by("-seq").first().pk).update(  # type: ignore[union-attr]
        after=0.0
    )
    Rating.objects.update(rating=1.0)
    assert ladder_recompute(ladder_id=ladder.pk) == Recomputed(40, 1)
    assert snapshot() == live
    RatingChange.objects.all().delete()
    Rating.objects.all().delete()
    out = StringIO()
    call_command("recompute_ratings", "--game", "barbu", stdout=out)
    assert "40 matches rated again" in out.getvalue() and "160 rows rewritten" in out.getvalue()
    assert snapshot() == live  # identical floats, not approximately equal


@pytest.mark.django_db(transaction=True)
def test_one_rating_task_is_queued_while_one_is_pending(monkeypatch: pytest.MonkeyPatch) -> None:
    from ratings import services
    from ratings.tasks import apply_ratings_task

    sent: list[int] = []
    monkeypatch.setattr(apply_ratings_task, "apply_async", lambda args, **_: sent.extend(args))
    ladder = ladder_for_game(game="belote")
    for _ in range(3):  # three matches recorded while no task has run yet
        services.ladder_rate_soon(ladder_id=ladder.pk)
    assert sent == [ladder.pk]
    a, b = active_bot("belote"), active_bot("belote")
    finished_match("belote", [a.current_version, b.current_version], [1, 2])  # type: ignore[list-item]
    assert ladder_apply_ratings(ladder_id=ladder.pk) == 1  # the task clears the request
    services.ladder_rate_soon(ladder_id=ladder.pk)
    assert sent == [ladder.pk, ladder.pk]


@pytest.mark.django_db(transaction=True)
def test_a_rating_request_the_broker_refused_is_asked_again_by_the_next_match(
    monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    from kombu.exceptions import OperationalError

    from ratings import services
    from ratings.tasks import apply_ratings_task

    # sent through a broker (not inline), tried again at once after a failure
    monkeypatch.setitem(apply_ratings_task.app.conf, "task_always_eager", False)
    settings.ARENA_BROKER_RETRY_S = 0
    sent: list[int] = []

    def down(args: list[int], **_: object) -> None:
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(apply_ratings_task, "apply_async", down)
    ladder = ladder_for_game(game="barbu")
    services.ladder_rate_soon(ladder_id=ladder.pk)  # the broker is down: nothing queued
    monkeypatch.setattr(apply_ratings_task, "apply_async", lambda args, **_: sent.extend(args))
    services.ladder_rate_soon(ladder_id=ladder.pk)  # it is back: the next match asks again
    assert sent == [ladder.pk]


@pytest.mark.django_db
def test_ladders_with_overdue_unrated_matches_get_a_task(monkeypatch: pytest.MonkeyPatch) -> None:
    from ratings.services import ladders_rate_overdue
    from ratings.tasks import apply_ratings_task

    sent: list[int] = []
    monkeypatch.setattr(apply_ratings_task, "delay", sent.append)
    a, b = active_bot("bauer"), active_bot("bauer")
    finished_match("bauer", [a.current_version, b.current_version], [1, 2])  # type: ignore[list-item]
    assert ladders_rate_overdue() == [] and sent == []  # just finished: its task may be coming
    finished_match("bauer", [a.current_version, b.current_version], [2, 1], minutes_ago=5)  # type: ignore[list-item]
    ladder = ladder_for_game(game="bauer")
    assert ladders_rate_overdue() == [ladder.pk] and sent == [ladder.pk]
