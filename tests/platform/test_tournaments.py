"""Tournaments: creation checks, the schedule turned into matches, standings, the cross-table,
completion by the last recorded match, and the ladder scheduler."""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone
from pytest_django import DjangoCaptureOnCommitCallbacks

import tournaments.services
from arena.errors import ApplicationError
from bots.models import BotVersionStatus
from matches.heartbeats import worker_beat
from matches.models import Match, MatchOrigin, MatchStatus, WorkerHeartbeat
from matches.services import MatchSpec, match_claim, match_record_error, matches_create
from ratings.services import ladder_for_game
from tests.platform.factories import BotFactory, active_bot, add_version, finished_match
from tournaments.ladder_limits import DEFAULT_QUEUE_DEPTH
from tournaments.models import Tournament, TournamentStatus
from tournaments.selectors import tournament_progress, tournament_table
from tournaments.services import (
    ladder_queue_depth,
    ladder_schedule,
    ladder_top_up,
    ladder_top_up_soon,
    tournament_cancel,
    tournament_create,
    tournament_schedule,
)

pytestmark = pytest.mark.django_db


def create(game: str, bots: list, **kwargs: object):  # type: ignore[no-untyped-def]
    """A tournament with its matches (the scheduling task, which its creation queues on
    commit, run here)."""
    tournament = tournament_create(
        created_by=bots[0].owner, name="t", game=game, bot_ids=[b.pk for b in bots], **kwargs
    )
    tournament_schedule(tournament_id=tournament.pk)
    return tournament


@pytest.fixture
def no_run(django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks):  # type: ignore[no-untyped-def]
    """Keep the matches queued: their tasks are captured, not run."""
    with django_capture_on_commit_callbacks() as callbacks:
        yield callbacks


def test_refusals_name_the_problem(no_run: object) -> None:
    barbu = [active_bot("barbu") for _ in range(3)]
    with pytest.raises(ApplicationError, match="3 bots cannot fill a table of 4"):
        create("barbu", barbu)
    with pytest.raises(ApplicationError, match="plays barbu, not belote"):
        create("belote", [active_bot("belote"), barbu[0]])
    idle = BotFactory(game="barbu")
    add_version(idle, status=BotVersionStatus.REJECTED)
    with pytest.raises(ApplicationError, match="has no validated version"):
        create("barbu", [*barbu, idle])
    with pytest.raises(ApplicationError, match="listed twice"):
        create("barbu", [*barbu, barbu[0]])
    with pytest.raises(ApplicationError) as caught:
        create("barbu", [*barbu, active_bot("barbu")], params={"mode": "poker"})
    assert caught.value.field == "params"
    assert not Match.objects.exists()


def test_two_entrant_round_robin_plays_every_pair_each_round(no_run: list) -> None:
    bots = [active_bot("bauer") for _ in range(5)]
    tournament = create("bauer", bots, rounds=2)
    matches = Match.objects.filter(tournament=tournament)
    assert matches.count() == 2 * 10
    pairs = Counter(
        frozenset(m.seats.values_list("bot_id", flat=True)) for m in matches
    )
    assert set(pairs.values()) == {2} and len(pairs) == 10
    assert set(matches.values_list("round", flat=True)) == {1, 2}
    entries = tournament.entries.values_list("bot_id", "bot_version_id")
    assert sorted(entries) == sorted((b.pk, b.current_version_id) for b in bots)
    assert tournament_progress(tournament=tournament).total == 20


def test_barbu_tables_and_pinned_versions(no_run: list) -> None:
    bots = [active_bot("barbu") for _ in range(6)]
    tournament = create("barbu", bots, params={"mode": "geronimo"})
    add_version(bots[0])  # a newer upload does not change the tournament's matches
    tables = [list(m.seats.order_by("seat").values_list("bot_version_id", flat=True))
              for m in tournament.matches.all()]  # fmt: skip
    assert len(tables) == 3  # ceil(15 pairs / 6 pairs per table)
    assert all(len(set(t)) == 4 for t in tables)
    assert all(m.params["mode"] == "geronimo" for m in tournament.matches.all())
    pinned = {b.pk: b.versions.order_by("number").first().pk for b in bots}  # type: ignore[union-attr]
    assert {v for t in tables for v in t} <= set(pinned.values())


