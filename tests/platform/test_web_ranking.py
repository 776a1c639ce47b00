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
