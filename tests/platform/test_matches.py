"""Matches: run in the real sandbox and recorded exactly once; platform failures and lost
workers are never charged to a bot."""

from __future__ import annotations

import importlib
import itertools
import json
import shutil
import uuid
import zlib
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from django.apps import apps as django_apps
from django.conf import settings
from django.db import connection
from django.utils import timezone
from pytest_django import DjangoCaptureOnCommitCallbacks

import engine
from bots.models import Bot, Package
from engine.luck import corrected_boards_of_replay
from matches.execution import SeatBot, play
from matches.models import (
    MATCH_TRANSITIONS,
    Match,
    MatchOrigin,
    MatchReplay,
    MatchSeat,
    MatchStatus,
)
from matches.selectors import BoardResult, match_board_result, match_replay
from matches.services import (
    MatchSpec,
    match_claim,
    match_record_result,
    match_requeue,
    match_run,
    match_transition,
    matches_create,
    matches_reap,
)
from ratings.models import Ladder, RatingChange
from ratings.services import ladder_for_game
from tests.platform.factories import CRASHES, active_bot, finished_match

pytestmark = pytest.mark.django_db


def queued_match(game: str, bots: list[Bot], *, duplicate: bool = True) -> Match:
    """A rated match under short rules (the ladder's, for the test)."""
    params = {"target": 300} if game == "belote" else {}
    Ladder.objects.filter(pk=ladder_for_game(game=game).pk).update(
        params=params, duplicate=duplicate
    )
    versions = [b.current_version for b in bots]
    [match] = matches_create(
        game=game, params=params, duplicate=duplicate,
        origin=MatchOrigin.LADDER, specs=[MatchSpec(entrants=versions)],  # type: ignore[list-item]
    )  # fmt: skip
    assert match.rated
    Match.objects.filter(pk=match.pk).update(seed=3)  # the same deals every run
    match.refresh_from_db()
    return match


