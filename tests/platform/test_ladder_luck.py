"""The ladder reads luck-corrected boards where they win (issue 34; docs/ranking.md, "Luck on
the ladder"): a match of a game in ``matches.luck.CORRECTED_GAMES`` gets its luck and its boards
of corrected scores when it is recorded, computed from its audited replay; Elo, the strengths and
the matchmaking rate it by them; the other games keep their raw boards; a failure to compute the
luck keeps the match, rated by its raw boards; old matches get theirs from a command."""

from __future__ import annotations

import io
import json
import logging
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

import engine
import engine.luck
import matches.luck
from bots.models import Bot
from engine.luck import corrected_boards_of_replay, replay_luck, seat_luck
from matches import formats
from matches.execution import Played
from matches.luck import CORRECTED_GAMES, matches_luck_fill
from matches.models import Match, MatchOrigin, MatchSeat, MatchStatus
from matches.results import SeatResult, board_orders, bot_results
from matches.selectors import match_board_result, match_replay
from matches.services import MatchSpec, match_claim, match_record_result, matches_create
from ratings.models import Ladder, Rating
from ratings.selectors import ladder_strengths, match_rankings
from ratings.services import ladder_apply_ratings, ladder_for_game
from tests.platform.api_fixtures import store_replay
from tests.platform.factories import active_bot, finished_match

pytestmark = pytest.mark.django_db

#: a short match: a few deals, a few seconds of the engine's random agents at most
PARAMS = {"belote": {"target": 300}, "bauer": {"start_points": 2}, "barbu": {"mode": "base"},
          "badugi": {"hands": 6}}
#: a seed whose Belote set has boards the correction reorders (checked below, not assumed)
SEED = 11


def _running(
    game: str, origin: MatchOrigin = MatchOrigin.LADDER
) -> tuple[Match, uuid.UUID, list[MatchSeat]]:
    """A claimed match of ``game`` (a ladder match unless ``origin`` says otherwise) under the
    ladder's own (short) rules, seed fixed."""
    Ladder.objects.filter(pk=ladder_for_game(game=game).pk).update(params=PARAMS[game])
    rules = formats.load(game, PARAMS[game])
    versions = [active_bot(game).current_version for _ in range(formats.entrants_per_match(rules))]
    [match] = matches_create(game=game, params=PARAMS[game], duplicate=True,
                             origin=origin, specs=[MatchSpec(versions)])  # type: ignore[arg-type]  # fmt: skip
    assert match.rated == (origin == MatchOrigin.LADDER)
    Match.objects.filter(pk=match.pk).update(seed=SEED)
    match.refresh_from_db()
    token = match_claim(match_id=match.pk, worker="w")
    assert token is not None
    return match, token, list(match.seats.order_by("seat"))


def _record(game: str, origin: MatchOrigin = MatchOrigin.LADDER) -> Match:
    """Play a match of ``game`` in-process (the engine's random agents, as the worker's result
    would come back) and record it through the platform's one recording path."""
    match, token, seats = _running(game, origin)
    rules = formats.load(game, match.params)
    agents = [engine.make_agent(game, "random", seed=s) for s in range(rules.num_players)]
    result = engine.run_match(rules, None, agents, match.seed, duplicate=True)
    played = Played(result, [""] * rules.num_players)
    assert match_record_result(match=match, token=token, played=played, seats=seats)
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED
    return match


def _seat_results(match: Match) -> list[SeatResult]:
    return [SeatResult(s.bot_id, s.bot_version_id, 0.0, s.place or 0, bool(s.fault))
            for s in match.seats.order_by("seat")]  # fmt: skip


def _fill_corrected_boards() -> str:
    """What ``manage.py fill_corrected_boards`` says."""
    out = io.StringIO()
    call_command("fill_corrected_boards", stdout=out)
    return out.getvalue()


def _seat_luck(match: Match) -> list[float | None]:
    seats = MatchSeat.objects.filter(match=match).order_by("seat")
    return list(seats.values_list("luck", flat=True))


@pytest.fixture(autouse=True)
def held(held_matches: list[int]) -> list[int]:
    """The matches are played by hand here, not by the inline worker."""
    return held_matches


def test_belote_bauer_and_badugi_are_corrected_games_and_barbu_is_not() -> None:
    assert CORRECTED_GAMES == {"belote", "bauer", "badugi"}


