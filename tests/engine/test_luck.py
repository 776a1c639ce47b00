"""Luck (engine.luck): unbiased exactly on a game small enough to enumerate, and near zero on
average on every real game."""

from __future__ import annotations

import itertools
import json
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar, cast

import pytest

import engine
from engine import Agent, Game, State, luck
from engine.cards import TEXT_OF, Card, cards
from engine.frozen import FrozenList
from engine.games.badugi_hands import BEST
from engine.luck import (
    badugi_terms,
    badugi_value,
    chance_events,
    corrected_boards_of_replay,
    corrected_deal_scores,
    deal_luck,
    fitted_value,
    fitted_weights,
    replay_luck,
    seat_luck,
    state_luck,
)
from engine.luck_features import FEATURES, Position, seat_rows

HIGH_CARD_DECK = "9s Ts Js Qs Ks".split()


def high_card_game() -> Game:
    """Two players, one card each from a five-card deck; each in turn keeps it or swaps it for
    the top of the stub (a later chance event); the higher card wins 1 from the other. (Defined
    here: a compiled engine's ``State`` cannot be subclassed by interpreted code.)"""
    if engine.compiled():
        pytest.skip("a compiled engine's State cannot be subclassed by a test game")

    @dataclass(frozen=True, kw_only=True)
    class HighCardParams:
        pass

    class HighCardState(State):
        def __init__(self, game: Game, seed: int, decks: Any, first_dealer: int | None) -> None:
            super().__init__(game, seed, decks, first_dealer)
            deck = self.deck_for(0)
            self.hands: list[list[Card]] = [[deck[0]], [deck[1]]]
            self.stub = deck[2:]
            self.player = 0
            self.start_deal_record(self.first_dealer, deck).hands = [
                [TEXT_OF[c] for c in h] for h in self.hands
            ]

        def current_player(self) -> int:
            return self.player

        def _legal_actions(self) -> FrozenList[str]:
            return FrozenList(["keep", "swap"]) if self.player >= 0 else FrozenList([])

        def _apply(self, action: str) -> None:
            seat = self.player
            if action == "swap":
                self.hands[seat] = [self.stub.pop(0)]
                self._hand_texts[seat] = None
            self.player = seat + 1 if seat == 0 else engine.TERMINAL
            if self.player == engine.TERMINAL:
                win = 1 if self.hands[0][0] > self.hands[1][0] else -1
                self.finish_deal_record([win, -win])

        def returns(self) -> list[float]:
            scores = self.deals[0].scores or [0, 0]
            return [float(s) for s in scores]

        def observation(self, seat: int) -> dict[str, Any]:
            return {"seat": seat, "hand": list(self.hand_text(seat)), "to_act": self.player}

    class HighCardGame(Game):
        name = "high_card"
        title = "High card"
        Params = HighCardParams
        state_class = HighCardState
        min_players: ClassVar[int] = 2
        max_players: ClassVar[int] = 2

        @property
        def deck(self) -> list[Card]:
            return cards(HIGH_CARD_DECK)

    return HighCardGame()


class SwapBelow(Agent):
    """Swaps a card below ``rank`` (an index into the deck's ranks)."""

    def __init__(self, rank: int) -> None:
        self.rank = rank

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        return "swap" if HIGH_CARD_DECK.index(observation["hand"][0]) < self.rank else "keep"


def rank(hand: Sequence[str]) -> int:
    return HIGH_CARD_DECK.index(hand[0])


def showdown(state: State, hands: Sequence[Sequence[str]]) -> list[Fraction]:
    """Who would win if the cards were shown now, as fractions."""
    win = Fraction(1 if rank(hands[0]) > rank(hands[1]) else -1)
    return [win, -win]


def rank_margin(state: State, hands: Sequence[Sequence[str]]) -> list[Fraction]:
    """A value of another shape: the rank difference, scaled."""
    margin = Fraction(rank(hands[0]) - rank(hands[1]), 3)
    return [margin, -margin]


def played(game: Game, deck: Sequence[str], agents: Sequence[Agent]) -> State:
    state = game.new_initial_state(0, decks=[list(deck)], first_dealer=0)
    while not state.is_terminal():
        seat = state.current_player()
        state.apply_action(agents[seat].act(state.observation(seat), state.legal_actions()))
    return state


