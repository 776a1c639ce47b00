"""Seat fairness: results by seat and by dealer position with match-clustered intervals, by hand,
on engine replays, and through the selector on recorded matches."""

from __future__ import annotations

import json
import math
import zlib

import pytest

import engine
from matches.models import MatchReplay
from ratings.fairness import Z95, seat_fairness
from ratings.selectors import seat_fairness as stored_seat_fairness
from tests.platform.factories import active_bot, finished_match

HAND_MADE = [
    {"game": "badugi", "games": [{"returns": [10, -10], "deals": [
        {"dealer": 0, "scores": [4, -4]}, {"dealer": 1, "scores": [6, -6]}]}]},
    {"game": "badugi", "games": [{"returns": [-2, 2], "deals": [
        {"dealer": 0, "scores": [-2, 2]}]}]},
]  # fmt: skip


def test_by_seat_and_by_dealer_position_by_hand() -> None:
    result = seat_fairness("badugi", HAND_MADE)
    assert result.matches == 2
    seat0, seat1 = result.by_seat
    assert (seat0.mean, seat0.advantage, seat0.samples) == (4.0, 4.0, 2)
    assert seat1.advantage == -4.0
    # clusters (10, 1) and (−2, 1) around 4: spread 72, SE √(72 / 2) = 6
    assert seat0.low == pytest.approx(4 - Z95 * 6) and seat0.high == pytest.approx(4 + Z95 * 6)
    dealer, other = result.by_dealer_position
    # the dealer scored 4, −6 (match 1) and −2 (match 2): −4/3 per deal
    assert dealer.mean == pytest.approx(-4 / 3) and dealer.samples == 3
    half = Z95 * math.sqrt((8 / 9) / 2) / 1.5
    assert dealer.high == pytest.approx(-4 / 3 + half)
    assert other.advantage == pytest.approx(4 / 3)


def test_one_match_has_no_interval_and_no_match_gives_nothing() -> None:
    one = seat_fairness("badugi", HAND_MADE[:1])
    assert one.by_seat[0].low is None and one.by_seat[0].high is None
    empty = seat_fairness("badugi", [])
    assert (empty.matches, empty.by_seat, empty.by_dealer_position) == (0, [], [])


def test_replays_of_another_game_are_refused() -> None:
    with pytest.raises(ValueError, match="barbu replay among badugi"):
        seat_fairness("badugi", [{"game": "barbu", "games": []}])


def test_advantages_are_relative_to_the_average_seat_in_a_non_zero_sum_game() -> None:
    agents = [engine.make_agent("barbu", "heuristic", seed=s) for s in range(4)]
    replays = [engine.run_match("barbu", None, agents, seed=s, duplicate=True).replay
               for s in range(3)]  # fmt: skip
    result = seat_fairness("barbu", replays)
    assert result.matches == 3
    assert [r.samples for r in result.by_seat] == [12] * 4  # 4 rotations × 3 matches
    assert [r.samples for r in result.by_dealer_position] == [48] * 4  # 4 deals per game
    assert sum(r.advantage for r in result.by_seat) == pytest.approx(0.0, abs=1e-9)
    average = sum(r.mean for r in result.by_seat) / 4
    assert [r.advantage for r in result.by_seat] == pytest.approx(
        [r.mean - average for r in result.by_seat]
    )
    for r in result.by_seat + result.by_dealer_position:
        assert r.low is not None and r.high is not None and r.low <= r.advantage <= r.high


@pytest.mark.django_db
def test_the_selector_reads_the_stored_replays_of_finished_matches() -> None:
    bots = [active_bot("badugi") for _ in range(2)]
    versions = [b.current_version for b in bots]
    agents = [engine.make_agent("badugi", "heuristic", seed=s) for s in range(2)]
    expected = []
    for seed in range(3):
        played = engine.run_match("badugi", {"hands": 6}, agents, seed=seed, duplicate=True)
        expected.append(played.replay)
        match = finished_match("badugi", versions, [1, 2])  # type: ignore[arg-type]
        data = json.dumps(played.replay).encode()
        MatchReplay.objects.create(match=match, data=zlib.compress(data), size=len(data))
    finished_match("badugi", versions, [1, 2])  # type: ignore[arg-type]  # no replay: skipped
    stored = stored_seat_fairness(game="badugi")
    assert stored == seat_fairness("badugi", reversed(expected))  # newest first
    assert stored.matches == 3 and stored.by_dealer_position[0].samples == 3 * 2 * 6
    assert stored_seat_fairness(game="belote").matches == 0
