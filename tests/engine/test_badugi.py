"""Badugi play (RULES.md §2.2–§2.5): the §2.7 scenarios 7–12, Korean betting, options, agents."""

from __future__ import annotations

import json
import random
import statistics
from collections.abc import Sequence
from typing import Any

import pytest

import engine
from engine import IllegalAction, InvalidParams
from engine.games.badugi import BadugiGame, BadugiState, big_blinds_per_100, draw_actions
from engine.games.badugi_agent import discards

ALL = [str(c) for c in engine.CARDS]


def fixed_deck(
    players: int, button: int, hands: dict[int, str], stub: Sequence[str] = ()
) -> list[str]:
    """A deck dealing ``hands`` (seat → 4 cards) from ``button``, then ``stub``, then the rest."""
    deck: list[str] = []
    for k in range(4 * players):
        seat = (button + 1 + k) % players
        deck.append(hands[seat].split()[k // players])
    deck += list(stub)
    deck += [c for c in ALL if c not in deck]
    assert len(set(deck)) == 52
    return deck


def new_state(
    players: int, button: int, hands: dict[int, str], stub: Sequence[str] = (), **params: Any
) -> BadugiState:
    game = engine.load_game("badugi", players=players, hands=1, **params)
    deck = fixed_deck(players, button, hands, stub)
    state = game.new_initial_state(0, decks=[deck], first_dealer=button)
    assert isinstance(state, BadugiState)
    return state


def play(state: BadugiState, line: str) -> None:
    """Apply ``"s2:raise s0:call ..."``, checking that the named seat is the one to act."""
    for step in line.split():
        seat, action = step.split(":", 1)
        assert state.current_player() == int(seat[1:]), (step, state.current_player())
        state.apply_action(action)


def stand_pat(state: BadugiState, seats: str) -> None:
    play(state, " ".join(f"s{s}:draw:" for s in seats.split()))


THREE_HANDED = {0: "7c 8d 9h Ts", 1: "As 2h 3d 5c", 2: "Ah 2s 3c 4d"}


def scenario_7(hands: dict[int, str]) -> BadugiState:
    state = new_state(3, 2, hands)
    assert state.committed == [1, 2, 0]
    play(state, "s2:raise s0:call s1:call")
    assert sum(state.committed) == 12
    stand_pat(state, "0 1 2")
    play(state, "s0:check s1:bet s2:raise s0:fold s1:call")
    assert sum(state.committed) == 20
    stand_pat(state, "1 2")
    play(state, "s1:check s2:bet s1:call")
    assert sum(state.committed) == 28
    stand_pat(state, "1 2")
    play(state, "s1:bet s2:raise s1:raise s2:raise")
    assert state.legal_actions() == ["call", "fold"], "s1 may not raise again: 4 bets is the cap"
    play(state, "s1:call")
    assert state.is_terminal()
    assert state.deals[0].info["pot"] == 60
    return state


def test_scenario_07_full_betting_line_three_players() -> None:
    state = scenario_7(THREE_HANDED)
    assert state.returns() == [-4.0, -28.0, 32.0]
    assert state.deals[0].info["names"] == [None, "5 made (5-3-2-A)", "4 made (4-3-2-A)"]


def test_scenario_07_with_a_tie() -> None:
    state = scenario_7({**THREE_HANDED, 1: "As 2h 3d 4c"})
    assert state.returns() == [-4.0, 2.0, 2.0]
    assert state.deals[0].info["winners"] == [1, 2]


def test_scenario_08_odd_chip_goes_left_of_the_button() -> None:
    state = new_state(3, 2, {**THREE_HANDED, 1: "As 2h 3d 4c"})
    play(state, "s2:call s0:fold s1:check")
    assert sum(state.committed) == 5
    for _ in range(3):
        stand_pat(state, "1 2")
        play(state, "s1:check s2:check")
    assert state.returns() == [-1.0, 1.0, 0.0]


def test_scenario_09_everyone_folds_without_a_draw() -> None:
    state = new_state(3, 2, THREE_HANDED)
    play(state, "s2:fold s0:fold")
    assert state.is_terminal()
    assert state.returns() == [-1.0, 1.0, 0.0]
    assert state.deals[0].info["revealed"] == [None, None, None], "no showdown, nothing revealed"
    assert state.deals[0].info["drawn"] == [[], [], []]
    assert state.history == [(2, "fold"), (0, "fold")]


def test_scenario_10_heads_up_order() -> None:
    state = new_state(2, 0, {0: "As 2h 3d 4c", 1: "Kh Qs Jd Tc"})
    assert state.committed == [1, 2], "the button posts the small blind"
    assert state.current_player() == 0, "the button acts first before the draw"
    play(state, "s0:call s1:check")
    for draw in range(3):
        assert state.observation(1)["phase"] == "draw"
        assert state.observation(1)["draws_left"] == 3 - draw, "this draw included"
        assert state.current_player() == 1, "the big blind draws first"
        play(state, "s1:draw: s0:draw:")
        assert state.observation(0)["draws_left"] == 2 - draw
        assert state.current_player() == 1, "the big blind acts first after the draw"
        play(state, "s1:check s0:check")
    assert state.returns() == [2.0, -2.0]


def test_scenario_11_action_availability() -> None:
    state = new_state(3, 2, THREE_HANDED)
    play(state, "s2:call s0:call")
    assert state.legal_actions() == ["check", "raise"], "the big blind's option"
    play(state, "s1:check")
    stand_pat(state, "0 1 2")
    assert state.legal_actions() == ["bet", "check"]
    play(state, "s0:bet")
    assert state.legal_actions() == ["call", "fold", "raise"]
    play(state, "s1:raise s2:raise")
    assert state.legal_actions() == ["call", "fold", "raise"]
    play(state, "s0:raise")
    assert state.legal_actions() == ["call", "fold"]
    with pytest.raises(IllegalAction, match="capped at 4 bets"):
        state.apply_action("raise")


SIX = dict(
    enumerate(
        ["2c 3c 4c 5c", "2d 3d 4d 5d", "2h 3h 4h 5h", "2s 3s 4s 5s", "6c 7c 8c 9c", "6d 7d 8d 9d"]
    )
)


def six_to_the_second_draw(**params: Any) -> BadugiState:
    state = new_state(6, 5, SIX, **params)
    play(state, "s2:call s3:call s4:call s5:call s0:call s1:check")
    for seat in range(6):
        hand = ",".join(state.observation(seat)["hand"])
        play(state, f"s{seat}:draw:{hand}")
    assert len(state.stub) == 4
    play(state, " ".join(f"s{s}:check" for s in range(6)))
    return state


def test_scenario_12_reshuffle_excludes_the_drawers_own_discards() -> None:
    state = six_to_the_second_draw()
    first = state.observation(0)["hand"]
    last_four = set(state.stub)
    play(state, f"s0:draw:{','.join(first)}")
    assert {str(c) for c in state.hands[0]} == {str(c) for c in last_four}
    assert state.stub == [] and len(state.muck) == 28
    second = state.observation(1)["hand"]
    play(state, f"s1:draw:{','.join(second)}")
    own = set(state.discards[1])
    assert len(own) == 8
    assert state.reshuffles == 1
    assert len(state.stub) == 20, "a 24-card stub of which the drawer took 4"
    assert not own & set(state.hands[1]), "the drawer's own discards stay out of the new stub"
    assert own <= set(state.muck) and len(state.muck) == 8
    everything = [c for h in state.hands for c in h] + state.stub + state.muck
    assert sorted(everything) == list(engine.CARDS)


def test_a_reshuffled_stub_is_recorded_top_card_first() -> None:
    """docs/replay-format.md, "Badugi's reshuffled stubs": the order a tool needs to check a
    replay without the engine's random generator."""
    state = six_to_the_second_draw()
    for seat in (0, 1):
        hand = ",".join(state.observation(seat)["hand"])
        play(state, f"s{seat}:draw:{hand}")
    [order] = state.reshuffled_stubs
    assert len(order) == 24 and len(set(order)) == 24
    assert sorted(order[:4], key=engine.card) == [str(c) for c in state.hands[1]]
    assert order[4:] == [str(c) for c in reversed(state.stub)], "the rest is the stub, top first"
    own = {str(c) for c in state.discards[1]}
    assert not own & set(order)


def test_with_never_return_own_discards_a_reshuffled_stub_leaves_out_the_drawers_cards() -> None:
    state = six_to_the_second_draw(never_return_own_discards=True)
    for seat in range(6):
        hand = ",".join(state.observation(seat)["hand"])
        play(state, f"s{seat}:draw:{hand}")
    assert state.reshuffled_stubs, "six players throwing four twice must reshuffle"
    stub_cards = {str(c) for c in state.stub}
    assert stub_cards <= set(state.reshuffled_stubs[-1])
    for order in state.reshuffled_stubs:
        assert len(set(order)) == len(order)


def test_reshuffle_is_seeded_per_hand() -> None:
    def after_reshuffle() -> list[str]:
        state = six_to_the_second_draw()
        for seat in (0, 1):
            hand = ",".join(state.observation(seat)["hand"])
            play(state, f"s{seat}:draw:{hand}")
        return [str(c) for c in state.hands[1] + state.stub]

    assert after_reshuffle() == after_reshuffle()


def test_never_return_own_discards() -> None:
    state = six_to_the_second_draw(never_return_own_discards=True)
    for seat in range(6):
        hand = ",".join(state.observation(seat)["hand"])
        play(state, f"s{seat}:draw:{hand}")
        assert not set(state.hands[seat]) & set(state.discards[seat])
    play(state, " ".join(f"s{s}:check" for s in range(6)))
    for seat in range(6):  # third draw: everyone throws four again, never getting one back
        hand = ",".join(state.observation(seat)["hand"])
        play(state, f"s{seat}:draw:{hand}")
        assert not set(state.hands[seat]) & set(state.discards[seat]), seat
    everything = [c for h in state.hands for c in h] + state.stub + state.muck
    assert sorted(everything) == list(engine.CARDS)


def test_draw_actions_are_sorted_and_complete() -> None:
    hand = sorted(engine.cards("9s Kd 2c Ah"))
    actions = draw_actions(hand)
    assert actions == sorted(actions) and len(set(actions)) == 16
    assert "draw:9s,Kd" in actions and "draw:" in actions and "draw:2c,9s,Ah,Kd" in actions


def test_draw_replaces_cards_from_the_top_of_the_stub() -> None:
    state = new_state(2, 0, {0: "As 2h 3d Kc", 1: "Kh Qs Jd Tc"}, stub=["5s", "6s", "7s", "8s"])
    play(state, "s0:call s1:check")
    play(state, "s1:draw:Jd,Kh")
    assert state.observation(1)["hand"] == ["5s", "6s", "Qs", "Tc"]
    play(state, "s0:draw:Kc")
    assert state.observation(0)["hand"] == ["2h", "3d", "7s", "As"]
    obs = state.observation(0)
    assert obs["drawn"] == [[1], [2]] and obs["discards"] == ["Kc"]
    assert obs["actions"][-2:] == [[1, "drew:2"], [0, "drew:1"]]
    with pytest.raises(IllegalAction, match="betting round"):
        state.apply_action("draw:")


def test_illegal_draw_explains_the_form() -> None:
    state = new_state(2, 0, {0: "As 2h 3d Kc", 1: "Kh Qs Jd Tc"})
    play(state, "s0:call s1:check")
    for bad in ("draw:Kh,Jd", "draw:As", "draw:Jd,Jd", "fold"):
        with pytest.raises(IllegalAction, match="draw"):
            state.apply_action(bad)


def test_korean_betting_amounts_and_restrictions() -> None:
    state = new_state(3, 2, THREE_HANDED, korean_betting=True, ante=1)
    assert state.committed == [1, 1, 1] and state.current_player() == 0
    assert state.legal_actions() == ["bet", "check", "fold", "half"]
    play(state, "s0:check s1:bet")  # 삥: one ante; pot 4
    assert state.committed == [1, 2, 1]
    assert state.legal_actions() == ["call", "fold", "half", "raise"]
    play(state, "s2:half")  # call 1 + half of (4 + 1) = 2 → puts 3, level 3
    assert state.committed == [1, 2, 4]
    assert state.legal_actions() == ["call", "fold"], "s0 checked: only call or fold"
    play(state, "s0:call s1:raise")  # 따당: call 2 + the last raise (2) → puts 4, level 5
    assert state.committed == [4, 6, 4]
    play(state, "s2:call s0:call")
    assert state.observation(0)["phase"] == "draw" and sum(state.committed) == 18
    observation = state.observation(0)
    assert observation["betting"] == "korean" and observation["blinds"] is None
    assert observation["stacks"] is None and observation["ante"] == 1


def test_korean_raise_cap() -> None:
    state = new_state(
        2, 1, {0: "As 2h 3d 4c", 1: "Kh Qs Jd Tc"}, korean_betting=True, max_raises_per_round=2
    )
    assert state.current_player() == 0, "Korean: the player left of the button acts first"
    play(state, "s0:bet s1:raise s0:half")
    assert state.legal_actions() == ["call", "fold"]


def test_unlimited_heads_up_lifts_the_cap() -> None:
    state = new_state(2, 0, {0: "As 2h 3d 4c", 1: "Kh Qs Jd Tc"}, unlimited_heads_up=True)
    play(state, "s0:raise s1:raise s0:raise s1:raise s0:raise s1:raise")
    assert "raise" in state.legal_actions()
    assert state.observation(0)["stacks"] is None
    three = new_state(3, 2, THREE_HANDED, unlimited_heads_up=True)
    play(three, "s2:raise s0:fold s1:raise s2:raise")
    assert "raise" in three.legal_actions(), "heads-up before the cap: no cap"
    play(three, "s1:raise s2:raise")
    assert "raise" in three.legal_actions()


def test_unlimited_heads_up_a_capped_round_stays_capped_after_a_fold() -> None:
    """[RRP]: once the raising is capped on a betting round, it cannot be uncapped by a
    subsequent fold that leaves two players heads-up (RULES.md §2.3, option unlimited_heads_up).
    """
    three = new_state(3, 2, THREE_HANDED, unlimited_heads_up=True)
    play(three, "s2:raise s0:raise s1:raise")
    assert three.legal_actions() == ["call", "fold"], "capped while three players are in"
    play(three, "s2:fold")
    assert three.legal_actions() == ["call", "fold"], "a fold to heads-up does not uncap"
    play(three, "s0:call")
    stand_pat(three, "0 1")
    play(three, "s0:bet s1:raise s0:raise s1:raise")
    assert "raise" in three.legal_actions(), "the next round starts heads-up: no cap"
    capped_blind = new_state(3, 2, THREE_HANDED, unlimited_heads_up=True, max_bets_per_round=1)
    play(capped_blind, "s2:fold")
    assert capped_blind.legal_actions() == ["call", "fold"], "the big blind capped round 1"


def test_observation_content() -> None:
    state = new_state(3, 2, THREE_HANDED)
    play(state, "s2:raise")
    obs = state.observation(0)
    assert obs["hand"] == ["7c", "8d", "9h", "Ts"] and obs["legal"] == ["call", "fold", "raise"]
    assert obs["to_call"] == 3 and obs["pot"] == 7 and obs["bets"] == [1, 2, 4]
    assert obs["button"] == 2 and obs["blinds"] == [1, 2] and obs["stakes"] == [2, 4]
    assert obs["actions"] == [[2, "raise"]] and obs["stacks"] == [199, 198, 196]
    assert obs["draws_left"] == 3 and obs["street"] == 0 and obs["last_hand"] is None
    assert state.observation(1)["legal"] == []
    json.dumps(obs)


def test_showdown_is_revealed_in_the_next_observation() -> None:
    game = BadugiGame(hands=2)
    deck = fixed_deck(2, 0, {0: "As 2h 3d 4c", 1: "Kh Qs Jd Tc"})
    state = game.new_initial_state(9, decks=[deck], first_dealer=0)
    play(state, "s0:call s1:check")
    for _ in range(3):
        play(state, "s1:draw: s0:draw: s1:check s0:check")
    last = state.observation(1)["last_hand"]
    assert last["revealed"] == [["2h", "3d", "4c", "As"], ["Jd", "Kh", "Qs", "Tc"]]
    assert last["names"] == ["4 made (4-3-2-A)", "K made (K-Q-J-T)"] and last["net"] == [2, -2]
    assert state.observation(0)["button"] == 1, "the button moves after every hand"
    assert state.observation(0)["hand_number"] == 1


def test_folded_seat_shows_no_cards_and_sees_none() -> None:
    state = new_state(3, 2, THREE_HANDED)
    play(state, "s2:fold")
    assert state.observation(2)["hand"] == []
    assert state.observation(2)["to_call"] == 0


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"players": 7}, "players"),
        ({"players": 1}, "players"),
        ({"small_blind": 3}, "small_blind"),
        ({"big_bet": 1}, "big_bet"),
        ({"stack": 47}, "stack"),
        ({"korean_betting": "yes"}, "korean_betting"),
    ],
)
def test_bad_params_name_the_parameter(params: dict[str, Any], match: str) -> None:
    with pytest.raises(InvalidParams, match=match):
        engine.load_game("badugi", **params)