def luck_over_every_deck(
    players: tuple[int, int], value: Callable[[State, Sequence[Sequence[str]]], list[Fraction]]
) -> tuple[list[Fraction], list[Fraction], list[Fraction], int]:
    """Over all 120 equally likely decks: the raw and corrected score sums, seat 0's luck per
    deck and the number of chance events after the deal."""
    game = high_card_game()
    bots = [SwapBelow(players[0]), SwapBelow(players[1])]
    raw, corrected, chance_events = [Fraction(0)] * 2, [Fraction(0)] * 2, 0
    lucky = []
    for deck in itertools.permutations(HIGH_CARD_DECK):
        state = played(game, deck, bots)
        actions = [a for _, a in state.history]
        chance_events += actions.count("swap")
        exact = deal_luck(game, deck, 0, actions, value=value)  # type: ignore[arg-type]
        assert all(isinstance(x, Fraction) for x in exact)
        luck = cast(list[Fraction], exact)
        scores = state.deals[0].scores
        assert scores is not None
        raw = [r + s for r, s in zip(raw, scores, strict=True)]
        corrected = [c + s - x for c, s, x in zip(corrected, scores, luck, strict=True)]
        lucky.append(luck[0])
    return raw, corrected, lucky, chance_events


@pytest.mark.parametrize("players", [(1, 1), (2, 3), (4, 0)])
@pytest.mark.parametrize("value", [showdown, rank_margin])
def test_corrected_scores_keep_the_expectation_exactly(
    players: tuple[int, int], value: Callable[[State, Sequence[Sequence[str]]], list[Fraction]]
) -> None:
    """Over all 120 equally likely decks, the luck of each seat sums to exactly zero, so the
    corrected scores' expectation is the raw scores', whatever the value estimate."""
    raw, corrected, lucky, chance_events = luck_over_every_deck(players, value)
    assert corrected == raw
    assert chance_events > 0 or players == (4, 0)
    assert len(set(lucky)) > 2  # the luck is not trivially zero


def test_a_value_that_foresees_the_draw_is_caught() -> None:
    """The exact check can fail: a value that reads the realised stub (the card a swap would
    draw) is not blind to the chance outcome, and its luck no longer sums to zero."""

    def foresight(state: State, hands: Sequence[Sequence[str]]) -> list[Fraction]:
        top = state.stub[0] if state.stub else None  # type: ignore[attr-defined]
        ahead = Fraction(1 if top is not None and TEXT_OF[top] > hands[0][0] else 0)
        return [ahead, -ahead]

    raw, corrected, _, _ = luck_over_every_deck((2, 3), foresight)
    assert corrected != raw


GAMES = [
    ("belote", {}, 3),
    ("bauer", {"start_points": 3}, 3),
    ("barbu", {"mode": "geronimo"}, 1),
    ("badugi", {"players": 2, "hands": 20}, 2),
]


@pytest.mark.parametrize(("name", "params", "games"), GAMES)
def test_mean_luck_is_zero_within_its_interval(
    name: str, params: dict[str, Any], games: int
) -> None:
    """Random bots (seeded): over the deals of a few games, seat 0's mean luck is within four
    standard errors of zero (the luck is mean-zero by construction; a biased estimate would be
    off by far more), and the luck is not zero everywhere."""
    game = engine.load_game(name, **params)
    luck: list[float] = []
    for seed in range(games):
        agents = [engine.RandomAgent(seed * 7 + s) for s in range(game.num_players)]
        luck += [deal[0] for deal in state_luck(engine.play_game(game, agents, seed).state)]
    se = statistics.stdev(luck) / math.sqrt(len(luck))
    assert se > 0
    assert abs(statistics.mean(luck)) < 4 * se


def test_replay_and_state_agree_and_seat_luck_sums_per_entrant() -> None:
    game = engine.load_game("bauer", start_points=2)
    agents = [engine.make_agent("bauer", "heuristic", s) for s in range(4)]
    result = engine.run_match(game, None, agents, 5, duplicate=True)
    per_game = replay_luck(result.replay)
    assert per_game == [state_luck(play.state) for play in result.games]
    expected = [0.0] * 4
    for play, deals in zip(result.games, per_game, strict=True):
        for deal in deals:
            for seat, entrant in enumerate(play.seats):
                expected[entrant] += deal[seat]
    assert seat_luck(result.replay) == pytest.approx(tuple(expected))


