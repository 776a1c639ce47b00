"""Observations share their history instead of copying it: nobody can change another's data.

Every game, every example parameter set: an observation taken earlier never changes later; writing
into one observation (or into the list ``legal_actions()`` returns) changes neither another
observation nor the state; the cached parts (hand text, legal list) always equal a fresh
computation. Also the previous deal's public record (``last_deal``) of Belote and Bauer.
"""

from __future__ import annotations

import copy
import json
import pickle
import random
from collections.abc import Callable
from typing import Any

import pytest

import engine
from engine import State
from engine.cards import card
from engine.frozen import FrozenDict, FrozenList
from engine.registry import game_class

CASES = [
    pytest.param(name, params, id=f"{name}-{json.dumps(params, sort_keys=True)}")
    for name in engine.available_games()
    for params in getattr(game_class(name), "example_params", [{}])
]
SENTINEL = "written by a bot"


def playout(state: State, rng: random.Random, visit: Any, every: float) -> State:
    """Random legal actions to the end; ``visit(state)`` before a fraction ``every`` of them."""
    while not state.is_terminal():
        if rng.random() < every:
            visit(state)
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.random() * len(legal))])
    return state


def scribble(value: Any) -> tuple[int, int]:
    """Try to change every list and dict inside ``value``: (refused, allowed) counts."""
    refused = allowed = 0
    children = list(value.values()) if isinstance(value, dict) else list(value)
    for child in children:
        if isinstance(child, list | dict):
            r, a = scribble(child)
            refused, allowed = refused + r, allowed + a
    try:
        if isinstance(value, dict):
            value[SENTINEL] = SENTINEL
        else:
            value.append(SENTINEL)
    except TypeError:
        return refused + 1, allowed
    return refused, allowed + 1


@pytest.mark.parametrize(("name", "params"), CASES)
def test_writing_into_an_observation_changes_nothing_else(
    name: str, params: dict[str, Any]
) -> None:
    game = engine.load_game(name, **params)
    rng = random.Random(17)
    earlier: list[tuple[dict[str, Any], str]] = []  # observations kept, with their JSON then
    refused_total = 0

    def visit(state: State) -> None:
        nonlocal refused_total
        for seat in range(game.num_players):
            kept = state.observation(seat)
            earlier.append((kept, json.dumps(kept, sort_keys=True)))
            other = state.observation(seat)
            legal = state.legal_actions()
            before = (json.dumps(kept, sort_keys=True), list(legal))
            refused, _ = scribble(other)  # a bot writing everywhere into its observation
            refused_total += refused
            with pytest.raises(TypeError):
                legal.append(SENTINEL)
            assert json.dumps(kept, sort_keys=True) == before[0], "observations alias each other"
            assert json.dumps(state.observation(seat), sort_keys=True) == before[0]
            assert state.legal_actions() == before[1], "the state's legal list was changed"
        for kept, snapshot in earlier:
            assert json.dumps(kept, sort_keys=True) == snapshot, "an old observation changed"

    for seed in range(2):
        earlier.clear()
        playout(game.new_initial_state(seed), rng, visit, every=0.03)
    assert refused_total > 0, "nothing shared was found: the test would be vacuous"


@pytest.mark.parametrize(("name", "params"), CASES)
def test_cached_parts_equal_a_fresh_computation(name: str, params: dict[str, Any]) -> None:
    """The hand text and legal list cached by the state are never stale."""
    game = engine.load_game(name, **params)
    rng = random.Random(19)
    seed = 4

    def visit(state: State) -> None:
        fresh = game.new_initial_state(seed)  # no cache has been built: everything is computed
        for _, action in state.history:
            fresh.apply_action(action)
        for seat in range(game.num_players):
            observed = state.observation(seat)
            assert observed == fresh.observation(seat)
            assert json.loads(json.dumps(observed)) == observed

    playout(game.new_initial_state(seed), rng, visit, every=0.02)