def test_team_games_seat_each_bot_on_both_seats_of_its_side(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    a, b = active_bot("belote"), active_bot("belote")
    with django_capture_on_commit_callbacks() as callbacks:
        match = queued_match("belote", [a, b])
    assert len(callbacks) == 1  # queued after commit
    seats = list(match.seats.values_list("seat", "partnership", "bot_id"))
    assert seats == [(0, 0, a.pk), (1, 1, b.pk), (2, 0, a.pk), (3, 1, b.pk)]


@pytest.mark.django_db(transaction=True)
def test_a_match_runs_in_the_sandbox_and_is_recorded_once() -> None:
    a, b = active_bot("belote"), active_bot("belote", source=CRASHES)
    match = queued_match("belote", [a, b])  # inline execution: it ran on commit
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED and match.attempts == 1
    seats = {s.seat: s for s in match.seats.all()}
    assert [seats[s].fault for s in range(4)] == ["", "crash", "", "crash"]
    assert seats[1].place == 2 and seats[0].place == 1  # the crashing team places last (of 2)
    assert "my bug is here" in seats[1].log and "my bug" not in seats[1].fault_message
    replay = match_replay(match_id=match.pk)
    assert replay["game"] == "belote" and len(replay["games"]) == 2  # duplicate set
    assert len(engine.resimulate(replay)) == 2  # every action legal, every score right
    # scored board by board at record time: the crashing team lost every board
    assert match.boards and match.boards == engine.boards_of_replay(replay)
    # Belote's ladder reads luck-corrected boards, computed from the replay as it was recorded
    assert match.corrected_boards == corrected_boards_of_replay(replay)
    assert match_board_result(match=match) == BoardResult(
        len(match.boards), [(a.pk, float(len(match.boards))), (b.pk, 0.0)]
    )
    assert match_run(match_id=match.pk, worker="again") is False  # a second delivery: nothing
    assert RatingChange.objects.filter(match=match).count() == 2  # one per bot, once
    assert MatchSeat.objects.filter(match=match).count() == 4


@pytest.mark.django_db(transaction=True)
def test_a_stale_claim_records_nothing(held_matches: list[int]) -> None:
    bots = [active_bot("barbu") for _ in range(4)]
    match = queued_match("barbu", bots, duplicate=False)
    assert held_matches == [match.pk]  # this test plays it by hand
    token = match_claim(match_id=match.pk, worker="w1")
    assert token is not None and match_claim(match_id=match.pk, worker="w2") is None
    seats = list(match.seats.select_related("bot_version__bot__owner").order_by("seat"))
    played = play(
        game="barbu", params=match.params, seed=match.seed, duplicate=False,
        seats=[SeatBot(str(s.bot_version), s.bot_version.sha256, s.bot_version.filename)
               for s in seats],
    )  # fmt: skip
    assert not match_record_result(match=match, token=uuid.uuid4(), played=played,
                                   seats=seats)  # fmt: skip
    match.refresh_from_db()
    assert match.status == MatchStatus.RUNNING and not hasattr(match, "replay")
    assert match_record_result(match=match, token=token, played=played, seats=seats)
    assert not match_record_result(match=match, token=token, played=played, seats=seats)
    assert RatingChange.objects.filter(match=match).count() == 4
    match.refresh_from_db()
    assert match.boards is None  # played as one game: no boards, one result


@pytest.mark.django_db(transaction=True)
def test_a_platform_failure_ends_in_error_charged_to_no_bot() -> None:
    bots = [active_bot("barbu") for _ in range(4)]
    victim = bots[2].current_version
    assert victim is not None
    Package.objects.filter(pk=victim.sha256).update(data=b"tampered")  # the store is broken
    shutil.rmtree(settings.ARENA_PACKAGE_CACHE / victim.sha256, ignore_errors=True)
    match = queued_match("barbu", bots)
    match.refresh_from_db()
    assert match.status == MatchStatus.ERROR
    assert "CorruptPackage" in match.error
    assert set(match.seats.values_list("fault", flat=True)) == {""}
    assert not RatingChange.objects.exists()
    Package.objects.filter(pk=victim.sha256).update(data=victim.package.data)
    assert match_requeue(match_id=match.pk)  # the operator fixes it and re-queues: it runs
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED


def _end_this_session() -> None:
    """Have PostgreSQL end this process's session, as a restart or a failover would."""
    with psycopg.connect(**connection.get_connection_params()) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [connection.connection.info.backend_pid])


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("module", "name", "ends_after"),
    [("matches.execution", "package_path", False), ("matches.services", "match_claim", True)],
    ids=["while_fetching_a_package", "right_after_the_claim"],
)
def test_a_connection_dropped_before_the_bots_start_gives_the_match_another_attempt(
    module: str, name: str, ends_after: bool, held_matches: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """PostgreSQL ends the worker's session between its claim and its bots (a restart, a
    failover): right after the claim, before the match is read, or as a bot's package is read
    from the database. The match goes back to the queue at once (not left running until the
    reaper finds it), charged to no bot, and the next attempt plays it."""
    if connection.vendor != "postgresql":
        pytest.skip("terminates a PostgreSQL backend (CI runs on PostgreSQL)")
    bots = [active_bot("badugi") for _ in range(2)]
    for bot in bots:  # not in this worker's package cache: read from the database
        shutil.rmtree(settings.ARENA_PACKAGE_CACHE / bot.current_version.sha256, ignore_errors=True)
    match = queued_match("badugi", bots)
    target = importlib.import_module(module)
    original = getattr(target, name)

    def ending_the_session(*args: Any, **kwargs: Any) -> Any:
        if not ends_after:
            _end_this_session()
        result = original(*args, **kwargs)
        if ends_after:
            _end_this_session()
        return result

    monkeypatch.setattr(target, name, ending_the_session)
    held_matches.clear()
    assert match_run(match_id=match.pk, worker="w1") is True
    match.refresh_from_db()
    assert match.status == MatchStatus.QUEUED and match.attempts == 1 and not match.error
    assert held_matches == [match.pk]  # sent again
    monkeypatch.setattr(target, name, original)
    assert match_run(match_id=match.pk, worker="w2") is True
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED and match.attempts == 2
    assert set(match.seats.values_list("fault", flat=True)) == {""}


@pytest.mark.django_db(transaction=True)
def test_the_reaper_requeues_lost_runs_then_gives_up(held_matches: list[int]) -> None:
    bots = [active_bot("badugi") for _ in range(2)]
    match = queued_match("badugi", bots)
    for attempt in range(1, settings.ARENA_MATCH_MAX_ATTEMPTS + 1):
        assert match_claim(match_id=match.pk, worker=f"lost{attempt}")  # then the worker dies
        held_matches.clear()
        counts = matches_reap(now=timezone.now() + timedelta(days=1))
        sent = list(held_matches)
        match.refresh_from_db()
        if attempt < settings.ARENA_MATCH_MAX_ATTEMPTS:
            assert counts == {"requeued": 1, "errored": 0} and sent == [match.pk]
            assert match.status == MatchStatus.QUEUED and match.attempts == attempt
        else:
            assert counts == {"requeued": 0, "errored": 1} and not sent
            assert match.status == MatchStatus.ERROR and "lost 3 times" in match.error
    assert matches_reap(now=timezone.now() + timedelta(days=2)) == {"requeued": 0, "errored": 0}


def test_every_status_change_outside_the_table_is_refused() -> None:
    for frm, to in itertools.product(MatchStatus.values, repeat=2):
        if to not in MATCH_TRANSITIONS[frm]:
            with pytest.raises(ValueError, match="cannot go from"):
                match_transition(match_id=0, frm=frm, to=to)


def test_the_migrations_fill_the_boards_of_earlier_duplicate_matches_from_their_replays() -> None:
    fill_boards = importlib.import_module("matches.migrations.0004_match_boards").fill_boards
    a, b = active_bot("belote"), active_bot("belote")
    versions = [a.current_version, b.current_version]
    stored = {}
    for duplicate in (True, False):
        agents = [engine.make_agent("belote", "random", seed) for seed in range(4)]
        result = engine.run_match("belote", {}, agents, seed=5, duplicate=duplicate)
        match = finished_match("belote", versions, [1, 2])  # type: ignore[arg-type]
        Match.objects.filter(pk=match.pk).update(duplicate=duplicate)
        data = json.dumps(result.replay).encode()
        MatchReplay.objects.create(match=match, data=zlib.compress(data), size=len(data))
        stored[duplicate] = (match.pk, engine.boards_of_result(result))
    fill_boards(django_apps, None)
    boards = dict(Match.objects.values_list("pk", "boards"))
    assert stored[True][1] and boards[stored[True][0]] == stored[True][1]
    assert boards[stored[False][0]] is None
    # 0005: boards stored as places before it are replaced by the board scores
    Match.objects.filter(pk=stored[True][0]).update(boards=[[1, 2, 1, 2]])
    importlib.import_module("matches.migrations.0005_match_board_scores").fill_board_scores(
        django_apps, None
    )
    boards = dict(Match.objects.values_list("pk", "boards"))
    assert boards[stored[True][0]] == stored[True][1] and boards[stored[False][0]] is None


def test_team_games_record_the_teams_place_not_the_seats_rank() -> None:
    """Partners tie for 1st in the engine's per-seat ranking, so the other side was 3rd: "place
    3 of 2". A seat's place is its team's place; a partner's fault sinks the side."""
    from matches.formats import load, seat_places

    belote = load("belote")
    assert seat_places(belote, [1, 3, 1, 3]) == [1, 2, 1, 2]
    assert seat_places(belote, [3, 1, 3, 1]) == [2, 1, 2, 1]
    assert seat_places(belote, [1, 1, 1, 1]) == [1, 1, 1, 1]
    assert seat_places(belote, [4, 2, 1, 2]) == [2, 1, 2, 1]  # seat 0 faulted
    assert seat_places(load("barbu"), [1, 3, 1, 3]) == [1, 3, 1, 3]  # no teams: as ranked
