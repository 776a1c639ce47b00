"""A seat view of a replay holds exactly what that seat learned while it played."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import engine
from engine.replay import walk_replay
from engine.seat_view import HIDDEN

CARD = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][shdc](?![A-Za-z0-9])")

MATCHES = [
    ("belote", {"target": 300}, 4),
    ("bauer", {"start_points": 3}, 4),
    ("barbu", {}, 4),
    ("badugi", {"hands": 8, "players": 4}, 4),
    ("badugi", {"hands": 12}, 2),
]


def heuristic_match(game: str, params: dict[str, Any], seats: int, seed: int) -> dict[str, Any]:
    agents = [engine.make_agent(game, "heuristic", seed=seed + i) for i in range(seats)]
    result = engine.run_match(game, params, agents, seed, duplicate=True)
    return result.replay


@pytest.fixture(scope="module", params=MATCHES, ids=lambda m: f"{m[0]}-{m[2]}")
def replay(request: pytest.FixtureRequest) -> dict[str, Any]:
    game, params, seats = request.param
    return heuristic_match(game, params, seats, seed=11)


def cards_seen_by(replay: dict[str, Any], seat: int) -> set[str]:
    """Every card text in any observation ``seat`` received, taken after every action."""
    seen: set[str] = set()

    def look(_g: int, _d: int, *rest: Any) -> None:
        state = rest[-1]
        seen.update(CARD.findall(json.dumps(state.observation(seat))))

    walk_replay(replay, on_deal=look, on_event=look)
    return seen


def test_a_seat_view_has_no_seed_no_deck_and_only_its_own_hand(replay: dict[str, Any]) -> None:
    seats = len(replay["games"][0]["seats"])
    for seat in range(seats):
        view = engine.seat_view(replay, seat)
        assert view["seed"] is None and view["viewpoint"] == {"seat": seat}
        for played in view["games"]:
            for deal in played["deals"]:
                assert "deck" not in deal
                for other, hand in enumerate(deal["hands"]):
                    if other != seat:
                        assert hand and set(hand) == {HIDDEN}
                    else:
                        assert HIDDEN not in hand


def test_every_card_in_a_seat_view_is_one_the_seat_was_shown(replay: dict[str, Any]) -> None:
    seats = len(replay["games"][0]["seats"])
    for seat in range(seats):
        view = engine.seat_view(replay, seat)
        shown = cards_seen_by(replay, seat)
        # the deal summaries are public once a deal ends; the final deal's has no later
        # observation to appear in, so it counts as shown
        for played in replay["games"]:
            info = dict(played["deals"][-1]["info"])
            info.pop("final_hands", None)  # withheld by the view (checked below)
            info.pop("reshuffled_stubs", None)  # withheld by the view (checked below)
            shown.update(CARD.findall(json.dumps(info)))
        in_view = set(CARD.findall(json.dumps(view["games"])))
        assert in_view <= shown, f"seat {seat} sees {sorted(in_view - shown)}"


def test_the_own_hand_can_be_followed_event_by_event(replay: dict[str, Any]) -> None:
    """Start hand + ``received`` − what the seat played or discarded is the seat's hand: every
    card it plays is in it, and a Belote or Bauer deal ends with it empty (Barbu's domino and
    early-ending contracts may leave cards in hand)."""
    seats = len(replay["games"][0]["seats"])
    trick_game = replay["game"] != "badugi"
    for seat in range(seats):
        view = engine.seat_view(replay, seat)
        for played in view["games"]:
            for deal in played["deals"]:
                hand = list(deal["hands"][seat])
                sizes = [len(h) for h in deal["hands"]]
                for event in deal["events"]:
                    action = event["action"]
                    if event["seat"] == seat:
                        spent = (
                            action.removeprefix("draw:").split(",")
                            if action.startswith("draw:")
                            else [action]
                            if CARD.fullmatch(action)
                            else []
                        )
                        for card in filter(None, spent):
                            assert card in hand, (card, hand)
                            hand.remove(card)
                    elif action.startswith("draw:"):
                        pytest.fail(f"seat {seat} sees another seat's discards: {action}")
                    hand.extend(event.get("received", []))
                    sizes = event.get("hand_sizes", sizes)
                    assert sizes[seat] >= len(hand) or not trick_game
                if replay["game"] in ("belote", "bauer") and deal["info"].get("outcome") != "void":
                    assert hand == [], (deal["index"], hand)


def test_other_seats_draws_show_the_count_only() -> None:
    replay = heuristic_match("badugi", {"hands": 6}, 2, seed=3)
    view = engine.seat_view(replay, 0)
    pairs = [
        (full["action"], seen["action"])
        for full_deal, seen_deal in zip(
            replay["games"][0]["deals"], view["games"][0]["deals"], strict=True
        )
        for full, seen in zip(full_deal["events"], seen_deal["events"], strict=True)
        if full["seat"] == 1 and full["action"].startswith("draw:")
    ]
    assert pairs, "the match had no draws by seat 1"
    for full_action, seen_action in pairs:
        discarded = full_action.removeprefix("draw:")
        assert seen_action == f"drew:{len(discarded.split(',')) if discarded else 0}"


def test_a_showdown_hand_stays_visible_and_a_mucked_one_is_withheld() -> None:
    replay = heuristic_match("badugi", {"hands": 12, "players": 4}, 4, seed=5)
    view = engine.seat_view(replay, 2)
    revealed_seen = withheld_seen = False
    for full_deal, seen_deal in zip(
        replay["games"][0]["deals"], view["games"][0]["deals"], strict=True
    ):
        info, seen = full_deal["info"], seen_deal["info"]
        for s, hand in enumerate(seen["final_hands"]):
            if s == 2 or info["revealed"][s] is not None:
                assert hand == info["final_hands"][s]
                revealed_seen |= s != 2
            else:
                assert hand is None
                withheld_seen = True
    assert revealed_seen and withheld_seen


class ThrowAll(engine.Agent):
    """Draws four new cards at every draw and never bets: six of them empty the stub."""

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        if observation["phase"] == "draw":
            return max(legal, key=len)
        return "check" if "check" in legal else "call"


@pytest.mark.parametrize("never_return", [False, True])
def test_reshuffled_stub_orders_are_in_the_replay_but_not_in_a_seat_view(
    never_return: bool,
) -> None:
    """The full replay records each reshuffled stub's order (re-simulation checks it); a seat
    view keeps only its length."""
    params = {"players": 6, "hands": 2, "never_return_own_discards": never_return}
    replay = engine.run_match("badugi", params, [ThrowAll() for _ in range(6)], seed=7).replay
    engine.resimulate(replay)
    deals = replay["games"][0]["deals"]
    assert all(d["info"]["reshuffles"] >= 1 for d in deals), "every hand reshuffles"
    for deal in deals:
        stubs = deal["info"]["reshuffled_stubs"]
        assert len(stubs) == deal["info"]["reshuffles"]
        for order in stubs:
            assert order and all(CARD.fullmatch(c) for c in order)
    for seat in range(6):
        view = engine.seat_view(replay, seat)
        for full, seen in zip(deals, view["games"][0]["deals"], strict=True):
            stubs = full["info"]["reshuffled_stubs"]
            assert seen["info"]["reshuffled_stubs"] == [[HIDDEN] * len(o) for o in stubs]
            assert seen["info"]["reshuffles"] == full["info"]["reshuffles"]


def test_another_seats_fault_keeps_its_verdict_but_not_its_message() -> None:
    class Illegal(engine.Agent):
        def act(self, observation: dict[str, Any], legal: list[str]) -> str:
            return " ".join(observation["hand"])  # an illegal answer that shows its cards

    agents = [Illegal(), engine.make_agent("barbu", "heuristic", seed=1)] + [
        engine.make_agent("barbu", "heuristic", seed=s) for s in (2, 3)
    ]
    replay = engine.run_match("barbu", {}, agents, seed=2).replay
    fault = replay["games"][0]["faults"][0]
    hand = fault["detail"]["action"].split()
    assert fault["verdict"] == "illegal_action" and hand[0] in fault["message"]
    own = engine.seat_view(replay, 0)["games"][0]["faults"][0]
    other = engine.seat_view(replay, 1)["games"][0]["faults"][0]
    assert own["message"] == fault["message"]
    assert other["verdict"] == "illegal_action" and not CARD.search(other["message"])
    assert other["detail"] == {}


def test_a_seat_outside_the_game_and_a_seat_view_itself_are_refused() -> None:
    replay = heuristic_match("bauer", {"start_points": 2}, 4, seed=1)
    with pytest.raises(engine.InvalidReplay, match="seat 4 is not a seat"):
        engine.seat_view(replay, 4)
    with pytest.raises(engine.InvalidReplay, match="cannot be re-simulated"):
        engine.seat_view(engine.seat_view(replay, 0), 1)


def test_the_full_replay_is_left_unchanged() -> None:
    replay = heuristic_match("belote", {"target": 200}, 4, seed=4)
    before = json.dumps(replay, sort_keys=True)
    engine.seat_view(replay, 3)
    assert json.dumps(replay, sort_keys=True) == before


def test_resimulation_refuses_a_changed_stub_order() -> None:
    params = {"players": 6, "hands": 1}
    replay = engine.run_match("badugi", params, [ThrowAll() for _ in range(6)], seed=3).replay
    order = replay["games"][0]["deals"][0]["info"]["reshuffled_stubs"][0]
    order[0], order[-1] = order[-1], order[0]
    with pytest.raises(engine.InvalidReplay, match="deal 0: info differs"):
        engine.resimulate(replay)