def test_a_recorded_belote_match_is_rated_by_the_engines_corrected_boards() -> None:
    match = _record("belote")
    replay = match_replay(match_id=match.pk)
    expected = corrected_boards_of_replay(replay, replay_luck(replay))
    assert expected is not None and match.corrected_boards == expected
    # the raw boards stay, for the match page; the correction changed some board's margin
    assert match.boards == engine.boards_of_replay(replay)
    margins = [(b[0] - b[1], c[0] - c[1]) for b, c in zip(match.boards, expected, strict=True)]
    assert any(raw != corrected for raw, corrected in margins)
    # the luck came with it, in the same transaction: nothing is left for the periodic fill
    assert match.luck_at is not None
    assert _seat_luck(match) == pytest.approx(list(seat_luck(replay)))
    assert matches_luck_fill() == 0
    # the strengths, the matchmaking (match_rankings) and Elo read the corrected boards
    scale = engine.game_class("belote").board_margin_scale
    corrected_orders = board_orders(_seat_results(match), expected, scale=scale)
    assert match_rankings(game="belote") == [corrected_orders]
    assert match_rankings(game="belote") != [board_orders(_seat_results(match), match.boards,
                                                          scale=scale)]  # fmt: skip
    assert match.ladder_id is not None and ladder_apply_ratings(ladder_id=match.ladder_id) == 1


def test_a_game_not_switched_keeps_its_raw_boards_and_its_luck_comes_later() -> None:
    match = _record("barbu")
    replay = match_replay(match_id=match.pk)
    assert match.boards == engine.boards_of_replay(replay) and match.boards
    assert match.corrected_boards is None and match.luck_at is None
    assert _seat_luck(match) == [None] * 4
    seats = _seat_results(match)
    assert match_rankings(game="barbu") == [board_orders(seats, match.boards, scale=None)]
    assert matches_luck_fill() == 1  # the periodic fill: shown, never rated by
    match.refresh_from_db()
    assert _seat_luck(match) == pytest.approx(list(seat_luck(replay)))
    assert match.corrected_boards is None


def test_an_unrated_belote_match_gets_its_luck_later_and_no_corrected_boards() -> None:
    """No ladder reads an unrated match (its tournament ranks raw scores), so its luck is left
    to the periodic fill, off the worker's path, which shows it and writes no corrected boards;
    the command that fills old rated matches leaves it alone too."""
    match = _record("belote", MatchOrigin.CHALLENGE)
    replay = match_replay(match_id=match.pk)
    assert match.boards == engine.boards_of_replay(replay) and match.boards
    assert match.corrected_boards is None and match.luck_at is None
    assert _seat_luck(match) == [None] * 4
    assert matches_luck_fill() == 1
    match.refresh_from_db()
    assert _seat_luck(match) == pytest.approx(list(seat_luck(replay)))
    assert match.corrected_boards is None
    assert _fill_corrected_boards().startswith("0 matches given corrected boards")


def test_a_recorded_bauer_match_is_rated_deal_by_deal_by_its_corrected_margins() -> None:
    """Bauer's ladder rates a duplicate set by every deal of every game as a board of its own
    (``Game.corrected_boards_each_deal``; paired across the set, the deal's luck would cancel
    and two 1/0 deals make mostly a tie), luck-corrected and shared by the margin on the
    corrected scores' scale (``engine.margin_scale``): the ranking benchmark's scoring."""
    match = _record("bauer")
    replay = match_replay(match_id=match.pk)
    assert match.boards == engine.boards_of_replay(replay) and match.boards
    assert match.corrected_boards == corrected_boards_of_replay(replay)
    finished = [deal for game in replay["games"] for deal in game["deals"] if deal["scores"]]
    assert len(match.corrected_boards) == len(finished) > len(match.boards)
    scale = engine.margin_scale("bauer", corrected=True)
    assert scale is not None and matches.luck.rated_margin_scale("bauer", PARAMS["bauer"]) == scale
    seats = _seat_results(match)
    assert match_rankings(game="bauer") == [board_orders(seats, match.corrected_boards,
                                                         scale=scale)]  # fmt: skip
    assert match.ladder_id is not None and ladder_apply_ratings(ladder_id=match.ladder_id) == 1
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    assert "With the luck taken out (rated)" in page and "ahead by 0.5 points" in page
    rated = match_board_result(match=match, corrected=True)
    assert rated is not None and rated.boards == len(finished)
    assert f"not by the boards above: deals {rated.summary} with the luck taken out" in page


