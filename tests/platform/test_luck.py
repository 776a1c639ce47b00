"""Each seat's luck on the platform (``matches.luck``): computed once per finished match from
its replay, exactly what ``engine.luck`` says; a failure costs nothing else; summed per bot with
an interval; shown on the match and bot pages and in the API."""

from __future__ import annotations

import json
import logging
import math
import zlib

import pytest
from django.test import Client
from rest_framework.test import APIClient

from engine.luck import seat_luck
from matches.luck import Z95, bot_luck, matches_luck_fill
from matches.models import Match, MatchReplay, MatchSeat
from matches.selectors import match_replay
from tests.platform.api_fixtures import store_replay
from tests.platform.factories import active_bot, finished_match

pytestmark = pytest.mark.django_db


def _short_match(minutes_ago: float = 0) -> Match:
    """A finished Belote match to 300 points between two bots, with a real replay."""
    a, b = active_bot("belote"), active_bot("belote")
    assert a.current_version is not None and b.current_version is not None
    match = finished_match("belote", [a.current_version, b.current_version], [1, 2],
                           minutes_ago=minutes_ago)  # fmt: skip
    Match.objects.filter(pk=match.pk).update(params={"target": 300})
    match.refresh_from_db()
    store_replay(match)
    return match


def _luck(match: Match) -> list[float | None]:
    seats = MatchSeat.objects.filter(match=match).order_by("seat")
    return list(seats.values_list("luck", flat=True))


def test_a_finished_match_gets_the_engines_luck_once() -> None:
    older, newer = _short_match(minutes_ago=5), _short_match()
    assert matches_luck_fill() == 2
    for match in (older, newer):
        expected = seat_luck(match_replay(match_id=match.pk))
        assert _luck(match) == pytest.approx(list(expected))
        match.refresh_from_db()
        assert match.luck_at is not None
    # a team's seats count their side's luck, like its score; the sides' luck differs
    luck = _luck(newer)
    assert luck[0] == luck[2] and luck[1] == luck[3]
    assert matches_luck_fill() == 0  # nothing left: no match is valued twice


def test_the_newest_matches_come_first_within_the_budget() -> None:
    older, newer = _short_match(minutes_ago=5), _short_match()
    assert matches_luck_fill(cpu_budget_s=1e-9, batch=1) == 1
    assert _luck(newer)[0] is not None and _luck(older)[0] is None


def test_a_replay_the_engine_refuses_is_logged_and_skipped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    broken, fine = _short_match(minutes_ago=5), _short_match()
    replay = match_replay(match_id=broken.pk)
    replay["games"][0]["deals"][0]["events"][0]["action"] = "no such action"
    data = json.dumps(replay).encode()
    MatchReplay.objects.filter(match=broken).update(data=zlib.compress(data), size=len(data))
    MatchReplay.objects.filter(match=fine).delete()  # an operator removed it
    with caplog.at_level(logging.ERROR, logger="matches.luck"):
        assert matches_luck_fill() == 2
    assert "could not be computed" in caplog.text
    for match in (broken, fine):
        assert _luck(match) == [None] * 4
        match.refresh_from_db()
        assert match.luck_at is not None  # not tried again and again
    assert matches_luck_fill() == 0


def test_a_bots_mean_luck_has_a_95_percent_interval() -> None:
    bot = active_bot("belote")
    rival = active_bot("belote")
    assert bot_luck(bot_id=bot.pk) is None
    assert bot.current_version is not None and rival.current_version is not None
    for value in (10.0, 20.0, 30.0):
        match = finished_match("belote", [bot.current_version, rival.current_version], [1, 2])
        MatchSeat.objects.filter(match=match, bot=bot).update(luck=value)
    summary = bot_luck(bot_id=bot.pk)
    assert summary is not None
    # both seats of its side count: six values, 10, 10, 20, 20, 30, 30
    assert summary.matches == 6 and summary.mean == pytest.approx(20.0)
    sd = math.sqrt(sum((v - 20.0) ** 2 for v in (10, 10, 20, 20, 30, 30)) / 5)
    assert summary.half_width == pytest.approx(Z95 * sd / math.sqrt(6))


def test_pages_and_api_show_the_luck() -> None:
    match = _short_match()
    matches_luck_fill()
    luck = _luck(match)
    assert luck[0] is not None and luck[1] is not None
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    for value in (luck[0], luck[1]):
        text = f"{value:+.1f}".removesuffix(".0") if round(value, 1) else "0"
        assert f"luck {text}" in page
    seat = MatchSeat.objects.get(match=match, seat=0)
    bot_page = Client().get(f"/bots/{seat.bot_id}/").content.decode()
    assert "What the cards gave it" in bot_page
    api = APIClient()
    seats = api.get(f"/api/matches/{match.pk}/").json()["seats"]
    assert [s["luck"] for s in seats] == pytest.approx(luck)
    detail = api.get(f"/api/bots/{seat.bot_id}/").json()["luck"]
    assert detail["matches"] == 2 and detail["mean"] == pytest.approx(luck[0])