def test_frozen_containers_refuse_changes_and_behave_like_lists_and_dicts() -> None:
    items = FrozenList(["7h", "Ah"])
    entry = FrozenDict(seat=1, cards=items)
    changes: list[Callable[[], object]] = [
        lambda: items.append("Kd"),
        lambda: items.extend(["Kd"]),
        lambda: items.sort(),
        lambda: items.__setitem__(0, "Kd"),
        lambda: items.__delitem__(0),
        lambda: items.__iadd__(["Kd"]),
        lambda: entry.__setitem__("seat", 2),
        lambda: entry.update(seat=2),
        lambda: entry.pop("seat"),
        lambda: entry.setdefault("x", 1),
        lambda: entry.clear(),
    ]
    for change in changes:
        with pytest.raises(TypeError, match="read-only"):
            change()
    assert items == ["7h", "Ah"] and entry == {"seat": 1, "cards": ["7h", "Ah"]}
    assert isinstance(items, list) and isinstance(entry, dict)
    assert json.dumps(entry) == '{"seat": 1, "cards": ["7h", "Ah"]}'
    mutable = items[:]
    mutable.append("Kd")  # a slice (or list(x)) is an ordinary private copy
    assert items == ["7h", "Ah"]
    assert copy.copy(entry) is entry and copy.deepcopy(entry) is entry
    restored = pickle.loads(pickle.dumps(entry))
    assert restored == entry and type(restored["cards"]) is FrozenList


def play_until_deal(state: State, deal: int, rng: random.Random) -> State:
    while len(state.deals) <= deal:
        legal = state.legal_actions()
        state.apply_action(rng.choice(legal))
    return state


def played_cards(state: State, deal: int) -> list[str]:
    """The card actions of deal ``deal``, in order."""
    record = state.deals[deal]
    actions = [a for _, a in state.history[record.start : record.end]]
    return [a for a in actions if len(a) == 2]  # card texts; bids and calls are longer


@pytest.mark.parametrize("name", ["belote", "bauer"])
def test_the_previous_deal_with_its_last_trick_stays_visible(name: str) -> None:
    """docs/rules/<game>.md, "What your bot sees": ``last_deal`` keeps the finished deal."""
    game = engine.load_game(name)
    state = game.new_initial_state(3)
    rng = random.Random(5)
    for seat in range(4):
        assert state.observation(seat)["last_deal"] is None, "nothing before the first deal"
    seen = 0
    while seen < 3:
        deal = len(state.deals) - 1
        state = play_until_deal(state, deal + 1, rng)
        finished = state.deals[deal]
        last = state.observation(0)["last_deal"]
        assert all(state.observation(s)["last_deal"] == last for s in range(4)), "public: same"
        assert last["deal"] == deal and last["dealer"] == finished.dealer
        assert last["deal_scores"] == finished.scores
        cards = [c for t in last["tricks"] for c in t["cards"]]
        if not last["tricks"]:  # a Belote deal thrown in: nobody took, nothing was played
            assert last["outcome"] == "void" and last["taker"] is None
            continue
        seen += 1
        assert len(last["tricks"]) == 8 and cards == played_cards(state, deal)
        assert sorted(cards, key=card) == sorted(finished.deck, key=card), "every card played"
        won = [sum(1 for t in last["tricks"] if t["winner"] == s) for s in range(4)]
        if name == "bauer":
            assert last["tricks_won"] == won
            assert last["team_tricks"] == finished.info["team_tricks"]
            assert last["trump"] == finished.info["trump"]
        else:
            assert last["card_points"] == finished.info["card_points"]
            assert last["outcome"] == finished.info["outcome"]
            assert last["team_tricks"] == finished.info["tricks"]
            assert last["taker"] == finished.info["taker"]


def test_a_thrown_in_belote_deal_reveals_no_hand() -> None:
    state = engine.load_game("belote").new_initial_state(1)
    for _ in range(8):
        state.apply_action("pass")
    last = state.observation(2)["last_deal"]
    assert last["outcome"] == "void" and last["tricks"] == [] and last["deal_scores"] == [0] * 4
    assert [b["bid"] for b in last["bids"]] == ["pass"] * 8
    hidden = {c for h in state.deals[0].hands for c in h} - {last["upcard"]}
    assert not hidden & set(json.dumps(last).replace('"', " ").split()), "no hand is revealed"