def test_a_recorded_badugi_match_is_rated_by_its_corrected_totals_shared_by_the_margin() -> None:
    """Badugi ranks a set by its chip total, so it has no boards: recorded, a rated match gets
    one corrected board, every bot's total minus its luck, which the ratings share by the
    margin on the scale of the ladder's own rules (``Game.corrected_scale``: ten big blinds per
    ten hands, as the root of the hands)."""
    match = _record("badugi")
    replay = match_replay(match_id=match.pk)
    assert match.boards is None and match.luck_at is not None
    luck = seat_luck(replay)
    totals = replay["result"]["scores"]
    assert match.corrected_boards == [[t - x for t, x in zip(totals, luck, strict=True)]]
    assert _seat_luck(match) == pytest.approx(list(luck)) and any(luck)
    scale = matches.luck.rated_margin_scale("badugi", PARAMS["badugi"])
    assert scale == pytest.approx(20 * (6 / 10) ** 0.5)
    seats = _seat_results(match)
    [shared] = match_rankings(game="badugi")
    assert shared == board_orders(seats, match.corrected_boards, scale=scale) and len(shared) == 2
    assert match.ladder_id is not None and ladder_apply_ratings(ladder_id=match.ladder_id) == 1
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    assert "given to the winner: the bot ahead by 15.5 chips takes about three quarters" in page


def test_a_badugi_match_without_its_luck_keeps_its_one_result() -> None:
    """Where the luck is missing (it failed, or the match predates the switch) a Badugi match
    is rated as before: one finishing order by its chip total; the command fills it in."""
    match = _record("badugi")
    Match.objects.filter(pk=match.pk).update(corrected_boards=None)
    seats = _seat_results(match)
    assert match_rankings(game="badugi") == [[[(s.bot, s.rank) for s in bot_results(seats)]]]
    assert _fill_corrected_boards().startswith("1 matches given corrected boards")
    match.refresh_from_db()
    assert match.corrected_boards is not None and len(match.corrected_boards) == 1