def test_a_deal_that_did_not_finish_has_no_luck() -> None:
    """Its score is not counted anywhere, so neither is its luck."""
    state = engine.load_game("belote").new_initial_state(3)
    agent = engine.RandomAgent(0)
    while len(state.deals) < 2 or len(state.history) < state.deals[1].start + 6:
        state.apply_action(agent.act(state.observation(state.current_player()),
                                     state.legal_actions()))  # fmt: skip
    luck = state_luck(state)
    assert state.deals[-1].scores is None
    assert luck[-1] == [0.0] * 4
    assert all(len(deal) == 4 for deal in luck)


@pytest.mark.parametrize(("name", "params"), [("belote", {}), ("bauer", {})])
def test_the_fitted_value_is_the_weights_times_the_features(
    name: str, params: dict[str, Any]
) -> None:
    """At every chance event of a few deals, the fitted value (summed hand by hand, cached) is
    the stored weights of each seat's role times its row of features, whose length the weights
    match (a feature added without a new fit would be caught here, not silently dropped)."""
    game = engine.load_game(name, **params)
    features = FEATURES[name]
    agents = [engine.RandomAgent(s) for s in range(game.num_players)]
    state = engine.play_game(game, agents, 3).state
    events = 0
    for record in state.deals[:4]:
        actions = [a for _, a in state.history[record.start : record.end]]
        for event in chance_events(game, record.deck, record.dealer, actions):
            position = features.position(event.state, ())
            for hands in event.arrangements:
                assert fitted_value(event.state, hands) == pytest.approx(
                    linear_value(name, position, hands)
                )
            events += 1
    assert events >= 4


@pytest.mark.parametrize("players", [2, 6])
def test_badugis_value_is_the_weights_times_its_terms_and_sums_to_zero(players: int) -> None:
    """At every chance event of a few Badugi games of random bots (six-handed: with folds),
    in every rearrangement, the value is the stored weights of the position times each seat's
    terms, a folded seat's value is 0 and the seats' values sum to 0, as their chips do."""
    game = engine.load_game("badugi", players=players, hands=6)
    weights = fitted_weights()["badugi"]
    agents = [engine.RandomAgent(s) for s in range(players)]
    state = engine.play_game(game, agents, 4).state
    keys = set()
    for record in state.deals:
        actions = [a for _, a in state.history[record.start : record.end]][:-1]
        for event in chance_events(game, record.deck, record.dealer, actions):
            for hands in event.arrangements:
                key, rows = badugi_terms(event.state, hands, weights["strength"])
                value = badugi_value(event.state, hands)
                expected = [sum(w * x for w, x in zip(weights[key][0], row, strict=True))
                            for row in rows]  # fmt: skip
                assert value == pytest.approx(expected)
                assert sum(value) == pytest.approx(0, abs=1e-9)
                assert all(v == 0 for v, hand in zip(value, hands, strict=True) if not hand)
            keys.add(key)
    assert "33" in keys and len(keys) >= 4


def test_badugis_strength_reads_the_draws_to_come() -> None:
    """The strength table: with no draw left a hand is worth its showdown rank (rising with
    its value, a lone king sure to lose, A-2-3-4 made nearly sure to win); with draws left a
    made A-2-3-4 stands pat and stays nearly sure, and a lone king, which draws, is worth
    more than at the showdown, the more so the more draws it has."""
    strength = fitted_weights()["badugi"]["strength"]
    assert len(strength) == 4 and all(len(row) == BEST + 1 for row in strength)
    showdown = strength[0]
    assert showdown == sorted(showdown) and showdown[0] < 0.01
    assert all(row[BEST] > 0.99 for row in strength)
    assert showdown[0] < strength[1][0] < strength[2][0] < strength[3][0]


def linear_value(name: str, position: Position, hands: Sequence[Sequence[str]]) -> list[float]:
    """The stored weights of each seat's role at ``position`` times its row of features."""
    weights = fitted_weights()[name][position.key]
    assert len(weights) == len(hands)
    return [sum(w * x for w, x in zip(weights[role], row, strict=True))
            for role, row in seat_rows(FEATURES[name], position, hands)]  # fmt: skip