def test_stack_is_free_without_the_cap() -> None:
    engine.load_game("badugi", stack=1, korean_betting=True)
    engine.load_game("badugi", stack=1, unlimited_heads_up=True)


def test_players_set_the_number_of_seats() -> None:
    for n in range(2, 7):
        game = BadugiGame(players=n)
        assert game.num_players == n
        assert len(game.new_initial_state(1).hands) == n


def test_duplicate_heads_up_swaps_the_button_over_the_same_cards() -> None:
    agents = [engine.make_agent("badugi", "random", i) for i in range(2)]
    result = engine.run_match("badugi", {"hands": 6}, agents, seed=8, duplicate=True)
    first, second = result.replay["games"]
    for a, b in zip(first["deals"], second["deals"], strict=True):
        assert a["deck"] == b["deck"] and a["dealer"] == b["dealer"] and a["hands"] == b["hands"]
    assert result.games[0].seats == [0, 1] and result.games[1].seats == [1, 0]
    assert big_blinds_per_100(result) == [s / 2 / 12 * 100 for s in result.scores]
    game = BadugiGame()
    assert game.rate_scores([20.0, -20.0], 100) == {"bb/100": [10.0, -10.0]}


def test_clone_does_not_share_the_reshuffle_generator() -> None:
    state = six_to_the_second_draw()
    for seat in (0, 1):
        play(state, f"s{seat}:draw:{','.join(state.observation(seat)['hand'])}")
    copy = state.clone()
    for s in (state, copy):
        for seat in (2, 3, 4, 5):
            play(s, f"s{seat}:draw:{','.join(s.observation(seat)['hand'])}")
    assert [str(c) for c in copy.stub] == [str(c) for c in state.stub]
    assert copy.hands == state.hands


