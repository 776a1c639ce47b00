"""A ladder nobody can game (issue 28): only the ladder's own matches and official tournaments
under the ladder's rules are rated, every standing counts rated matches only, unrated play is
bounded by quotas, seeds are unpredictable, results are audited before they count, and two bots
of one author never meet at a rated table."""

from __future__ import annotations

import json
import random
import uuid
import zlib
from typing import Any

import pytest
from django.test import override_settings
from pytest_django import DjangoCaptureOnCommitCallbacks

import engine
from arena.errors import ApplicationError
from bots.house import house_user
from bots.models import Bot
from matches import formats
from matches.execution import Played
from matches.models import Match, MatchOrigin, MatchReplay, MatchSeat, MatchStatus
from matches.selectors import bot_record
from matches.services import MatchSpec, match_claim, match_record_result, matches_create
from ratings.models import Ladder, Rating
from ratings.policy import rating_ladder
from ratings.selectors import ladder_rows, seat_fairness
from ratings.services import ladder_apply_ratings, ladder_for_game
from tests.platform.api_fixtures import World, store_replay, world_fixture  # noqa: F401
from tests.platform.factories import UserFactory, active_bot, finished_match
from tournaments.matchmaking import Candidate, plan_tables
from tournaments.models import Tournament
from tournaments.services import ladder_schedule, tournament_create, tournament_schedule

pytestmark = pytest.mark.django_db


Commits = DjangoCaptureOnCommitCallbacks


@pytest.fixture
def commits(django_capture_on_commit_callbacks: Commits) -> Commits:
    """Run a request's on-commit callbacks (a tournament's scheduling task) as a commit would;
    the matches' own run tasks stay held (``held_matches``)."""
    return django_capture_on_commit_callbacks


# -- rated or unrated, decided in one place ---------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "official", "params", "duplicate", "rated"),
    [
        (MatchOrigin.LADDER, False, {}, True, True),
        (MatchOrigin.LADDER, False, {"target": 100}, True, False),
        (MatchOrigin.TOURNAMENT, False, {}, True, False),
        (MatchOrigin.TOURNAMENT, True, {}, True, True),
        (MatchOrigin.TOURNAMENT, True, {"target": 1000}, True, True),  # the default, spelt out
        (MatchOrigin.TOURNAMENT, True, {"target": 100}, True, False),
        (MatchOrigin.TOURNAMENT, True, {}, False, False),
        (MatchOrigin.CHALLENGE, True, {}, True, False),
    ],
)  # fmt: skip
def test_the_policy_rates_only_the_ladder_and_official_play_under_its_rules(
    origin: str, official: bool, params: dict[str, Any], duplicate: bool, rated: bool
) -> None:
    ladder = rating_ladder(game="belote", params=params, duplicate=duplicate, origin=origin,
                           official=official)  # fmt: skip
    assert (ladder is not None) == rated


def finish_held(matches: list[Match], winner: Bot) -> None:
    """Record the matches as if played, ``winner`` first, the others after."""
    for match in matches:
        for seat in match.seats.all():
            seat.place = 1 if seat.bot_id == winner.pk else 2
            seat.score = 1.0 if seat.bot_id == winner.pk else 0.0
            seat.save()
    Match.objects.filter(pk__in=[m.pk for m in matches]).update(status=MatchStatus.FINISHED)