@pytest.mark.django_db(transaction=True)
def test_standings_cross_table_and_completion_by_the_last_record(
    held_matches: list[int],
) -> None:
    a, b, c = (active_bot("badugi") for _ in range(3))
    tournament = create("badugi", [a, b, c])
    matches = list(tournament.matches.order_by("id"))
    results = {frozenset(m.seats.values_list("bot_id", flat=True)): m for m in matches}
    # a beats b, a and c tie, c beats b (record as if played: the seats' places)
    plan = {
        frozenset({a.pk, b.pk}): {a.pk: 1, b.pk: 2},
        frozenset({a.pk, c.pk}): {a.pk: 1, c.pk: 1},
        frozenset({b.pk, c.pk}): {b.pk: 2, c.pk: 1},
    }
    for key, places in plan.items():
        match = results[key]
        for seat in match.seats.all():
            seat.place, seat.score = places[seat.bot_id], 5.0 - places[seat.bot_id]
            seat.save()
        Match.objects.filter(pk=match.pk).update(status=MatchStatus.FINISHED)
    standings = tournament_table(tournament=tournament).standings
    # a and c are level on every criterion: their names decide, whatever the factory made them
    assert sorted((s.bot_id, s.points, s.matches) for s in standings[:2]) == [
        (a.pk, 1.5, 2), (c.pk, 1.5, 2)]  # fmt: skip
    assert [s.bot for s in standings[:2]] == sorted([str(a), str(c)])
    assert (standings[2].bot_id, standings[2].points, standings[2].matches) == (b.pk, 0.0, 2)
    assert standings[0].average_place == 1.0 and standings[1].average_place == 1.0
    cross = tournament_table(tournament=tournament).cross
    assert cross.points[a.pk, b.pk] == 1.0 and cross.points[b.pk, a.pk] == 0.0
    assert cross.points[a.pk, c.pk] == 0.5 and cross.meetings[a.pk, c.pk] == 1
    # completion: the service recording the last match closes it (an error counts as done)
    Match.objects.filter(pk=matches[-1].pk).update(status=MatchStatus.QUEUED)
    token = match_claim(match_id=matches[-1].pk, worker="w")
    assert token is not None
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.RUNNING
    assert match_record_error(match_id=matches[-1].pk, token=token, error="lost")
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED and tournament.finished_at
    assert tournament_progress(tournament=tournament).failed == 1


def test_cancel_stops_queued_matches(no_run: list) -> None:
    tournament = create("belote", [active_bot("belote") for _ in range(3)])
    assert tournament_cancel(tournament_id=tournament.pk) == 3
    assert set(tournament.matches.values_list("status", flat=True)) == {MatchStatus.CANCELLED}
    with pytest.raises(ApplicationError, match="not running"):
        tournament_cancel(tournament_id=tournament.pk)