def test_corrected_bauer_deals_shared_by_margin_keep_the_raw_expectation() -> None:
    """A luck-corrected Bauer deal is shared by its margin (``engine.margin_scale``), not by
    its sign, which would break every tied deal by the luck alone. Heuristic partners against
    random ones (seeded): the corrected share's mean is the raw share's within four standard
    errors of their paired difference (the luck has expectation zero and the share is nearly
    linear where the corrected margins lie), it varies less than the corrected margin's sign,
    a deal without luck keeps its raw share, and a board of a duplicate set, where the deal's
    luck cancels, keeps its raw margin: so Bauer's ladder rates every deal of a set as its own
    corrected board (``Game.corrected_boards_each_deal``)."""
    game = engine.load_game("bauer")
    scale = engine.margin_scale("bauer", corrected=True)
    raw: list[float] = []
    corrected: list[float] = []
    signs: list[float] = []
    for seed in range(8):
        agents = [engine.make_agent("bauer", "heuristic" if s % 2 == 0 else "random", seed + s)
                  for s in range(4)]  # fmt: skip
        state = engine.play_game(game, agents, seed).state
        deals = [record.scores for record in state.deals]
        for r, c in zip(deals, corrected_deal_scores(deals, state_luck(state)), strict=True):
            if r is None or c is None:
                continue
            raw.append(engine.margin_share(r[0] - r[1], scale))
            corrected.append(engine.margin_share(c[0] - c[1], scale))
            signs.append(engine.margin_share(c[0] - c[1], None))
        no_luck = corrected_deal_scores(deals, [[0.0] * 4 for _ in deals])
        assert no_luck == deals
    difference = [c - r for c, r in zip(corrected, raw, strict=True)]
    se = statistics.stdev(difference) / math.sqrt(len(difference))
    assert len(raw) > 100 and statistics.mean(raw) > 0.55  # the heuristic side is ahead
    assert 0 < se and abs(statistics.mean(difference)) < 4 * se
    assert statistics.variance(corrected) < statistics.variance(signs)
    result = engine.run_match(game, None, agents, 3, duplicate=True)
    boards = engine.boards_of_result(result)
    assert boards is not None and any(b[0] == b[1] for b in boards)
    replay = result.replay
    lucks = replay_luck(replay)
    per_game = [corrected_deal_scores([d["scores"] for d in played["deals"]], luck)
                for played, luck in zip(replay["games"], lucks, strict=True)]  # fmt: skip
    paired = engine.boards_of_replay(replay, per_game)
    assert paired is not None  # each side gains the luck of all the deal's seats: the same
    assert [c[0] - c[1] for c in paired] == [b[0] - b[1] for b in boards]
    each = corrected_boards_of_replay(replay)
    assert each == engine.boards_of_replay(replay, per_game, each_deal=True)
    assert each is not None and len(each) > len(boards)


@pytest.mark.parametrize("mode", ["geronimo", "base"])
def test_barbus_value_weighs_the_heuristics_pick_against_the_mean_of_the_options(
    mode: str,
) -> None:
    """Barbu's declarer picks his contract after the deal: at each deal of a game, the value
    is the fitted value after the heuristic's pick mixed with the mean over the declarations
    the declarer has left (in Geronimo fewer each time, the last one forced) in the stored
    proportions, which move with how often he picked as the heuristic does before."""
    game = engine.load_game("barbu", mode=mode)
    features = FEATURES["barbu"]
    assert features.choice is not None and features.declared is not None
    agents = [engine.make_agent("barbu", "heuristic", s) for s in range(4)]
    state = engine.play_game(game, agents, 5).state
    earlier: list[dict[str, Any]] = []
    for record in state.deals:
        actions = [a for _, a in state.history[record.start : record.end]]
        (event,) = chance_events(game, record.deck, record.dealer, actions)
        position = features.position(event.state, earlier)
        agreed, chosen = position.agreed
        assert agreed == chosen  # the heuristic picks as the heuristic does
        assert actions[0] in position.options
        left = {a.split(":")[1] for a in position.options}
        assert len(left) == (7 - sum(e["dealer"] == record.dealer for e in earlier)
                             if mode == "geronimo" else 7)  # fmt: skip
        for hands in event.arrangements:
            pick = features.declared(position, [features.choice(position, hands[record.dealer])])
            picked = linear_value("barbu", pick, hands)
            mean = [0.0] * 4
            for contract in left:
                group = [a for a in position.options if a.split(":")[1] == contract]
                value = linear_value("barbu", features.declared(position, group), hands)
                share = len(group) / len(position.options)
                mean = [m + v * share for m, v in zip(mean, value, strict=True)]
            rate = (agreed + 1) / (chosen + 2)
            shares = [a + b * rate for a, b in fitted_weights()["barbu"]["choice"]]
            expected = [mean[s] + shares[(s - record.dealer) % 4] * (picked[s] - mean[s])
                        for s in range(4)]  # fmt: skip
            assert fitted_value(event.state, hands, earlier) == pytest.approx(expected)
        earlier.append(record.to_dict())
    assert len(earlier) == (28 if mode == "geronimo" else 4)