@pytest.fixture
def weights_of_other_features(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A luck weights file fitted on other Belote features than the engine computes (a feature
    added without a refit): the engine refuses to value a Belote hand with it."""
    document = json.loads(engine.luck.WEIGHTS_FILE.read_text())
    for rows in document["weights"]["belote"].values():
        for row in rows:
            row.pop()
    stale = tmp_path / "luck_weights.json"
    stale.write_text(json.dumps(document))
    caches = (engine.luck.fitted_weights, engine.luck._weight_blocks, engine.luck._hand_terms)
    for cached in caches:
        cached.cache_clear()
    monkeypatch.setattr(engine.luck, "WEIGHTS_FILE", stale)
    yield
    monkeypatch.undo()
    for cached in caches:
        cached.cache_clear()


@pytest.mark.usefixtures("weights_of_other_features")
def test_a_luck_failure_keeps_the_match_rated_by_its_raw_boards(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR, logger="matches.luck"):
        match = _record("belote")
    assert "the ladder reads its raw boards" in caplog.text
    assert match.status == MatchStatus.FINISHED and match.rated and match.boards
    assert match.corrected_boards is None and _seat_luck(match) == [None] * 4
    assert match.luck_at is not None  # not tried again by the periodic fill
    assert matches_luck_fill() == 0
    scale = engine.game_class("belote").board_margin_scale
    assert match_rankings(game="belote") == [board_orders(_seat_results(match), match.boards,
                                                          scale=scale)]  # fmt: skip
    assert match.ladder_id is not None and ladder_apply_ratings(ladder_id=match.ladder_id) == 1


def _board_match(a: Bot, b: Bot, raw: list[float], corrected: list[float] | None) -> Match:
    """A finished Belote ladder match between ``a`` and ``b`` with four alike boards: ``raw``
    and ``corrected`` per entrant (stored per seat, as recording stores them)."""
    assert a.current_version is not None and b.current_version is not None
    match = finished_match("belote", [a.current_version, b.current_version], [1, 2],
                           boards=[raw] * 4)  # fmt: skip
    if corrected is not None:
        layout = formats.seat_entrants(formats.load("belote"))
        Match.objects.filter(pk=match.pk).update(
            corrected_boards=[[corrected[e] for e in layout]] * 4
        )
    return match


def test_the_strengths_and_elo_rank_by_the_corrected_boards() -> None:
    """The raw boards say the first bot played better, the corrected ones the second: the
    ladder must follow the corrected ones (this fails if it reads ``Match.boards``)."""
    lucky, good = active_bot("belote"), active_bot("belote")
    for _ in range(12):
        _board_match(lucky, good, raw=[220.0, 100.0], corrected=[120.0, 200.0])
    rows = ladder_strengths(game="belote", resamples=50, seed=1)
    assert [r.bot_id for r in rows] == [good.pk, lucky.pk] and not rows[0].tied_with_next
    ladder = ladder_for_game(game="belote")
    assert ladder_apply_ratings(ladder_id=ladder.pk) == 12
    elo = dict(Rating.objects.filter(ladder=ladder).values_list("bot_id", "rating"))
    assert elo[good.pk] > elo[lucky.pk]


def test_matches_without_corrected_boards_are_rated_by_their_raw_ones() -> None:
    lucky, good = active_bot("belote"), active_bot("belote")
    for _ in range(12):
        _board_match(lucky, good, raw=[220.0, 100.0], corrected=None)
    rows = ladder_strengths(game="belote", resamples=50, seed=1)
    assert [r.bot_id for r in rows] == [lucky.pk, good.pk]


def test_the_command_fills_old_matches_and_rates_the_ladder_again() -> None:
    """A Belote match recorded before the switch (boards, no corrected boards) and a Barbu one:
    the command gives the Belote match the engine's corrected boards and luck, leaves the Barbu
    match alone, and rebuilds the Belote ladder's ratings with them."""
    old: dict[str, Match] = {}
    for game in ("belote", "barbu"):
        count = formats.entrants_per_match(formats.load(game, PARAMS[game]))
        versions = [active_bot(game).current_version for _ in range(count)]
        match = finished_match(game, versions, list(range(1, count + 1)))  # type: ignore[arg-type]
        Match.objects.filter(pk=match.pk).update(params=PARAMS[game], seed=SEED)
        match.refresh_from_db()
        store_replay(match)
        boards = engine.boards_of_replay(match_replay(match_id=match.pk))
        Match.objects.filter(pk=match.pk).update(boards=boards)
        ladder_apply_ratings(ladder_id=ladder_for_game(game=game).pk)
        old[game] = match
    out = _fill_corrected_boards()
    assert out.startswith("1 matches given corrected boards")
    assert "belote ladder: 1 matches rated again" in out
    belote, barbu = (Match.objects.get(pk=old[g].pk) for g in ("belote", "barbu"))
    replay = match_replay(match_id=belote.pk)
    assert belote.corrected_boards == corrected_boards_of_replay(replay)
    assert belote.corrected_boards != belote.boards
    assert _seat_luck(belote) == pytest.approx(list(seat_luck(replay)))
    assert barbu.corrected_boards is None
    assert _fill_corrected_boards().startswith("0 matches given corrected boards")


def test_the_match_page_and_the_api_show_raw_boards_and_what_the_ladder_reads() -> None:
    belote, barbu = _record("belote"), _record("barbu")
    raw = match_board_result(match=belote)
    rated = match_board_result(match=belote, corrected=True)
    assert raw is not None and rated is not None
    assert match_board_result(match=barbu, corrected=True) is None
    api = APIClient()
    body = api.get(f"/api/matches/{belote.pk}/").json()
    assert body["boards"]["summary"] == raw.summary
    assert body["corrected_boards"]["summary"] == rated.summary
    assert body["corrected_boards"]["boards"] == len(belote.boards or [])
    assert api.get(f"/api/matches/{barbu.pk}/").json()["corrected_boards"] is None
    page = Client().get(f"/matches/{belote.pk}/").content.decode()
    assert f"boards {rated.summary} with the luck taken out" in page
    assert "With the luck taken out (rated)" in page
    other = Client().get(f"/matches/{barbu.pk}/").content.decode()
    assert "luck taken out" not in other
