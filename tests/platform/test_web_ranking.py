"""The ladder page shows strengths with their intervals and the game's seat fairness."""

from __future__ import annotations

import json
import re
import zlib

import pytest
from django.core.cache import cache
from django.test import Client

import engine
from matches.models import MatchReplay
from ratings.selectors import ladder_strengths_current
from tests.platform.factories import active_bot, finished_match

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def empty_cache() -> None:
    cache.clear()


def test_the_ladder_page_shows_strengths_ties_and_seat_fairness(client: Client) -> None:
    bots = {n: active_bot("badugi", name=n) for n in ("strong", "weak", "newcomer")}
    strong, weak, newcomer = (bots[n].current_version for n in ("strong", "weak", "newcomer"))
    for seed in range(6):
        match = finished_match("badugi", [strong, weak], [1, 2])  # type: ignore[list-item]
        agents = [engine.make_agent("badugi", "heuristic", seed=seed + i) for i in range(2)]
        replay = engine.run_match("badugi", {"hands": 4}, agents, seed, duplicate=True).replay
        data = json.dumps(replay).encode()
        MatchReplay.objects.create(match=match, data=zlib.compress(data), size=len(data))
    finished_match("badugi", [newcomer, weak], [1, 2])  # type: ignore[list-item]
    html = client.get("/ladder/badugi/").content.decode()
    strengths = html.split("Strength with 95 % intervals")[1].split("Seat fairness")[0]
    rows = re.findall(r"<tr>\s*<td class=\"num\">(\d+)</td>\s*<td><a [^>]*>([^<]+)</a>", strengths)
    assert [bot for _, bot in rows][0].endswith("/strong")
    assert "statistically tied" in strengths  # one match says little about the newcomer
    fairness = html.split("Seat fairness")[1]
    assert "Seat 0" in fairness and "The dealer" in fairness and "Dealer + 1" in fairness
    assert "over the last 6 ladder matches" in fairness  # the newcomer's match has no replay

    korean = client.get("/ladder/badugi/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "95 % 구간으로 본 실력" in korean and "자리 공정성" in korean


def test_a_ladder_without_matches_shows_neither_section(client: Client) -> None:
    html = client.get("/ladder/bauer/").content.decode()
    assert "Strength with 95 % intervals" not in html and "Seat fairness" not in html


def test_the_match_page_states_the_board_result(client: Client) -> None:
    a, b = active_bot("badugi", name="steady"), active_bot("badugi", name="lucky")
    boards = [[3, -3]] * 6 + [[-8, 8]] * 3 + [[0, 0]]  # each board's chips per bot
    match = finished_match("badugi", [a.current_version, b.current_version], [2, 1],  # type: ignore[list-item]
                           boards=boards)  # fmt: skip
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert "Boards 6½–3½ (of 10)" in page
    korean = client.get(f"/matches/{match.pk}/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "보드 6½–3½ (전체 10개)" in korean
    plain = finished_match("badugi", [a.current_version, b.current_version], [2, 1])  # type: ignore[list-item]
    assert "Boards won" not in client.get(f"/matches/{plain.pk}/").content.decode()
    assert "by its margin" not in page  # Badugi boards are not shared by margin


def test_a_belote_match_page_says_its_boards_are_shared_by_margin(client: Client) -> None:
    a, b = active_bot("belote"), active_bot("belote")
    match = finished_match("belote", [a.current_version, b.current_version], [1, 2],  # type: ignore[list-item]
                           boards=[[120, 42], [81, 81]])  # fmt: skip
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert "share each board by its margin" in page and "ahead by 81 points" in page
    korean = client.get(f"/matches/{match.pk}/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "점수 차에 따라" in korean and "81점 앞선 쪽" in korean


def test_the_bot_page_shows_its_strength_with_its_interval(client: Client) -> None:
    strong, weak = active_bot("badugi", name="strong"), active_bot("badugi", name="weak")
    for _ in range(6):
        finished_match("badugi", [strong.current_version, weak.current_version], [1, 2])  # type: ignore[list-item]
    [row] = [s for s in ladder_strengths_current(game="badugi") if s.bot_id == strong.pk]
    page = client.get(f"/bots/{strong.pk}/").content.decode()
    shown = f'Strength: <strong class="num">{row.strength:.0f}</strong> (95 % interval '
    assert shown + f"{row.low:.0f} – {row.high:.0f}, rank 1 by strength)" in page
