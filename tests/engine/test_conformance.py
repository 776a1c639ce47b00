"""Conformance suite: every registered game, every example parameter set (DESIGN.md §5).

Games join by registering; a game class may list ``example_params`` to exercise its variants.
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import IllegalAction, InvalidParams, State
from engine.registry import game_class

CASES = [
    pytest.param(name, params, id=f"{name}-{json.dumps(params, sort_keys=True)}")
    for name in engine.available_games()
    for params in getattr(game_class(name), "example_params", [{}])
]
MAX_DECISIONS = 200_000


def _belote_deal_ok(info: dict[str, Any], scores: list[int]) -> bool:
    if info["outcome"] == "void":
        return scores == [0, 0, 0, 0]
    return sum(info["card_points"]) == 162 and sum(info["tricks"]) == 8


#: RULES.md §1.6 and §1.8.5: what the four deal scores of each Barbu contract add up to
BARBU_TOTALS = {
    (52, False): {"no_tricks": -26, "no_hearts": -30, "no_queens": -24,
                  "no_king_of_hearts": -20, "no_last_two": -30, "trumps": 65, "domino": 65},
    (32, False): {"no_tricks": -16, "no_hearts": -20, "no_queens": -24,
                  "no_king_of_hearts": -20, "no_last_two": -30, "trumps": 40, "domino": 65},
    (52, True): {"no_tricks": -65, "no_hearts": -130, "no_queens": -80,
                 "no_king_of_hearts": -50, "no_last_trick": -30, "salad": -355},
    (32, True): {"no_tricks": -40, "no_hearts": -80, "no_queens": -80,
                 "no_king_of_hearts": -50, "no_last_trick": -30, "salad": -280},
}  # fmt: skip


def _barbu_deal_ok(params: Any, info: dict[str, Any], scores: list[int]) -> bool:
    total = BARBU_TOTALS[(params.deck, params.salad)][info["contract"]]
    if sum(info["contract_scores"]) != total:
        return False
    symmetric = not params.doubling or params.doubling_payout == "symmetric"
    return not symmetric or sum(scores) == total  # symmetric doubling bets are zero-sum


#: invariants every finished deal must satisfy: (params, deal info, deal scores) -> bool
DEAL_INVARIANTS = {
    "belote": lambda params, info, scores: _belote_deal_ok(info, scores),  # 162 points, 8 tricks
    "bauer": lambda params, info, scores: sum(info["team_tricks"]) == 8,
    "badugi": lambda params, info, scores: sum(scores) == 0,  # chips only change hands
    "barbu": _barbu_deal_ok,
}


def playout(state: State, rng: random.Random, visit: Any = None) -> State:
    """Play random legal actions to the end, calling ``visit(state)`` before each decision."""
    for _ in range(MAX_DECISIONS):
        if state.is_terminal():
            return state
        if visit is not None:
            visit(state)
        legal = state.legal_actions()
        state.apply_action(rng.choice(legal))
    raise AssertionError("game did not end")


def test_the_four_games_are_registered() -> None:
    assert engine.available_games() == ["badugi", "barbu", "bauer", "belote"]


@pytest.mark.parametrize(("name", "params"), CASES)
def test_random_playout_to_the_end_of_a_full_match(name: str, params: dict[str, Any]) -> None:
    game = engine.load_game(name, **params)
    rng = random.Random(0)
    for seed in range(2):

        def check(state: State) -> None:
            seat = state.current_player()
            legal = state.legal_actions()
            assert 0 <= seat < game.num_players
            assert legal, "no legal action while the game is live"
            assert legal == sorted(legal), "legal actions are not sorted"
            assert len(set(legal)) == len(legal), "duplicate legal actions"
            observation = state.observation(seat)
            assert observation["legal"] == legal
            assert observation["seat"] == seat
            assert observation["game"] == name
            if rng.random() < 0.05:
                json.dumps(observation)  # must be JSON-serialisable

        state = playout(game.new_initial_state(seed), rng, check)
        assert state.is_terminal()
        assert state.legal_actions() == []
        assert len(state.returns()) == game.num_players
        invariant = DEAL_INVARIANTS[name]
        for deal in state.deals:
            assert deal.scores is not None, "a deal was left unscored"
            assert invariant(game.params, deal.info, deal.scores), f"deal {deal.index}: {deal.info}"


@pytest.mark.parametrize(("name", "params"), CASES)
def test_illegal_actions_raise_and_change_nothing(name: str, params: dict[str, Any]) -> None:
    game = engine.load_game(name, **params)
    rng = random.Random(7)
    candidates = [str(c) for c in engine.CARDS] + ["pass", "take", "bogus", "", "fold", "draw:"]

    def try_illegal(state: State) -> None:
        if rng.random() > 0.1:
            return
        legal = state.legal_actions()
        illegal = rng.choice([a for a in candidates if a not in legal])
        before = (len(state.history), state.current_player(), legal)
        with pytest.raises(IllegalAction) as raised:
            state.apply_action(illegal)
        assert repr(illegal) in str(raised.value)
        assert (len(state.history), state.current_player(), state.legal_actions()) == before

    playout(game.new_initial_state(3), rng, try_illegal)


@pytest.mark.parametrize(("name", "params"), CASES)
def test_clone_is_equal_and_independent(name: str, params: dict[str, Any]) -> None:
    game = engine.load_game(name, **params)
    rng = random.Random(11)

    def compare(state: State) -> None:
        if rng.random() > 0.05:
            return
        copy = state.clone()
        seats = range(game.num_players)
        assert copy.history == state.history
        assert copy.legal_actions() == state.legal_actions()
        assert [copy.observation(s) for s in seats] == [state.observation(s) for s in seats]
        before = [state.observation(s) for s in seats]
        playout(copy, random.Random(rng.random()))
        assert [state.observation(s) for s in seats] == before, "the clone shares state"

    playout(game.new_initial_state(5), rng, compare)


@pytest.mark.parametrize(("name", "params"), CASES)
def test_observations_do_not_leak_hidden_cards(name: str, params: dict[str, Any]) -> None:
    """Re-deal every card a seat cannot see; its observation must not change."""
    game = engine.load_game(name, **params)
    rng = random.Random(13)
    changed_others = 0

    def redeal(state: State) -> None:
        nonlocal changed_others
        if rng.random() > 0.1:
            return
        for seat in range(game.num_players):
            other = state.redeal_hidden(seat, random.Random(rng.random()))
            assert other.observation(seat) == state.observation(seat), (
                f"seat {seat} sees hidden cards"
            )
            others = [s for s in range(game.num_players) if s != seat]
            if any(other.observation(s)["hand"] != state.observation(s)["hand"] for s in others):
                changed_others += 1

    for seed in range(3):
        playout(game.new_initial_state(seed), rng, redeal)
    assert changed_others > 0, "the re-deal never moved a hidden card: the test would be vacuous"


@pytest.mark.parametrize(("name", "params"), CASES)
def test_match_replay_resimulates_and_is_deterministic(name: str, params: dict[str, Any]) -> None:
    game = engine.load_game(name, **params)

    def match(seed: int) -> engine.MatchResult:
        agents = [engine.make_agent(name, "random", seed * 10 + i) for i in range(game.num_players)]
        return engine.run_match(game, None, agents, seed, duplicate=True)

    result = match(21)
    replay = json.loads(json.dumps(result.replay))
    states = engine.resimulate(replay)
    assert [s.returns() for s in states] == [g["returns"] for g in replay["games"]]
    again = match(21)
    assert actions(again.replay) == actions(replay), "same seeds, different play"
    assert again.replay["result"] == replay["result"]


def actions(replay: dict[str, Any]) -> list[list[tuple[int, str]]]:
    """Every game's (seat, action) sequence, without the timings."""
    return [
        [(e["seat"], e["action"]) for deal in game["deals"] for e in deal["events"]]
        for game in replay["games"]
    ]


