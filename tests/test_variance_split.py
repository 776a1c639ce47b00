"""The variance split (benchmarks/variance.py): chance the luck correction removes, chance it
leaves and the bots' own randomness, checked against answers known exactly."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import engine
from benchmarks.variance import (
    Split,
    bootstrap_splits,
    interval,
    pooled_shares,
    sample_margins,
    split_variance,
)
from engine import Agent, Game, State
from engine.luck import deal_luck
from tests.engine.test_luck import HIGH_CARD_DECK, SwapBelow, high_card_game


def synthetic(deals: int, replays: int, seed: int) -> list[list[tuple[float, float]]]:
    """Margin ``2 + a + e`` with a deal's chance ``a ~ N(0, 1)`` and the bots' own ``e ~
    N(0, 2²)`` drawn anew each play, luck ``a / 2``: variance 5, corrected 4.25, own 4."""
    rng = np.random.default_rng(seed)
    a = rng.normal(0, 1, size=(deals, 1))
    x = 2 + a + rng.normal(0, 2, size=(deals, replays))
    return [[(float(r), float(r - c / 2)) for r in row] for row, c in zip(x, a[:, 0], strict=True)]


def test_the_parts_of_a_synthetic_margin_are_found_with_intervals_that_hold_them() -> None:
    """Three plays per deal: a within-deal variance taken without its lost degree of freedom
    would find two thirds of the own part (0.53 of the variance, not 0.8), and fail here."""
    samples = synthetic(4000, 3, seed=1)
    split = split_variance(samples)
    truth = {"removed": 0.75 / 5, "left": 0.25 / 5, "own": 4 / 5, "corrected": 4.25 / 5}
    shares = split.shares()
    boot = [b.shares() for b in bootstrap_splits(samples, resamples=400, seed=2)]
    for key, expected in truth.items():
        assert shares[key] == pytest.approx(expected, abs=0.03), key
        low, high = interval([b[key] for b in boot])
        assert low < expected < high, key
        assert high - low < 0.1, key
    assert shares["removed"] + shares["left"] + shares["own"] == pytest.approx(1)
    assert split.mean == pytest.approx(2, abs=0.05)
    assert split.mean_corrected == pytest.approx(2, abs=0.05)


def test_pooling_weighs_every_pair_alike() -> None:
    one = Split(total=10, corrected=6, own=2, own_corrected=2, mean=1, mean_corrected=1)
    two = Split(total=1, corrected=1, own=1, own_corrected=1, mean=1, mean_corrected=1)
    pooled = pooled_shares([one, two])
    assert pooled["removed"] == pytest.approx((0.4 + 0.0) / 2)
    assert pooled["own"] == pytest.approx((0.2 + 1.0) / 2)


def test_a_design_that_is_not_balanced_is_refused() -> None:
    with pytest.raises(ValueError):
        split_variance([[(1.0, 1.0), (2.0, 2.0)], [(1.0, 1.0)]])
    with pytest.raises(ValueError):
        split_variance([[(1.0, 1.0)], [(2.0, 2.0)]])  # one play per deal: no own part


class Scripted(Agent):
    """Plays the given actions in turn."""

    def __init__(self, actions: Sequence[str]) -> None:
        self.actions = list(actions)

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        return self.actions.pop(0)


class Sloppy(Agent):
    """Swaps a card below ``rank`` (in the deck's order), except that ``coin`` of its moves are
    a coin's (its own seeded generator): it swaps with probability :func:`swap_chance`."""

    def __init__(self, rank: int, coin: Fraction, seed: int) -> None:
        self.rule = SwapBelow(rank)
        self.coin_share = coin
        self.coin = engine.RandomAgent(seed)
        self.rng = random.Random(seed + 1)

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        bot = self.coin if self.rng.random() < self.coin_share else self.rule
        return bot.act(observation, legal)


def swap_chance(rank: int, coin: Fraction, card: str) -> Fraction:
    return (1 - coin) * (HIGH_CARD_DECK.index(card) < rank) + coin / 2


def showdown(state: State, hands: Sequence[Sequence[str]]) -> list[Fraction]:
    """``V``: who would win if the cards were shown now, by the game's own order of cards
    (which is not the deck's: it puts the jack below the ten)."""
    win = Fraction(1 if engine.card(hands[0][0]) > engine.card(hands[1][0]) else -1)
    return [win, -win]


def float_showdown(state: State, hands: Sequence[Sequence[str]]) -> list[float]:
    return [float(x) for x in showdown(state, hands)]


def exact_split(game: Game, ranks: tuple[int, int], coin: Fraction) -> dict[str, Fraction]:
    """The high-card game between the two :class:`Sloppy` bots: over every deck and every
    pair of moves, weighted by their chances, the variance of the margin, of the corrected
    margin (the showdown value's luck, exact) and the mean variance within a deck, as shares."""
    # per deck, per pair of moves: (chance, raw margin, corrected margin)
    decks: list[list[tuple[Fraction, Fraction, Fraction]]] = []
    for deck in itertools.permutations(HIGH_CARD_DECK):
        decks.append([])
        for moves in itertools.product(("keep", "swap"), repeat=2):
            chance = Fraction(1)
            for seat, move in enumerate(moves):  # seat 1 decides on the card it was dealt
                swap = swap_chance(ranks[seat], coin, deck[seat])
                chance *= swap if move == "swap" else 1 - swap
            state = game.new_initial_state(0, decks=[list(deck)], first_dealer=0)
            bots = [Scripted([moves[0]]), Scripted([moves[1]])]
            while not state.is_terminal():
                seat = state.current_player()
                state.apply_action(bots[seat].act(state.observation(seat), state.legal_actions()))
            actions = [a for _, a in state.history]
            luck = deal_luck(game, deck, 0, actions, value=float_showdown)
            scores = state.deals[0].scores
            assert scores is not None
            raw = Fraction(scores[0] - scores[1])
            decks[-1].append((chance, raw, raw - (Fraction(luck[0]) - Fraction(luck[1]))))

    def variance(rows: list[list[tuple[Fraction, Fraction, Fraction]]], k: int) -> Fraction:
        """Over every deck (alike) and its moves (by their chances)."""
        n = len(rows)
        mean = sum((w * row[k] for deck in rows for w, *row in deck), Fraction(0)) / n
        square = sum((w * row[k] ** 2 for deck in rows for w, *row in deck), Fraction(0)) / n
        return square - mean**2

    total = variance(decks, 0)
    own = sum((variance([deck], 0) for deck in decks), Fraction(0)) / len(decks)
    left = variance(decks, 1) - own
    return {"own": own / total, "left": left / total, "removed": 1 - (own + left) / total}


def test_the_split_of_the_high_card_game_is_the_exact_one() -> None:
    """Played through the engine by sloppy bots reseeded each play, the estimated shares are
    within 0.03 of the exact ones (enumerated), and the intervals hold them."""
    game = high_card_game()
    ranks, coin = (1, 1), Fraction(1, 4)
    exact = exact_split(game, ranks, coin)
    assert min(exact.values()) > 0.15  # all three parts are there to be found

    def agents(deal: int, replay: int) -> list[Agent]:
        return [Sloppy(ranks[seat], coin, 1_000 * deal + 10 * replay + 2 * seat)
                for seat in range(2)]  # fmt: skip

    samples = sample_margins(game, agents, deals=3000, replays=3, value=float_showdown)
    shares = split_variance(samples).shares()
    boot = [b.shares() for b in bootstrap_splits(samples, resamples=300, seed=0)]
    for key, expected in exact.items():
        assert shares[key] == pytest.approx(float(expected), abs=0.03), key
        low, high = interval([b[key] for b in boot])
        assert low < expected < high, key


def test_luck_that_depends_on_the_moves_can_leave_less_than_the_own_variance() -> None:
    """The caveat of the bound (benchmarks/variance.py): the swap's luck is valued after the
    bot chose to swap, so it also takes out some of the bots' own randomness; exactly, here,
    the corrected variance is below the own part."""
    exact = exact_split(high_card_game(), (0, 0), Fraction(1, 4))
    assert exact["left"] < 0 < exact["own"]


def test_deterministic_bots_have_no_own_variance() -> None:
    """Bots that always play the same way in the same deal: nothing varies within a deal."""
    game = high_card_game()
    samples = sample_margins(game, lambda d, r: [SwapBelow(2), SwapBelow(3)], deals=200,
                             replays=2, value=float_showdown)  # fmt: skip
    split = split_variance(samples)
    assert split.own == 0 and split.own_corrected == 0
    assert split.total > 0 and split.corrected != split.total