def test_barbus_value_of_a_seat_reads_its_own_hand_only() -> None:
    """Barbu's fitted value of a seat under a declared contract is its role's weights times its
    own hand's features: swapping the other seats' hands leaves it, swapping its own moves it
    (the weights hold one block of features per role, not four)."""
    game = engine.load_game("barbu", mode="geronimo")
    features = FEATURES["barbu"]
    assert features.declared is not None and features.own_hand_only
    state = engine.play_game(game, [engine.RandomAgent(s) for s in range(4)], 7).state
    record = state.deals[0]
    actions = [a for _, a in state.history[record.start : record.end]]
    (event,) = chance_events(game, record.deck, record.dealer, actions)
    hands = event.arrangements[0]
    position = features.position(event.state, ())
    for group in ([a for a in position.options if ":trumps:" in a], ["contract:no_hearts"]):
        declared = features.declared(position, group)
        weights = fitted_weights()["barbu"][declared.key]
        assert len(weights[0]) == 1 + len(features.hand(declared, hands[0]))
        value = linear_value("barbu", declared, hands)
        others_swapped = linear_value("barbu", declared, [hands[0], hands[2], hands[1], hands[3]])
        assert others_swapped[0] == pytest.approx(value[0])
        assert others_swapped[3] == pytest.approx(value[3])
        assert others_swapped[1] != pytest.approx(value[1])


@pytest.mark.parametrize("name", ["belote", "barbu"])
def test_weights_fitted_on_other_features_are_refused(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A weights file fitted before a feature was added (every row one weight short) is refused
    when a hand is valued, in the games whose seats read every hand (Belote) and their own only
    (Barbu), never multiplied short."""
    game = engine.load_game(name, **({"mode": "geronimo"} if name == "barbu" else {}))
    result = engine.run_match(game, None, [engine.RandomAgent(s) for s in range(4)], 3)
    document = json.loads(luck.WEIGHTS_FILE.read_text())
    for rows in document["weights"][name].values():
        for row in rows:
            row.pop()
    stale = tmp_path / "luck_weights.json"
    stale.write_text(json.dumps(document))
    caches = (fitted_weights, luck._weight_blocks, luck._hand_terms, luck._hand_features)
    for cached in caches:
        cached.cache_clear()
    monkeypatch.setattr(luck, "WEIGHTS_FILE", stale)
    try:
        with pytest.raises(ValueError, match=f"fitted on other {name} features"):
            replay_luck(result.replay)
    finally:
        monkeypatch.undo()
        for cached in caches:
            cached.cache_clear()


@pytest.mark.parametrize("duplicate", [False, True])
def test_a_badugi_match_has_one_corrected_board_its_totals_minus_their_luck(
    duplicate: bool,
) -> None:
    """Badugi is ranked by the match's chip total, plain or duplicate: its corrected boards are
    one board, every entrant's total with its luck taken out."""
    agents = [engine.make_agent("badugi", "random", seed=s) for s in range(2)]
    result = engine.run_match("badugi", {"hands": 8}, agents, 5, duplicate=duplicate)
    replay = result.replay
    seats = luck.seat_luck(replay)
    assert any(seats) and engine.boards_of_replay(replay) is None
    expected = [[s - x for s, x in zip(result.scores, seats, strict=True)]]
    assert luck.corrected_boards_of_replay(replay) == expected