def test_redeal_hidden_moves_discards_and_stub_consistently() -> None:
    state = six_to_the_second_draw()
    for seat in (0, 1, 2):
        play(state, f"s{seat}:draw:{','.join(state.observation(seat)['hand'])}")
    other = state.redeal_hidden(3, random.Random(1))
    assert other.observation(3) == state.observation(3)
    assert isinstance(other, BadugiState)
    everything = [c for h in other.hands for c in h] + other.stub + other.muck
    assert sorted(everything) == list(engine.CARDS)
    assert other.hands[3] == state.hands[3] and other.hands[0] != state.hands[0]


def test_discard_heuristic() -> None:
    assert discards(["2h", "3d", "4c", "As"], 3) == []
    assert discards(["2h", "3d", "Kc", "As"], 3) == ["Kc"]
    assert discards(["2h", "3d", "Ts", "Kd"], 3) == ["Kd", "Ts"], "keeps the 3-2 draw"
    assert discards(["2h", "3d", "Ts", "Kd"], 1) == ["Kd"], "last draw: keep T-3-2"
    assert discards(["2s", "3s", "4s", "5s"], 2) == ["3s", "4s", "5s"]
    assert discards(["Jh", "Qd", "Kc", "Ts"], 3) == ["Kc"], "break a K-high made hand early"
    assert discards(["Jh", "Qd", "Kc", "Ts"], 1) == []


