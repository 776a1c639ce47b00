"""The ladder's strengths with intervals and the seat fairness figures through the API."""

from __future__ import annotations

import json
import zlib

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

import engine
from matches.models import MatchReplay
from ratings.selectors import ladder_strengths
from tests.platform.factories import active_bot, finished_match

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def empty_cache() -> None:
    cache.clear()


def test_strengths_follow_the_recorded_results_and_mark_ties() -> None:
    strong, weak, unknown = (active_bot("badugi", name=n) for n in ("strong", "weak", "unknown"))
    versions = {b.name: b.current_version for b in (strong, weak, unknown)}
    for _ in range(8):
        finished_match("badugi", [versions["strong"], versions["weak"]], [1, 2])
    finished_match("badugi", [versions["unknown"], versions["weak"]], [1, 2])
    body = APIClient().get("/api/ladders/badugi/strengths/").json()
    rows = body["results"]
    assert [r["name"] for r in rows][0] == "strong"
    assert rows[-1]["name"] == "weak" and rows[-1]["above_next"] is None
    for row in rows:
        assert row["low"] <= row["strength"] <= row["high"]
    # one match says little about "unknown": its interval overlaps its neighbour's
    assert any(r["tied_with_next"] for r in rows)
    expected = ladder_strengths(game="badugi")
    assert [(r["bot"], r["strength"]) for r in rows] == [(s.bot_id, s.strength) for s in expected]


def test_strengths_are_recomputed_when_a_new_result_arrives() -> None:
    a, b = (active_bot("belote", name=n) for n in ("a", "b"))
    finished_match("belote", [a.current_version, b.current_version], [1, 2])
    first = APIClient().get("/api/ladders/belote/strengths/").json()["results"]
    assert first[0]["name"] == "a" and first[0]["matches"] == 1
    finished_match("belote", [a.current_version, b.current_version], [2, 1])
    second = APIClient().get("/api/ladders/belote/strengths/").json()["results"]
    assert {r["matches"] for r in second} == {2}


def test_seat_fairness_reads_the_stored_replays() -> None:
    versions = [active_bot("badugi", name=n).current_version for n in ("p", "q")]
    for seed in (1, 2):
        match = finished_match("badugi", versions, [1, 2])  # type: ignore[arg-type]
        agents = [engine.make_agent("badugi", "heuristic", seed=i) for i in range(2)]
        replay = engine.run_match("badugi", {"hands": 6}, agents, seed, duplicate=True).replay
        data = json.dumps(replay).encode()
        MatchReplay.objects.create(match=match, data=zlib.compress(data), size=len(data))
    body = APIClient().get("/api/ladders/badugi/fairness/").json()
    assert body["game"] == "badugi" and body["matches"] == 2
    assert [p["position"] for p in body["by_seat"]] == [0, 1]
    assert sum(p["samples"] for p in body["by_dealer_position"]) == 2 * 2 * 6 * 2
    assert APIClient().get("/api/ladders/chess/fairness/").status_code == 404


def test_a_duplicate_match_states_its_board_result() -> None:
    a, b = active_bot("belote", name="north"), active_bot("belote", name="east")
    boards = [[90, 72]] * 6 + [[10, 152]] * 3 + [[81, 81]]  # each board's points per side
    match = finished_match("belote", [a.current_version, b.current_version], [1, 2],  # type: ignore[list-item]
                           boards=boards)  # fmt: skip
    body = APIClient().get(f"/api/matches/{match.pk}/").json()
    assert body["boards"] == {
        "boards": 10, "summary": "6½–3½",
        "points": [{"bot": a.pk, "points": 6.5}, {"bot": b.pk, "points": 3.5}],
    }  # fmt: skip
    plain = finished_match("belote", [a.current_version, b.current_version], [1, 2])  # type: ignore[list-item]
    assert APIClient().get(f"/api/matches/{plain.pk}/").json()["boards"] is None