def test_regression_another_authors_tournament_with_other_rules_moves_no_rating(
    world: World, held_matches: list[int], commits: Commits
) -> None:
    """A second user entered another author's bot with ``target=100`` and moved its rating."""
    ladder_apply_ratings(ladder_id=ladder_for_game(game="belote").pk)  # the world's one match
    before = {r.bot_id: r.rating for r in Rating.objects.all()}
    api = world.client("other")
    body = {"game": "belote", "bots": [world.bot.pk, world.rival.pk], "params": {"target": 100},
            "rounds": 3}  # fmt: skip
    with commits(execute=True):
        created = api.post("/api/tournaments/", body, format="json")
    assert created.status_code == 201, created.json()
    tournament = api.get(f"/api/tournaments/{created.json()['id']}/").json()
    assert tournament["rated"] is False and tournament["official"] is False
    matches = list(Match.objects.filter(tournament_id=tournament["id"]))
    assert len(matches) == 3 and not any(m.rated for m in matches)
    assert all(m.requested_by_id == world.users["other"].pk for m in matches)
    listed = api.get(f"/api/matches/?tournament={tournament['id']}").json()["results"]
    assert [m["rated"] for m in listed] == [False] * 3
    finish_held(matches, world.rival)
    assert ladder_apply_ratings(ladder_id=ladder_for_game(game="belote").pk) == 0
    assert {r.bot_id: r.rating for r in Rating.objects.all()} == before


def test_only_staff_make_official_tournaments_and_only_under_the_ladder_rules(
    world: World, held_matches: list[int], commits: Commits
) -> None:
    body = {"game": "belote", "bots": [world.bot.pk, world.rival.pk], "official": True}
    refused = world.client("owner").post("/api/tournaments/", body, format="json")
    assert refused.status_code == 403
    staff = world.client("staff")
    with commits(execute=True):
        official = staff.post("/api/tournaments/", body, format="json").json()["id"]
        other_rules = staff.post("/api/tournaments/", {**body, "params": {"target": 300}},
                                 format="json").json()["id"]  # fmt: skip
    assert staff.get(f"/api/tournaments/{official}/").json()["rated"] is True
    assert all(m.rated for m in Match.objects.filter(tournament_id=official))
    assert staff.get(f"/api/tournaments/{other_rules}/").json()["rated"] is False
    assert not any(m.rated for m in Match.objects.filter(tournament_id=other_rules))


def test_a_rated_tournament_takes_one_bot_per_author_the_house_excepted(
    held_matches: list[int]
) -> None:
    author = UserFactory()
    bots = [active_bot("barbu", owner=author), active_bot("barbu", owner=author),
            active_bot("barbu"), active_bot("barbu")]  # fmt: skip
    staff = UserFactory(is_staff=True)
    with pytest.raises(ApplicationError, match="one bot per author") as caught:
        tournament_create(created_by=staff, name="t", game="barbu", official=True,
                          bot_ids=[b.pk for b in bots])  # fmt: skip
    assert caught.value.code == "same_author"
    # unrated play may seat them together (it moves nothing)
    tournament_create(created_by=staff, name="t", game="barbu", bot_ids=[b.pk for b in bots])
    house = [active_bot("barbu", owner=house_user()) for _ in range(4)]
    assert tournament_create(created_by=staff, name="h", game="barbu", official=True,
                             bot_ids=[b.pk for b in house]).rated  # fmt: skip


def test_the_ladder_never_seats_two_bots_of_one_author(held_matches: list[int]) -> None:
    twins = UserFactory()
    bots = [active_bot("barbu", owner=twins) for _ in range(3)]
    bots += [active_bot("barbu") for _ in range(4)]
    with override_settings(ARENA_LADDER_QUEUE_DEPTH=20):
        created = ladder_schedule(ladder=ladder_for_game(game="barbu"), rng=random.Random(4))
    assert created
    for match in created:
        assert match.rated
        owners = [s.bot.owner_id for s in MatchSeat.objects.filter(match=match)]
        assert owners.count(twins.pk) <= 1


def test_the_matchmaking_skips_tables_it_cannot_fill_apart() -> None:
    same = [Candidate(bot, 10, 5, author=1) for bot in range(3)]
    assert plan_tables(candidates=same, fit=None, pending={}, table_size=2, count=3,
                       rng=random.Random(1)) == []  # fmt: skip
    mixed = [*same, Candidate(9, 0, 5, author=None)]  # the house may meet anyone
    tables = plan_tables(candidates=mixed, fit=None, pending={}, table_size=2, count=3,
                         rng=random.Random(1))  # fmt: skip
    assert tables and all(9 in t for t in tables)