@override_settings(ARENA_LADDER_QUEUE_DEPTH=3)
def test_the_ladder_keeps_its_queue_depth_and_favours_new_versions(
    no_run: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    veterans = [active_bot("barbu") for _ in range(7)]
    ladder = ladder_for_game(game="barbu")
    for step in range(30):  # the veterans have played many games
        table = random.Random(step).sample(veterans, 4)
        finished_match("barbu", [b.current_version for b in table], [1, 2, 3, 4])  # type: ignore[misc]
    from ratings.services import ladder_apply_ratings

    ladder_apply_ratings(ladder_id=ladder.pk)
    newcomer = active_bot("barbu")
    created = ladder_schedule(ladder=ladder, rng=random.Random(1))
    assert len(created) == 3
    assert all(m.origin == MatchOrigin.LADDER for m in created)
    plays = Counter(b for m in created for b in set(m.seats.values_list("bot_id", flat=True)))
    assert plays[newcomer.pk] == 2  # the most it may have pending (back-pressure)
    assert max(plays.values()) <= 2
    with monkeypatch.context() as patched:  # a full queue: no fit is read, nothing planned
        patched.setattr(tournaments.services, "ladder_fit_for_top_up", None)
        assert ladder_schedule(ladder=ladder, rng=random.Random(2)) == []
    Match.objects.filter(pk=created[0].pk).update(status=MatchStatus.FINISHED)
    assert len(ladder_schedule(ladder=ladder, rng=random.Random(3))) == 1


def test_the_ladder_queue_follows_the_live_workers_match_slots(settings: Any) -> None:
    settings.ARENA_LADDER_QUEUE_DEPTH = 0  # the default: as many as the workers play at once
    assert ladder_queue_depth() == DEFAULT_QUEUE_DEPTH  # none beats: the quick start's loop
    worker_beat(name="w1 0a", match_slots=2)
    worker_beat(name="w2 0b", match_slots=3)
    worker_beat(name="figures 0c", match_slots=0)  # serves only the figures' queue
    WorkerHeartbeat.objects.create(name="gone 0d", match_slots=4,
                                   beat_at=timezone.now() - timedelta(hours=1))  # fmt: skip
    assert ladder_queue_depth() == 5
    settings.ARENA_LADDER_QUEUE_DEPTH = 4  # the deployment's own choice wins
    assert ladder_queue_depth() == 4


def test_an_ended_ladder_match_asks_for_one_top_up_at_a_time(
    settings: Any, monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:  # fmt: skip
    settings.ARENA_EXECUTION = "celery"
    sent: list[int] = []
    broker_up = True

    def send(task: object, ladder_id: int) -> bool:
        sent.append(ladder_id)
        return broker_up

    monkeypatch.setattr(tournaments.services, "send", send)
    ladder = ladder_for_game(game="belote")
    versions = [active_bot("belote").current_version for _ in range(2)]
    with django_capture_on_commit_callbacks() as held:  # the matches' own tasks: not run
        ladder_match, tournament_match = (matches_create(
            game="belote", params={}, duplicate=True, origin=origin,
            specs=[MatchSpec(entrants=versions)],  # type: ignore[list-item]
        )[0] for origin in (MatchOrigin.LADDER, MatchOrigin.TOURNAMENT))  # fmt: skip
    assert len(held) == 2
    with django_capture_on_commit_callbacks(execute=True):
        for match in (tournament_match, ladder_match):  # the platform failed both
            token = match_claim(match_id=match.pk, worker="w")
            assert token and match_record_error(match_id=match.pk, token=token, error="lost")
        ladder_top_up_soon(ladder_id=ladder.pk)  # another result before the task has run
    assert sent == [ladder.pk]  # the ladder's match only, and one task for both results
    ladder_top_up(ladder_id=ladder.pk)  # that task: results from now on ask again
    broker_up = False
    with django_capture_on_commit_callbacks(execute=True):
        ladder_top_up_soon(ladder_id=ladder.pk)
    with django_capture_on_commit_callbacks(execute=True):
        ladder_top_up_soon(ladder_id=ladder.pk)  # not sent: the next result asks again
    assert sent == [ladder.pk] * 3


def test_with_inline_execution_a_result_tops_nothing_up(
    settings: Any, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    settings.ARENA_EXECUTION = "inline"  # play_ladder's loop does: no recursion through results
    with django_capture_on_commit_callbacks() as callbacks:
        ladder_top_up_soon(ladder_id=ladder_for_game(game="belote").pk)
    assert callbacks == []


def test_the_run_tournament_command_creates_and_reports(no_run: list) -> None:
    from io import StringIO

    from django.core.management import CommandError, call_command

    bots = [active_bot("barbu") for _ in range(4)]
    out = StringIO()
    ids = [arg for b in bots for arg in ("--bot", str(b.pk))]
    call_command("run_tournament", "--game", "barbu", *ids, "--param", "mode=geronimo",
                 "--by", bots[0].owner.username, stdout=out)  # fmt: skip
    text = out.getvalue()
    assert "unrated" in text and "running: 0/1 matches done" in text and str(bots[0]) in text
    assert not Match.objects.exists()  # a task schedules them once the creation commits
    tournament_schedule(tournament_id=Tournament.objects.get().pk)  # that task
    assert Match.objects.get().params["mode"] == "geronimo"
    with pytest.raises(CommandError, match="expected NAME=VALUE"):
        call_command("run_tournament", "--game", "barbu", *ids, "--param", "geronimo")


@override_settings(ARENA_LADDER_QUEUE_DEPTH=2)
@pytest.mark.django_db(transaction=True)
def test_play_ladder_plays_and_rates_the_ladder_without_celery() -> None:
    """The quick start's ladder: with inline execution, one top-up plays its matches in the
    sandbox and rates them, in this process."""
    from io import StringIO

    from django.core.management import call_command

    from ratings.models import Ladder, Rating

    Ladder.objects.filter(pk=ladder_for_game(game="belote").pk).update(params={"target": 300})
    for game in ("bauer", "barbu", "badugi"):  # this test plays Belote only
        Ladder.objects.filter(pk=ladder_for_game(game=game).pk).update(scheduling=False)
    bots = [active_bot("belote") for _ in range(3)]
    out = StringIO()
    call_command("play_ladder", "--rounds", "1", "--every", "0", stdout=out)
    assert "ladder: played 2 matches (belote 2)" in out.getvalue()
    matches = Match.objects.filter(origin=MatchOrigin.LADDER)
    assert [m.status for m in matches] == [MatchStatus.FINISHED] * 2
    assert all(m.rated_at is not None for m in matches)
    assert Rating.objects.filter(bot__in=bots).count() == 3