@pytest.mark.parametrize(("name", "params"), CASES)
def test_duplicate_games_share_the_first_deck_and_rotate_entrants(
    name: str, params: dict[str, Any]
) -> None:
    game = engine.load_game(name, **params)
    agents = [engine.make_agent(name, "random", i) for i in range(game.num_players)]
    result = engine.run_match(game, None, agents, seed=4, duplicate=True)
    decks = {json.dumps(g["deals"][0]["deck"]) for g in result.replay["games"]}
    assert len(decks) == 1, "duplicate games must start from the same deck order"
    seatings = [g.seats for g in result.games]
    for entrant in range(game.num_players):
        seats_taken = {seating.index(entrant) for seating in seatings}
        if game.teams is None:
            assert seats_taken == set(range(game.num_players))
        else:
            assert {s % 2 for s in seats_taken} == {0, 1}, "team games swap the two sides"


def test_a_tampered_replay_is_rejected() -> None:
    agents = [engine.make_agent("bauer", "random", i) for i in range(4)]
    result = engine.run_match("bauer", {"start_points": 1}, agents, seed=2)
    replay = json.loads(json.dumps(result.replay))
    replay["games"][0]["returns"][0] += 1
    with pytest.raises(engine.InvalidReplay, match="returns"):
        engine.resimulate(replay)
    replay = json.loads(json.dumps(result.replay))
    events = replay["games"][0]["deals"][0]["events"]
    events[-1]["action"] = "pass" if events[-1]["action"] != "pass" else "Ah"
    with pytest.raises(engine.InvalidReplay):
        engine.resimulate(replay)