def test_rated_matches_go_to_a_queue_of_their_own(
    monkeypatch: pytest.MonkeyPatch, commits: Commits
) -> None:
    from matches.tasks import run_match_task

    sent: list[tuple[int, str]] = []
    monkeypatch.setattr(run_match_task, "apply_async",
                        lambda args, queue: sent.append((args[0], queue)))  # fmt: skip
    versions = [active_bot("belote").current_version for _ in range(2)]
    with commits(execute=True):
        [rated] = matches_create(game="belote", params={}, duplicate=True,
                                 origin=MatchOrigin.LADDER, specs=[MatchSpec(versions)])  # type: ignore[arg-type]  # fmt: skip
        [unrated] = matches_create(game="belote", params={}, duplicate=True,
                                   origin=MatchOrigin.CHALLENGE, specs=[MatchSpec(versions)])  # type: ignore[arg-type]  # fmt: skip
    assert sent == [(rated.pk, "rated"), (unrated.pk, "matches")]


# -- standings count rated matches only ------------------------------------------------------


def test_regression_standings_count_no_challenge(world: World) -> None:
    """A bot whose two rated matches were both lost showed Games 2, Wins 1."""
    mine, theirs = world.version, world.rival.current_version
    assert theirs is not None
    Match.objects.all().delete()
    for _ in range(2):
        finished_match("belote", [mine, theirs], [2, 1])
    challenge = finished_match("belote", [mine, theirs], [1, 2])
    Match.objects.filter(pk=challenge.pk).update(ladder=None, origin=MatchOrigin.CHALLENGE)
    unrated_tournament = finished_match("belote", [mine, theirs], [1, 2])
    Match.objects.filter(pk=unrated_tournament.pk).update(
        ladder=None, origin=MatchOrigin.TOURNAMENT
    )
    ladder_apply_ratings(ladder_id=ladder_for_game(game="belote").pk)
    row = next(r for r in ladder_rows(game="belote") if r.bot_id == world.bot.pk)
    assert (row.games, row.wins, row.average_place) == (2, 0, 2.0)
    [rated] = bot_record(bot_id=world.bot.pk, rated=True)
    assert (rated.meetings, rated.wins, rated.losses) == (2, 0, 2)
    [unrated] = bot_record(bot_id=world.bot.pk, rated=False)
    assert (unrated.meetings, unrated.wins, unrated.losses) == (2, 2, 0)
    page = world.client("anonymous").get(f"/bots/{world.bot.pk}/").content.decode()
    assert "Rated record against each opponent" in page and "Unrated record" in page


def test_a_finished_match_not_yet_rated_waits_for_its_rating_in_the_ladder_rows(
    world: World,
) -> None:
    ladder_apply_ratings(ladder_id=ladder_for_game(game="belote").pk)
    before = next(r for r in ladder_rows(game="belote") if r.bot_id == world.bot.pk)
    theirs = world.rival.current_version
    assert theirs is not None
    finished_match("belote", [world.version, theirs], [1, 2])  # finished, not yet rated
    now = next(r for r in ladder_rows(game="belote") if r.bot_id == world.bot.pk)
    assert (now.games, now.wins) == (before.games, before.wins)


def test_seat_fairness_reads_rated_matches_only(world: World) -> None:
    assert seat_fairness(game="belote").matches == 1  # the world's rated match
    theirs = world.rival.current_version
    assert theirs is not None
    challenge = finished_match("belote", [world.version, theirs], [1, 2])
    Match.objects.filter(pk=challenge.pk).update(ladder=None, origin=MatchOrigin.CHALLENGE,
                                                 params={"target": 300})  # fmt: skip
    challenge.refresh_from_db()
    store_replay(challenge)
    assert seat_fairness(game="belote").matches == 1


# -- quotas ----------------------------------------------------------------------------------


