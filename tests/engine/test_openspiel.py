"""The OpenSpiel adapter (arena_openspiel/): the four games through pyspiel's own API and checks.

OpenSpiel's own checks of Python games run on every option set below: ``random_sim_test`` (with
serialisation), the simulation of ``open_spiel/python/tests/games_sim_test.py`` (pickling of the
game, its type and its states, ``serialize_game_and_state``, clones). OpenSpiel's
``get_all_states`` is out of reach: chance deals 32! or 52! deck orders. In its place, a
perfect-recall check over sampled playouts: no information state (string or tensor) belongs to
two different histories of a seat, and no history of a seat has two information states.

Skipped, with the reason, when the optional extra is not installed
(``pip install card-arena[openspiel]``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import pickle
import random
from collections.abc import Callable
from typing import Any

import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="open_spiel is not installed: pip install card-arena[openspiel]"
)
import numpy as np  # noqa: E402  (installed with open_spiel)
from open_spiel.python.algorithms import mcts  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402
from open_spiel.python.tests import games_sim_test  # noqa: E402

import arena_openspiel  # noqa: E402
import engine  # noqa: E402
from arena_openspiel import games as adapter  # noqa: E402

LOADS = [
    "arena_bauer",
    "arena_belote",
    "arena_belote(undertrump=True,first_lead=eldest)",
    "arena_barbu",
    "arena_barbu(mode=geronimo,doubling=True,doubling_any_subset=True)",
    "arena_barbu(salad=True,deck=32)",
    "arena_badugi",
    "arena_badugi(players=6,never_return_own_discards=True)",
    "arena_badugi(korean_betting=True)",
    "arena_badugi(unlimited_heads_up=True,max_bets_heads_up=6)",
    "arena_badugi(players=3,unlimited_heads_up=True)",
]
BASE = ["arena_bauer", "arena_belote", "arena_barbu", "arena_badugi"]
PERFECT_RECALL = {
    # load: (decks, variants of each deck, swaps among the top ... cards of the deck)
    "arena_bauer": (3, 12, 32),
    "arena_belote": (4, 12, 32),
    "arena_barbu(mode=geronimo,doubling=True)": (3, 10, 52),
    "arena_badugi": (6, 20, 14),  # the hands (8 cards) and the first cards drawn
    "arena_badugi(players=4,never_return_own_discards=True)": (4, 12, 24),
    "arena_badugi(unlimited_heads_up=True,max_bets_heads_up=6)": (6, 20, 14),
}


def play_out(state: Any, rng: random.Random, until: int | None = None) -> Any:
    """Play ``state`` with uniformly random chance outcomes and actions (to ``until`` moves)."""
    while not state.is_terminal() and (until is None or len(state.history()) < until):
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_every_engine_game_is_registered_with_an_importable_class() -> None:
    assert arena_openspiel.GAMES == [f"arena_{n}" for n in engine.available_games()]
    assert set(arena_openspiel.GAMES) <= set(pyspiel.registered_names())
    for short in arena_openspiel.GAMES:
        cls = type(pyspiel.load_game(short))
        assert cls.__module__ == "arena_openspiel.games"
        assert getattr(adapter, cls.__qualname__) is cls  # what pickle looks up


@pytest.mark.parametrize("load", LOADS)
def test_openspiel_random_simulation_with_serialisation(load: str) -> None:
    """OpenSpiel's own random simulation test: legal actions, clones, information states and
    observations of every player, serialisation and deserialisation of states."""
    game = pyspiel.load_game(load)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("load", LOADS)
def test_openspiel_games_sim_test(load: str) -> None:
    """The simulation of OpenSpiel's ``games_sim_test.py``, run on every game it registers:
    pickling of the game and its type, then along a random playout clones, pyspiel's
    serialisation and pickling of the state at every power-of-two move."""
    np.random.seed(7)
    games_sim_test.GamesSimTest().sim_game(pyspiel.load_game(load))


@pytest.mark.parametrize("load", LOADS)
def test_random_playouts_match_the_engine(load: str) -> None:
    """Through pyspiel's API: chance deals the deck, every decision is the engine's, the
    observation of each player is its engine observation (no hidden card) and the information
    state holds it."""
    game = pyspiel.load_game(load)
    players = game.num_players()
    cap = game.new_initial_state().setup.heads_up_cap
    rng = random.Random(load)
    for _ in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
                state.apply_action(rng.choice(outcomes)[0])
                continue
            player = state.current_player()
            inner = state.inner
            legal = state.legal_actions()
            assert legal == sorted(legal) and len(set(legal)) == len(legal)
            names = sorted(state.action_to_string(player, a) for a in legal)
            expected = list(inner.legal_actions())
            counts = inner.observation(player)
            if cap and counts["bet_count"] >= max(cap, counts["max_bets"]):
                expected = [a for a in expected if a != "raise"]
            assert names == expected, "action ids and strings disagree"
            for seat in range(players):
                observation = json.loads(json.dumps(inner.observation(seat)))
                assert json.loads(state.observation_string(seat)) == observation
                info = json.loads(state.information_state_string(seat))
                assert info["observation"] == observation and info["seat"] == seat
                tensor = np.asarray(state.information_state_tensor(seat))
                assert tensor.shape == (game.information_state_tensor_size(),)
                hand = tensor[players : players + 52]
                assert sorted(np.flatnonzero(hand)) == sorted(
                    int(engine.card(t)) for t in observation["hand"]
                )
                prefix = np.asarray(state.observation_tensor(seat))
                assert np.array_equal(tensor[: len(prefix)], prefix)  # the summary pieces
            state.apply_action(rng.choice(legal))
        assert state.returns() == [float(s) for s in state.inner.deals[0].scores]
        assert len(state.history()) <= game.max_game_length()
        final = json.loads(state.information_state_string(0))
        assert final["returns"] == state.returns() and final["observation"] is None
        assert final["outcome"]["deal_scores" if "badugi" not in load else "net"] == [
            int(r) for r in state.returns()
        ]


def test_the_deck_is_dealt_by_chance_in_deck_order() -> None:
    game = pyspiel.load_game("arena_bauer(first_dealer=3)")
    state = game.new_initial_state()
    deck = [str(c) for c in engine.load_game("bauer").deck]
    random.Random(2).shuffle(deck)
    for k, text in enumerate(deck):
        assert state.is_chance_node()
        assert json.loads(state.information_state_string(1))["dealt"] == k
        state.apply_action(int(engine.card(text)))
    assert state.inner.deals[0].deck == deck and state.inner.dealer == 3
    assert state.observation_string(0) == json.dumps(
        state.inner.observation(0), sort_keys=True, separators=(",", ":")
    )
    info = json.loads(state.information_state_string(0))
    assert info["received"] == [[0, list(state.inner.observation(0)["hand"])]]


def test_a_thrown_in_belote_deal_is_terminal_with_zero_returns() -> None:
    game = pyspiel.load_game("arena_belote")
    state = game.new_initial_state()
    rng = random.Random(1)
    while state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    passes = 0
    while not state.is_terminal():
        state.apply_action(52)  # "pass"
        passes += 1
    assert passes == 8 and state.returns() == [0.0] * 4


# -- pickling and serialisation ---------------------------------------------------------------


def same_state(a: Any, b: Any) -> None:
    """``a`` and ``b`` are the same state as far as every player can tell."""
    assert str(a) == str(b) and a.history() == b.history()
    assert a.current_player() == b.current_player() and a.is_terminal() == b.is_terminal()
    assert a.legal_actions() == b.legal_actions()
    for seat in range(a.num_players()):
        assert a.information_state_string(seat) == b.information_state_string(seat)
        assert a.information_state_tensor(seat) == b.information_state_tensor(seat)
        assert a.observation_string(seat) == b.observation_string(seat)


@pytest.mark.parametrize("load", [*BASE, "arena_badugi(unlimited_heads_up=True)"])
def test_games_and_states_pickle_and_round_trip(load: str) -> None:
    game = pyspiel.load_game(load)
    copy = pickle.loads(pickle.dumps(game))
    assert type(copy) is type(game) and str(copy) == str(game)
    assert pickle.loads(pickle.dumps(game.get_type())) == game.get_type()
    rng = random.Random(load)
    deck = len(game.new_initial_state().chance_outcomes())
    for until in (0, deck // 2, deck + 3, None):  # dealing, just dealt, in play, over
        state = play_out(game.new_initial_state(), rng, until)
        data = pickle.dumps(state)
        loaded = pickle.loads(data)
        same_state(state, loaded)
        assert str(loaded.get_game()) == str(game)
        # the Python side pickles as deck and actions, never as the engine's objects (C
        # extensions in a compiled engine, which mypyc does not make picklable)
        text = pyspiel.serialize_game_and_state(game, state)
        raw = base64.b64decode(text.rsplit("__dict__=", 1)[1])
        assert b"engine" not in raw
        if not state.is_terminal():  # both play on alike
            seed = rng.random()
            play_out(state, random.Random(seed))
            play_out(loaded, random.Random(seed))
            same_state(state, loaded)
            assert state.returns() == loaded.returns()


@pytest.mark.parametrize("load", BASE)
def test_serialize_game_and_state_round_trips(load: str) -> None:
    game = pyspiel.load_game(load)
    rng = random.Random(load)
    state = play_out(game.new_initial_state(), rng, 60)
    new_game, new_state = pyspiel.deserialize_game_and_state(
        pyspiel.serialize_game_and_state(game, state)
    )
    assert str(new_game) == str(game)
    same_state(state, new_state)
    same_state(state, game.deserialize_state(state.serialize()))
    clone = state.clone()
    same_state(state, clone)
    clone.apply_action(clone.legal_actions()[0])
    assert clone.history() != state.history()  # the clone is independent


# -- perfect recall -----------------------------------------------------------------------------


def seen(seat: int, actor: int, action: str) -> str:
    if actor != seat and action.startswith("draw:"):  # others' draws show the count only
        return f"drew:{len(action[5:].split(',')) if len(action) > 5 else 0}"
    return action


#: seat, own history, information state string and tensor, observation string, terminal
Row = tuple[int, bytes, str, bytes, str, bool]


def sample_information_states(
    load: str, decks: int, variants: int, top: int, seed: int = 0
) -> list[Row]:
    """Rows (seat, own history, information state string and tensor, observation string,
    terminal) at every decision and terminal state of ``decks`` x ``variants`` playouts.

    Variants of a deck differ by one swap of two of its ``top`` cards and pick actions by the
    same per-move random index, so many of their histories differ only in a few cards: the hard
    cases (a swap within one seat's cards changes only what it held when, not what it holds).
    A seat's own history is what it observed, in order: its engine observation after every move
    (the public record of the deal and the returns at the end) and every action as it saw it.
    """
    game = pyspiel.load_game(load)
    n = game.num_players()
    rng = random.Random(seed)
    cards = sorted(a for a, _ in game.new_initial_state().chance_outcomes())
    sample = []
    for d in range(decks):
        base = cards[:]
        rng.shuffle(base)
        for v in range(variants):
            deck = base[:]
            if v:
                i, j = rng.sample(range(top), 2)
                deck[i], deck[j] = deck[j], deck[i]
            state = game.new_initial_state()
            for card in deck:
                state.apply_action(card)
            keys = [b""] * n
            move = 0
            while True:
                inner = state.inner
                for p in range(n):
                    if state.is_terminal():
                        public = inner.observation(p)
                        record = public.get("last_deal") or public.get("last_hand")
                        seen_now: Any = [state.returns(), record]
                    else:
                        seen_now = inner.observation(p)
                    text = json.dumps(seen_now, sort_keys=True)
                    keys[p] = hashlib.sha1(keys[p] + text.encode()).digest()
                    sample.append(
                        (
                            p,
                            keys[p],
                            state.information_state_string(p),
                            np.asarray(state.information_state_tensor(p), np.float32).tobytes(),
                            state.observation_string(p),
                            state.is_terminal(),
                        )
                    )
                if state.is_terminal():
                    break
                legal = state.legal_actions()
                action = legal[random.Random(f"{seed}:{d}:{move}").randrange(len(legal))]
                actor = state.current_player()
                name = state.action_to_string(actor, action)
                for p in range(n):
                    event = f"{actor}:{seen(p, actor, name)}"
                    keys[p] = hashlib.sha1(keys[p] + event.encode()).digest()
                state.apply_action(action)
                move += 1
    return sample


def collisions(sample: list[Row], field: int) -> tuple[int, int]:
    """(information states with more than one own history, own histories with more than one
    information state) of ``field`` (2: string, 3: tensor, 4: observation string)."""
    histories: dict[tuple[int, Any], set[bytes]] = {}
    states: dict[tuple[int, bytes], set[Any]] = {}
    for row in sample:
        seat, key, value = row[0], row[1], row[field]
        histories.setdefault((seat, value), set()).add(key)
        states.setdefault((seat, key), set()).add(value)
    return (
        sum(len(keys) > 1 for keys in histories.values()),
        sum(len(values) > 1 for values in states.values()),
    )


@pytest.fixture(scope="module")
def samples() -> Callable[[str], list[Row]]:
    cache: dict[str, list[Row]] = {}

    def get(load: str) -> list[Row]:
        if load not in cache:
            cache[load] = sample_information_states(load, *PERFECT_RECALL[load])
        return cache[load]

    return get


@pytest.mark.parametrize("load", list(PERFECT_RECALL))
def test_information_states_have_perfect_recall(load: str, samples: Any) -> None:
    """Over sampled playouts, a seat's information state (string and tensor) and its own
    history determine each other: never two histories with one information state (perfect
    recall), never two information states for one history (nothing hidden leaks in)."""
    sample = samples(load)
    assert len({row[1] for row in sample}) > 500
    assert collisions(sample, 2) == (0, 0), "information state strings"
    assert collisions(sample, 3) == (0, 0), "information state tensors"


@pytest.mark.parametrize(
    "load",
    ["arena_belote", "arena_badugi", "arena_badugi(players=4,never_return_own_discards=True)"],
)
def test_the_perfect_recall_sample_finds_what_the_observation_forgets(
    load: str, samples: Any
) -> None:
    """The sample is hard enough: during the deal, the observation (the engine's, without the
    history of the seat's hands) gives one string to different histories in it, which is what
    the information state used to be."""
    forgotten, leaked = collisions([row for row in samples(load) if not row[5]], 4)
    assert forgotten > 0 and leaked == 0


def deal(game: Any, deck: list[str]) -> Any:
    state = game.new_initial_state()
    for text in deck:
        state.apply_action(int(engine.card(text)))
    return state


def act(state: Any, *names: str) -> None:
    for name in names:
        player = state.current_player()
        ids = [a for a in state.legal_actions() if state.action_to_string(player, a) == name]
        assert ids, (name, [state.action_to_string(player, a) for a in state.legal_actions()])
        state.apply_action(ids[0])


def test_belote_remembers_the_hand_it_bid_on() -> None:
    """The issue's case: two deals give seat 2 the same eight cards after the bidding, but
    different five cards at the bid; its information states differ, its observations do not."""
    game = pyspiel.load_game("arena_belote")
    deck = [str(c) for c in engine.load_game("belote").deck]
    random.Random(3).shuffle(deck)
    first = deal(game, deck)
    act(first, "take")  # seat 1 (the dealer's left) takes: the hands are completed
    early, late = (set(cards) for _, cards in first.deal.received[2])
    assert len(early) == 5 and len(late) == 3
    a, b = deck.index(min(early)), deck.index(min(late))
    swapped = deck[:]
    swapped[a], swapped[b] = swapped[b], swapped[a]
    second = deal(game, swapped)
    act(second, "take")
    assert first.observation_string(2) == second.observation_string(2)
    assert first.observation_tensor(2) == second.observation_tensor(2)
    assert first.information_state_string(2) != second.information_state_string(2)
    assert first.information_state_tensor(2) != second.information_state_tensor(2)


def test_heads_up_badugi_remembers_opening_hands_and_draws() -> None:
    """The issue's case: seat 1 opens A B C D, discards A and draws E; or opens A B C E,
    discards A and draws D. Same hand and discards afterwards; different information states."""
    game = pyspiel.load_game("arena_badugi")  # button 0: seat 1 gets deck 0, 2, 4, 6
    deck = [str(c) for c in engine.load_game("badugi").deck]
    a, b, c, d, e = "Ac", "5d", "9h", "Ks", "3d"  # the first card of the stub is deck[8]
    rest = [t for t in deck if t not in (a, b, c, d, e)]
    first_deck = [a, rest[0], b, rest[1], c, rest[2], d, rest[3], e, *rest[4:]]
    second_deck = first_deck[:]
    second_deck[6], second_deck[8] = e, d
    states = [deal(game, first_deck), deal(game, second_deck)]
    for state in states:
        act(state, "call", "check", f"draw:{a}", "draw:")  # seat 1 draws first
        assert state.inner.observation(1)["hand"] == sorted([b, c, d, e], key=engine.card)
    first, second = states
    assert first.observation_string(1) == second.observation_string(1)
    assert first.information_state_string(1) != second.information_state_string(1)
    assert first.information_state_tensor(1) != second.information_state_tensor(1)
    received = [json.loads(s.information_state_string(1))["received"] for s in states]
    assert received[0][1] == [3, [e]] and received[1][1] == [3, [d]]


def test_a_public_observer_sees_no_private_card() -> None:
    game = pyspiel.load_game("arena_badugi")
    deck = [str(c) for c in engine.load_game("badugi").deck]
    random.Random(4).shuffle(deck)
    state = deal(game, deck)
    act(state, "call", "check", f"draw:{deck[0]}", "draw:")  # seat 1 discards one card
    public = make_observation(
        game,
        pyspiel.IIGObservationType(perfect_recall=True, private_info=pyspiel.PrivateInfoType.NONE),
    )
    for seat in range(2):
        text = json.loads(public.string_from(state, seat))
        assert text["received"] == [] and "hand" not in text["observation"]
        assert all(not action.startswith("draw:") for _, action in text["actions"])
        public.set_from(state, seat)
        assert not public.dict["hand"].any() and not public.dict["received"].any()


# -- game length --------------------------------------------------------------------------------


def longest_policy(state: Any) -> str:
    """Betting: check or call first in a round, then bet and raise while allowed, never fold;
    bidding: pass while passing does not end the deal; draws: stand pat; cards: the first."""
    player = state.current_player()
    names = [state.action_to_string(player, a) for a in state.legal_actions()]
    observation = state.inner.observation(player)
    if observation["game"] == "badugi":
        if observation["phase"] == "draw":
            return "draw:"
        actions = [a for _, a in observation["actions"]]
        draws = [k for k, a in enumerate(actions) if a.startswith("drew:")]
        opened = len(actions) > (draws[-1] + 1 if draws else 0)  # somebody acted this round
        for name in (["bet", "raise"] if opened else []) + ["check", "call"]:
            if name in names:
                return name
    bids = observation.get("bids", observation.get("calls"))
    if "pass" in names and len(bids) < 7:
        return "pass"
    return str(names[-1] if "pass" in names else names[0])


@pytest.mark.parametrize(
    ("load", "longest"),
    [
        ("arena_bauer", 32 + 36),
        ("arena_belote", 32 + 40),
        ("arena_badugi", 52 + 29),
        ("arena_badugi(unlimited_heads_up=True,max_bets_heads_up=6)", 52 + 37),
    ],
)
def test_the_maximum_game_length_is_reached(load: str, longest: int) -> None:
    """These games' max_game_length is their true maximum: a deal plays that long."""
    game = pyspiel.load_game(load)
    assert game.max_game_length() == longest
    deck = len(game.new_initial_state().chance_outcomes())
    state = play_out(game.new_initial_state(), random.Random(5), deck)
    while not state.is_terminal():
        name = longest_policy(state)
        act(state, name)
    assert len(state.history()) == longest


@pytest.mark.parametrize("load", LOADS)
def test_no_deal_is_longer_than_the_maximum(load: str) -> None:
    """Random playouts, and playouts that raise whenever they may, stay within the bound."""
    game = pyspiel.load_game(load)
    rng = random.Random(load)
    for k in range(6):
        deck = len(game.new_initial_state().chance_outcomes())
        state = play_out(game.new_initial_state(), rng, deck)
        while not state.is_terminal():
            player = state.current_player()
            legal = state.legal_actions()
            names = {state.action_to_string(player, a): a for a in legal}
            raises = [names[n] for n in ("raise", "half", "bet") if n in names]
            state.apply_action(raises[0] if raises and k % 2 else rng.choice(legal))
            assert len(state.history()) <= game.max_game_length()


def test_unlimited_heads_up_badugi_is_capped_at_max_bets_heads_up() -> None:
    """The engine lets heads-up players raise for ever under unlimited_heads_up; the OpenSpiel
    game stops raises at max_bets_heads_up bets a round (and refuses one applied anyway)."""
    game = pyspiel.load_game("arena_badugi(unlimited_heads_up=True,max_bets_heads_up=9)")
    state = play_out(game.new_initial_state(), random.Random(6), 52)
    capped = 0
    while not state.is_terminal():
        player = state.current_player()
        names = {state.action_to_string(player, a): a for a in state.legal_actions()}
        observation = state.inner.observation(player)
        assert observation["bet_count"] <= 9
        if observation["bet_count"] == 9 and observation["phase"] == "bet":
            assert "raise" in state.inner.legal_actions() and "raise" not in names
            with pytest.raises(ValueError, match="max_bets_heads_up"):
                state.clone().apply_action(state.setup.codec.encode(state.inner, "raise"))
            capped += 1
        pick = next(n for n in ("raise", "bet", "draw:", "call", "check") if n in names)
        state.apply_action(names[pick])
    assert capped == 4  # every round reached the cap


# -- search ---------------------------------------------------------------------------------------


def play_mcts_against_random(load: str, deals: int, simulations: int) -> tuple[float, float]:
    """MCTS for one side (team or seat), uniform random for the rest; sides swap every deal.

    Returns the total deal scores of one MCTS seat and of one random seat.
    """
    game = pyspiel.load_game(load)
    players = game.num_players()
    searched = random_total = 0.0
    for deal_index in range(deals):
        rs = np.random.RandomState(deal_index)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
        bot = mcts.MCTSBot(
            game, uct_c=2.0, max_simulations=simulations, evaluator=evaluator, random_state=rs
        )
        rng = random.Random(deal_index)
        side = deal_index % 2  # seats with this parity search
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            elif state.current_player() % 2 == side:
                state.apply_action(bot.step(state))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        returns: list[Any] = state.returns()
        searched += returns[side]
        random_total += returns[(side + 1) % players]
    return searched, random_total


@pytest.mark.parametrize(
    ("load", "deals"), [("arena_belote", 6), ("arena_badugi", 16)], ids=["belote", "badugi"]
)
def test_openspiel_mcts_beats_the_random_agent(load: str, deals: int) -> None:
    """Seeded and bounded (about a second of CPU each): the same numbers on every run."""
    searched, random_total = play_mcts_against_random(load, deals, simulations=30)
    assert searched > random_total, (searched, random_total)