def test_heuristic_beats_random_in_a_duplicate_match() -> None:
    agents = [engine.make_agent("badugi", "heuristic", 0), engine.make_agent("badugi", "random", 1)]
    result = engine.run_match("badugi", {"hands": 300}, agents, seed=77, duplicate=True)
    first, second = result.games
    pairs = [
        (a.scores[first.seats.index(0)] + b.scores[second.seats.index(0)]) / 2
        for a, b in zip(first.state.deals, second.state.deals, strict=True)
        if a.scores is not None and b.scores is not None
    ]
    mean = statistics.mean(pairs)
    error = statistics.stdev(pairs) / len(pairs) ** 0.5
    assert mean > 3 * error > 0, (mean, error)
    assert big_blinds_per_100(result)[0] > 50


@pytest.mark.parametrize("players", [3, 6])
def test_heuristic_beats_random_at_a_full_table(players: int) -> None:
    agents = [engine.make_agent("badugi", "heuristic", 0)] + [
        engine.make_agent("badugi", "random", i) for i in range(1, players)
    ]
    result = engine.run_match(
        "badugi", {"hands": 60, "players": players}, agents, seed=5, duplicate=True
    )
    assert result.scores[0] > 0 and result.placings[0] == 1


def test_heuristic_plays_korean_betting() -> None:
    agents = [engine.make_agent("badugi", "heuristic", 0), engine.make_agent("badugi", "random", 1)]
    result = engine.run_match(
        "badugi", {"hands": 100, "korean_betting": True}, agents, seed=3, duplicate=True
    )
    assert result.scores[0] > 0


def test_the_default_stack_is_100_big_blinds_of_whatever_the_blinds_are() -> None:
    state = engine.load_game("badugi", small_blind=5, big_blind=10, big_bet=20).new_initial_state(1)
    stacks = state.observation(0)["stacks"]
    assert sorted(stacks) == [1000 - 10, 1000 - 5]


def test_a_pre_draw_cap_of_five_bets_as_pokerkit_with_four_after_the_draw() -> None:
    game = engine.load_game("badugi", max_bets_predraw=5)
    state = game.new_initial_state(2)
    raises = 0
    while "raise" in state.legal_actions():
        state.apply_action("raise")
        raises += 1
    assert raises == 4, "the big blind and four raises make five bets before the draw"
    assert state.observation(state.current_player())["max_bets"] == 5
    state.apply_action("call")
    while state.observation(0)["phase"] == "draw":
        state.apply_action("draw:")
    bets = 0
    while {"bet", "raise"} & set(state.legal_actions()):
        state.apply_action("bet" if "bet" in state.legal_actions() else "raise")
        bets += 1
    assert bets == 4 and state.observation(0)["max_bets"] == 4