def belote_bots(n: int) -> list[int]:
    return [active_bot("belote").pk for _ in range(n)]


@override_settings(ARENA_MATCHES_PER_REQUEST=50)
def test_one_request_creates_at_most_the_cap(world: World, held_matches: list[int]) -> None:
    body = {"game": "belote", "bots": belote_bots(4), "rounds": 9}  # 6 pairs x 9 = 54
    response = world.client("owner").post("/api/tournaments/", body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "too_many_matches" and "at most 50" in error["message"]
    assert not Tournament.objects.exists()


@override_settings(ARENA_UNRATED_MATCHES_PER_HOUR=10, ARENA_UNRATED_QUEUED_PER_USER=1000)
def test_unrated_matches_per_user_and_hour(world: World, held_matches: list[int]) -> None:
    api = world.client("owner")
    body = {"game": "belote", "bots": belote_bots(4)}  # 6 matches each
    assert api.post("/api/tournaments/", body, format="json").status_code == 201
    second = api.post("/api/tournaments/", body, format="json")
    assert second.status_code == 429
    assert "ARENA_UNRATED_MATCHES_PER_HOUR" in second.json()["error"]["message"]
    challenge = {"bot": world.bot.pk, "opponents": [world.rival.pk]}
    assert api.post("/api/challenges/", challenge, format="json").status_code == 201
    assert world.client("other").post("/api/tournaments/", body, format="json").status_code == 201
    staff = world.client("staff")
    assert all(staff.post("/api/tournaments/", body, format="json").status_code == 201
               for _ in range(3))  # fmt: skip


@override_settings(ARENA_UNRATED_QUEUED_PER_USER=7)
def test_unrated_matches_waiting_at_once(
    world: World, held_matches: list[int], commits: Commits
) -> None:
    api = world.client("owner")
    challenge = {"bot": world.bot.pk, "opponents": [world.rival.pk]}
    with commits(execute=True):
        assert api.post("/api/tournaments/", {"game": "belote", "bots": belote_bots(4)},
                        format="json").status_code == 201  # fmt: skip
    assert api.post("/api/challenges/", challenge, format="json").status_code == 201
    refused = api.post("/api/challenges/", challenge, format="json")
    assert refused.status_code == 429
    assert "ARENA_UNRATED_QUEUED_PER_USER" in refused.json()["error"]["message"]
    Match.objects.filter(requested_by=world.users["owner"]).update(status=MatchStatus.FINISHED)
    assert api.post("/api/challenges/", challenge, format="json").status_code == 201


def test_a_tournament_is_scheduled_by_its_task_once(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks, held_matches: list[int]
) -> None:
    bots = belote_bots(5)
    with django_capture_on_commit_callbacks() as callbacks:
        tournament = tournament_create(created_by=UserFactory(), name="t", game="belote",
                                       bot_ids=bots, rounds=2)  # fmt: skip
    assert not Match.objects.exists() and tournament.planned_matches == 20
    assert len(callbacks) == 1  # the scheduling task, sent on commit
    assert tournament_schedule(tournament_id=tournament.pk) == 20
    assert tournament_schedule(tournament_id=tournament.pk) == 0  # a second delivery
    assert Match.objects.filter(tournament=tournament).count() == 20


# -- unpredictable cards ---------------------------------------------------------------------


def test_every_match_seed_is_fresh_full_width_and_not_the_tournaments(
    held_matches: list[int]
) -> None:
    bots = belote_bots(6)
    seeds: list[int] = []
    for _ in range(2):  # the same schedule seed twice: the matches' seeds still differ
        t = tournament_create(created_by=UserFactory(), name="t", game="belote", bot_ids=bots,
                              seed=7)  # fmt: skip
        tournament_schedule(tournament_id=t.pk)
        seeds += [m.seed for m in Match.objects.filter(tournament=t).order_by("id")]
    assert len(seeds) == 30 and len(set(seeds)) == 30
    assert max(s.bit_length() for s in seeds) > 120  # 128 bits: all 30 below 2^120 is 2^-240
    assert all(0 <= s < 2**128 for s in seeds)
    stored = Match.objects.get(pk=Match.objects.order_by("id").first().pk)  # type: ignore[union-attr]
    assert stored.seed == seeds[0]  # kept exactly (128 bits in the database)
    rng = random.Random(7)  # what the old code derived from the tournament seed
    assert not {rng.randrange(2**31) for _ in range(30)} & set(seeds)


def test_an_unplayed_match_publishes_neither_seed_nor_deck(world: World, held_matches: list[int]) -> None:  # noqa: E501
    api = world.client("other")
    challenge = api.post("/api/challenges/", {"bot": world.rival.pk, "opponents": [world.bot.pk]},
                         format="json").json()  # fmt: skip
    match = api.get(f"/api/matches/{challenge['id']}/").json()
    assert "seed" not in json.dumps(match) and match["status"] == "queued"
    assert api.get(f"/api/matches/{challenge['id']}/replay/").status_code == 409
    page_replay = world.client("anonymous").get(f"/matches/{challenge['id']}/replay.json")
    assert page_replay.status_code != 200
    assert "seed" not in json.dumps(api.get("/api/tournaments/").json())


# -- audited results -------------------------------------------------------------------------


def played_in_process(match: Match) -> Played:
    game = formats.load(match.game, match.params)
    agents = [engine.make_agent(match.game, "random", seed=s) for s in range(game.num_players)]
    result = engine.run_match(game, None, agents, match.seed, duplicate=match.duplicate)
    return Played(result, [""] * game.num_players)


def running_match(held: list[int]) -> tuple[Match, uuid.UUID, list[MatchSeat]]:
    Ladder.objects.filter(pk=ladder_for_game(game="belote").pk).update(params={"target": 300})
    versions = [active_bot("belote").current_version for _ in range(2)]
    [match] = matches_create(game="belote", params={"target": 300}, duplicate=True,
                             origin=MatchOrigin.LADDER, specs=[MatchSpec(versions)])  # type: ignore[arg-type]  # fmt: skip
    token = match_claim(match_id=match.pk, worker="w")
    assert token is not None
    return match, token, list(match.seats.order_by("seat"))


def test_an_honest_result_passes_its_audit(held_matches: list[int]) -> None:
    match, token, seats = running_match(held_matches)
    assert match_record_result(match=match, token=token, played=played_in_process(match),
                               seats=seats)  # fmt: skip
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED and match.rated


@pytest.mark.parametrize("tamper", ["score", "place", "action", "seed"])
def test_a_result_that_does_not_rederive_is_a_platform_error_never_rated(
    held_matches: list[int], tamper: str
) -> None:
    match, token, seats = running_match(held_matches)
    played = played_in_process(match)
    result = played.result
    if tamper == "score":
        result.scores[0] += 1
    elif tamper == "place":  # not a reversal: a tied match's places would stay as they were
        result.placings[0] = 2 if result.placings[0] == 1 else 1
    elif tamper == "action":  # another card played in the stored replay
        events = result.replay["games"][0]["deals"][0]["events"]
        event = next(e for e in events if len(e["action"]) == 2)
        event["action"] = "As" if event["action"] != "As" else "Ks"
    else:
        result.replay["seed"] += 1
    assert match_record_result(match=match, token=token, played=played, seats=seats)
    match.refresh_from_db()
    assert match.status == MatchStatus.ERROR and match.error.startswith("audit: ")
    assert all(s.place is None and not s.fault for s in match.seats.all())  # nobody blamed
    kept = json.loads(zlib.decompress(bytes(MatchReplay.objects.get(match=match).data)))
    assert kept["game"] == "belote"  # the evidence, for the operator
    assert ladder_apply_ratings(ladder_id=match.ladder_id) == 0  # type: ignore[arg-type]