@pytest.mark.parametrize("name", engine.available_games())
def test_unknown_and_bad_params_name_the_parameter(name: str) -> None:
    with pytest.raises(InvalidParams, match="no_such_option"):
        engine.load_game(name, no_such_option=True)


def test_unknown_game_is_a_clear_error() -> None:
    with pytest.raises(InvalidParams, match="unknown game 'chess'.*belote"):
        engine.load_game("chess")


@pytest.mark.parametrize("name", engine.available_games())
def test_every_game_has_random_and_heuristic_agents(name: str) -> None:
    assert {"random", "heuristic"} <= set(engine.agent_kinds(name))


@settings(max_examples=25, deadline=None)
@given(
    case=st.sampled_from([(p.values[0], p.values[1]) for p in CASES]),
    seed=st.integers(min_value=0, max_value=2**63),
    play_seed=st.integers(min_value=0, max_value=2**32),
)
def test_property_any_seed_plays_to_a_consistent_end(
    case: tuple[str, dict[str, Any]], seed: int, play_seed: int
) -> None:
    name, params = case
    game = engine.load_game(name, **params)
    state = playout(game.new_initial_state(seed), random.Random(play_seed))
    replayed = game.new_initial_state(seed)
    for _, action in state.history:
        replayed.apply_action(action)
    assert replayed.is_terminal()
    assert replayed.returns() == state.returns()
    assert [d.to_dict() for d in replayed.deals] == [d.to_dict() for d in state.deals]


def option_strategy(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """Any combination of a game's true/false and multiple-choice rule options."""
    params_class = game_class(name).Params
    options: dict[str, st.SearchStrategy[Any]] = {}
    for f in dataclasses.fields(params_class):
        if "choices" in f.metadata:
            options[f.name] = st.sampled_from(f.metadata["choices"])
        elif isinstance(f.default, bool):
            options[f.name] = st.booleans()
    return st.fixed_dictionaries({}, optional=options)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), name=st.sampled_from(engine.available_games()), seed=st.integers(0, 2**32))
def test_property_any_option_combination_is_refused_clearly_or_plays_to_the_end(
    data: st.DataObject, name: str, seed: int
) -> None:
    params = data.draw(option_strategy(name))
    if name == "badugi":
        params["hands"] = 3  # keep each example short
    try:
        game = engine.load_game(name, **params)
    except InvalidParams as err:
        assert any(repr(key) in str(err) for key in params), f"the error names no parameter: {err}"
        return
    state = playout(game.new_initial_state(seed), random.Random(seed))
    assert len(state.returns()) == game.num_players
