"""Bradley–Terry / Plackett–Luce strengths: fits checked by hand, ties, the prior, bootstrap
determinism, and the ladder selectors on recorded matches."""

from __future__ import annotations

import itertools
import math
from typing import TypeVar

import numpy as np
import pytest

import engine
from bots.models import Bot, BotVersion
from ratings import strength
from ratings.selectors import ladder_strengths, match_rankings
from ratings.strength import (
    ELO_PER_NATURAL,
    StrengthError,
    Weighted,
    choices_from_matches,
    choices_from_rankings,
    fit,
    fit_matches,
    rank,
)
from tests.platform.factories import active_bot, finished_match

T = TypeVar("T")

A_WINS_TWO_OF_THREE = [[("a", 1), ("b", 2)], [("a", 1), ("b", 2)], [("a", 2), ("b", 1)]]
# A wins two tables, B and C one each and never differ otherwise: w_A = 1 + √5 when w_B = w_C
# = 1 (d/da log[a⁴ / ((a+2)⁴ (a+1)²)] = 0  ⇔  a² − 2a − 4 = 0)
THREE_TABLES = [
    [("A", 1), ("B", 2), ("C", 3)],
    [("A", 1), ("C", 2), ("B", 3)],
    [("B", 1), ("A", 2), ("C", 3)],
    [("C", 1), ("A", 2), ("B", 3)],
]


def single(rankings: list[list[tuple[T, int]]]) -> list[list[list[tuple[T, int]]]]:
    """Matches of one finishing order each."""
    return [[r] for r in rankings]


def difference(rankings: list[list[tuple[str, int]]], a: int, b: int, alpha: float = 0.0) -> float:
    result = fit(choices_from_rankings(rankings), alpha=alpha)
    return float(result.theta[a] - result.theta[b])


# -- the fits, by hand ---------------------------------------------------------------------------


def test_bradley_terry_two_wins_in_three_give_odds_of_two() -> None:
    assert difference(A_WINS_TWO_OF_THREE, 0, 1) == pytest.approx(math.log(2.0), abs=1e-9)


def test_a_heads_up_tie_is_half_a_win_each() -> None:
    # a win and a tie: 1.5 wins against 0.5, odds of 3
    rankings = [[("a", 1), ("b", 2)], [("a", 1), ("b", 1)]]
    assert difference(rankings, 0, 1) == pytest.approx(math.log(3.0), abs=1e-9)


def test_plackett_luce_on_three_seat_tables_matches_the_closed_form() -> None:
    result = fit(choices_from_rankings(THREE_TABLES), alpha=0.0)
    assert math.exp(result.theta[0] - result.theta[1]) == pytest.approx(1 + math.sqrt(5), 1e-9)
    assert result.theta[1] == pytest.approx(result.theta[2], abs=1e-9)
    assert result.theta.sum() == pytest.approx(0.0, abs=1e-12)


def test_a_tie_on_a_table_counts_as_half_of_each_order() -> None:
    tied = [[("A", 1), ("B", 2), ("C", 2)], [("C", 1), ("B", 2), ("A", 3)]]
    split = [
        [("A", 1), ("B", 2), ("C", 3)], [("A", 1), ("C", 2), ("B", 3)],
        [("C", 1), ("B", 2), ("A", 3)], [("C", 1), ("B", 2), ("A", 3)],
    ]  # fmt: skip
    halves = choices_from_rankings(tied)
    doubled = choices_from_rankings(split)
    assert fit(halves, alpha=0.0).theta == pytest.approx(fit(doubled, alpha=0.0).theta, abs=1e-9)


def test_a_three_way_tie_weights_every_choice_by_its_share_of_the_orders() -> None:
    choices = choices_from_rankings([[("A", 1), ("B", 1), ("C", 1)]])
    weights = choices.weights.toarray()[0]
    by_size: dict[int, list[float]] = {}
    for u, w in enumerate(weights):
        by_size.setdefault(int(choices.mask[u].sum()), []).append(float(w))
    # first choice: each of 3 with weight 1/3; second: each (first, x) pair 1/6
    assert sorted(by_size[3]) == pytest.approx([1 / 3] * 3)
    assert sorted(by_size[2]) == pytest.approx([1 / 6] * 6)


def test_an_unbeaten_bot_is_finite_under_the_prior_and_the_prior_shrinks_it() -> None:
    rankings = [[("a", 1), ("b", 2)]] * 3
    weak = difference(rankings, 0, 1, alpha=0.01)
    strong = difference(rankings, 0, 1, alpha=1.0)
    assert math.isfinite(weak) and weak > strong > 0
    # the penalised optimum: 3·σ(−Δ) = α·Δ/2 with Δ = θa − θb and θa = −θb = Δ/2
    assert 3 / (1 + math.exp(strong)) == pytest.approx(1.0 * strong / 2, abs=1e-9)


def test_fit_matches_is_none_without_matches() -> None:
    assert fit_matches([]) is None


# -- duplicate sets scored by boards -------------------------------------------------------------


def test_a_match_of_boards_counts_every_board_in_the_fit() -> None:
    # one duplicate set whose three boards a won twice: the fit of three single matches
    boards = choices_from_matches([A_WINS_TWO_OF_THREE])
    assert boards.matches == 1
    theta = fit(boards, alpha=0.0).theta
    assert float(theta[0] - theta[1]) == pytest.approx(math.log(2.0), abs=1e-7)
    assert boards.weights.sum() == pytest.approx(3.0)


def test_a_board_shared_by_its_margin_counts_its_share_for_each_side() -> None:
    # one board shared ¾–¼: the odds of three, as three wins in four boards would give
    shared = [Weighted([("a", 1), ("b", 2)], 0.75), Weighted([("b", 1), ("a", 2)], 0.25)]
    choices = choices_from_matches([shared])
    assert choices.matches == 1 and choices.weights.sum() == pytest.approx(1.0)
    theta = fit(choices, alpha=0.0).theta
    assert float(theta[0] - theta[1]) == pytest.approx(math.log(3.0), abs=1e-7)


def shared_board(share: float) -> list[Weighted[str]]:
    return [Weighted([("a", 1), ("b", 2)], share), Weighted([("b", 1), ("a", 2)], 1 - share)]


def test_boards_shared_by_margin_inform_by_their_spread_not_a_coins() -> None:
    # 60 matches: b takes 0.6 to 0.8 of each board, or wins 70 % of them outright; same estimate
    shares = [0.6, 0.7, 0.8] * 20
    soft = fit(choices_from_matches([shared_board(x) for x in shares]), alpha=0.0)
    hard = fit(choices_from_rankings(
        [[("a", 1), ("b", 2)]] * 42 + [[("b", 1), ("a", 2)]] * 18), alpha=0.0)  # fmt: skip
    assert float(soft.theta[0] - soft.theta[1]) == pytest.approx(math.log(0.7 / 0.3), abs=1e-6)
    assert float(hard.theta[0] - hard.theta[1]) == pytest.approx(math.log(0.7 / 0.3), abs=1e-6)
    # the shares' variance is a small part of a coin's: the difference is known far better
    assert soft.difference_sd(0, 1) < 0.5 * hard.difference_sd(0, 1)


def test_a_few_shared_boards_are_trusted_only_as_far_as_their_spread_is_known() -> None:
    # three boards taking 0.6, 0.7, 0.8: p = 0.7, residuals ±0.1 and 0, a coin's variance 0.21
    soft = fit(choices_from_matches([shared_board(x) for x in (0.6, 0.7, 0.8)]), alpha=0.0)
    observed = 0.02 / (3 * 0.21)  # Pearson dispersion
    upper = observed * 3 / 0.35185  # its 95 % upper bound: χ²(3 d.f.) 5 % quantile 0.35185
    assert soft.difference_sd(0, 1) == pytest.approx(math.sqrt(upper / (3 * 0.21)), rel=1e-3)
    # boards given whole (shares of 1 and 0) vary like a coin: the full variance stays
    whole = fit(choices_from_matches([shared_board(x) for x in (1.0, 1.0, 0.0)]), alpha=0.0)
    coin = fit(choices_from_rankings([[("a", 1), ("b", 2)]] * 2 + [[("b", 1), ("a", 2)]]),
               alpha=0.0)  # fmt: skip
    assert whole.difference_sd(0, 1) == pytest.approx(coin.difference_sd(0, 1), rel=1e-9)


A_WINS, B_WINS, LEVEL = [("a", 1), ("b", 2)], [("a", 2), ("b", 1)], [("a", 1), ("b", 1)]


def test_tied_boards_between_two_sides_inform_by_their_spread_not_a_coins() -> None:
    # 60 sets of four boards, a taking 3, 2½ and 3½ of them in turn with level boards between
    sets = [[A_WINS] * 2 + [LEVEL] * 2, [A_WINS] + [LEVEL] * 3, [A_WINS] * 3 + [LEVEL]] * 20
    measured = fit(choices_from_matches(sets), alpha=0.0)
    assert float(measured.theta[0] - measured.theta[1]) == pytest.approx(math.log(3.0), abs=1e-6)
    # p = ¾: residuals per set 0, −½, +½; a coin's variance 4 · 3/16 per set (45 in all)
    observed = 20 * 0.5 / 45
    upper = observed * 60 / 43.187958  # its 95 % upper bound: χ²(60 d.f.) 5 % quantile
    assert measured.difference_sd(0, 1) == pytest.approx(math.sqrt(upper / 45), rel=1e-4)
    # the same boards as 240 single results keep a coin's variance, ties or not
    single_boards = fit(choices_from_rankings([board for s in sets for board in s]), alpha=0.0)
    assert single_boards.difference_sd(0, 1) == pytest.approx(math.sqrt(1 / 45), rel=1e-4)


def test_a_match_is_measured_by_what_it_is_not_by_how_it_ended() -> None:
    # sets of boards between two sides are measured even without a tie; a single result is
    # not, even a tie, and neither are the boards of a table
    table = [[("a", 1), ("b", 2), ("c", 3)], [("a", 2), ("b", 1), ("c", 1)]]
    choices = choices_from_matches([[A_WINS, B_WINS], [LEVEL], [A_WINS], table])
    assert choices.measured.tolist() == [True, False, False, False]


def test_the_bootstrap_resamples_whole_sets_not_boards() -> None:
    # ten sets of ten boards each give intervals wider than a hundred independent boards
    sets = [[[("a", 1), ("b", 2)]] * 7 + [[("a", 2), ("b", 1)]] * 3 for _ in range(9)]
    sets.append([[("a", 2), ("b", 1)]] * 10)  # one set the bootstrap can leave out, or double
    boards = [board for s in sets for board in s]
    as_sets = rank(sets, seed=4, resamples=200)
    as_boards = rank(single(boards), seed=4, resamples=200)
    assert as_sets.strengths[0].strength == pytest.approx(as_boards.strengths[0].strength)
    width = [r.strengths[0].high - r.strengths[0].low for r in (as_sets, as_boards)]
    assert width[0] > width[1]
    assert as_sets.strengths[0].matches == 10 and as_boards.strengths[0].matches == 100


def test_a_match_without_an_order_is_refused() -> None:
    with pytest.raises(StrengthError, match="no finishing order"):
        choices_from_matches([[]])


@pytest.mark.parametrize(
    ("rankings", "message"),
    [
        ([[("a", 1)]], "fewer than two"),
        ([[("a", 1), ("a", 2)]], "twice"),
    ],
)
def test_malformed_matches_are_refused(rankings: list[list[tuple[str, int]]], message: str) -> None:
    with pytest.raises(StrengthError, match=message):
        choices_from_rankings(rankings)


def test_entrants_outside_the_given_list_are_refused() -> None:
    with pytest.raises(StrengthError, match="not among the entrants"):
        choices_from_rankings([[("a", 1), ("z", 2)]], entrants=["a", "b"])


def test_the_laplace_covariance_matches_the_binomial_variance() -> None:
    # n games at p = 2/3: Var(Δ̂) = 1 / (n p (1 − p))
    result = fit(choices_from_rankings(A_WINS_TWO_OF_THREE * 10), alpha=0.0)
    assert result.difference_sd(0, 1) ** 2 == pytest.approx(1 / (30 * 2 / 9), rel=1e-6)


# -- bootstrap intervals -----------------------------------------------------------------------


def noisy_ladder(seed: int) -> list[list[tuple[int, int]]]:
    rng = np.random.default_rng(seed)
    rankings = []
    for _ in range(300):
        a, b = (int(x) for x in rng.choice(4, 2, replace=False))
        a_wins = rng.random() < 1 / (1 + math.exp(b - a))  # bot 3 strongest
        rankings.append([(a, 1 if a_wins else 2), (b, 2 if a_wins else 1)])
    return rankings


def test_the_bootstrap_is_deterministic_for_a_seed_and_varies_with_it() -> None:
    rankings = noisy_ladder(1)
    first, again = (
        rank(single(rankings), seed=7, resamples=50),
        rank(single(rankings), seed=7, resamples=50),
    )
    other = rank(single(rankings), seed=8, resamples=50)
    assert first == again
    assert [s.low for s in first.strengths] != [s.low for s in other.strengths]
    assert [s.strength for s in first.strengths] == [s.strength for s in other.strengths]


def test_intervals_contain_the_estimate_and_order_the_clear_cases() -> None:
    ranking = rank(single(noisy_ladder(2)), seed=1, resamples=100)
    assert [s.entrant for s in ranking.strengths] == [3, 2, 1, 0]
    for s in ranking.strengths:
        assert s.low <= s.strength <= s.high
        assert s.matches > 100
    assert sum(s.strength for s in ranking.strengths) / 4 == pytest.approx(1500.0)
    # one natural-log unit apart: about 174 Elo points between neighbours
    gaps = [a.strength - b.strength for a, b in itertools.pairwise(ranking.strengths)]
    assert all(0.4 * ELO_PER_NATURAL < g < 1.8 * ELO_PER_NATURAL for g in gaps)
    assert all(c > 0.9 for c in ranking.order_confidence)


@pytest.mark.parametrize(("wins", "verdict"), [(2, False), (4, False), (8, True), (20, True)])
def test_a_one_sided_record_needs_enough_matches_for_a_verdict(wins: int, verdict: bool) -> None:
    # every bootstrap resample of k wins in k matches is k wins: the normal bound decides
    ranking = rank(single([[("a", 1), ("b", 2)]] * wins), seed=1, resamples=50)
    assert ranking.confident_order() is verdict
    assert 0.5 < ranking.order_confidence[0] < 1.0


def test_single_strength_variances_leave_out_the_common_shift() -> None:
    result = fit(choices_from_rankings(THREE_TABLES * 5))
    assert result.covariance.sum(axis=1) == pytest.approx(np.zeros(3), abs=1e-12)
    assert result.covariance[1, 1] == pytest.approx(result.covariance[2, 2])


def test_equal_bots_are_statistically_tied() -> None:
    rankings = [[("a", 1), ("b", 2)], [("a", 2), ("b", 1)]] * 20
    ranking = rank(single(rankings), seed=3, resamples=100)
    assert ranking.tied_with_next(0)
    assert 0.2 < ranking.order_confidence[0] < 0.8
    assert not ranking.confident_order()


# -- the selectors on recorded matches ----------------------------------------------------------


def current(bot: Bot) -> BotVersion:
    assert bot.current_version is not None
    return bot.current_version


@pytest.mark.django_db
def test_ladder_strengths_ranks_recorded_matches_with_intervals() -> None:
    strong, middle, weak = (active_bot("badugi") for _ in range(3))
    order = [strong, middle, weak]
    for round_ in range(12):
        for i, j in ((0, 1), (1, 2), (0, 2)):
            upset = round_ % 4 == 0 and j - i == 1  # the odd upset between neighbours
            winner, loser = (order[j], order[i]) if upset else (order[i], order[j])
            finished_match("badugi", [current(winner), current(loser)], [1, 2])
    rows = ladder_strengths(game="badugi", resamples=60, seed=5)
    assert [r.bot_id for r in rows] == [strong.pk, middle.pk, weak.pk]
    assert [r.rank for r in rows] == [1, 2, 3]
    assert rows[0].owner == strong.owner.username and rows[0].bot == strong.name
    assert all(r.matches == 24 for r in rows)
    assert all(r.low <= r.strength <= r.high for r in rows)
    assert rows[-1].above_next is None and not rows[-1].tied_with_next
    assert rows[0].above_next is not None and rows[0].above_next > 0.5
    assert ladder_strengths(game="badugi", resamples=60, seed=5) == rows


@pytest.mark.django_db
def test_match_rankings_merge_team_seats_and_rank_faulted_bots_last() -> None:
    a, b = active_bot("belote"), active_bot("belote")
    finished_match("belote", [current(a), current(b)], [1, 2], minutes_ago=5)
    finished_match("belote", [current(a), current(b)], [1, 2], faults=["timeout", ""])
    first, second = match_rankings(game="belote")
    assert first == [[(a.pk, 1), (b.pk, 2)]]  # one entry per team, oldest match first
    assert dict(second[0])[a.pk] > dict(second[0])[b.pk]  # the faulted team ranks last
    assert ladder_strengths(game="bauer") == []


@pytest.mark.django_db
def test_match_rankings_give_a_duplicate_match_one_order_per_board() -> None:
    """Where the ratings share no board by its margin (Barbu): one finishing order per board."""
    a, b, c, d = bots = [active_bot("barbu") for _ in range(4)]
    versions = [current(bot) for bot in bots]
    finished_match("barbu", versions, [1, 2, 3, 4], boards=[[3, 2, 1, 0], [0, 1, 1, 3]],
                   minutes_ago=5)  # fmt: skip
    finished_match("barbu", versions, [1, 2, 3, 4], faults=["", "", "", "timeout"],
                   boards=[[0, 0, 0, 9], [0, 0, 0, 9]])  # fmt: skip
    plain = finished_match("barbu", versions, [2, 1, 3, 4], minutes_ago=1)
    with_boards, one, faulted = match_rankings(game="barbu")  # oldest first
    # on the second board b and c tie: both take the better place
    assert with_boards == [[(a.pk, 1), (b.pk, 2), (c.pk, 3), (d.pk, 4)],
                           [(a.pk, 4), (b.pk, 2), (c.pk, 2), (d.pk, 1)]]  # fmt: skip
    # d scored most but faulted: it placed below everyone on every board
    assert all(dict(board)[d.pk] > max(p for bot, p in board if bot != d.pk) for board in faulted)
    assert one == [[(a.pk, 2), (b.pk, 1), (c.pk, 3), (d.pk, 4)]] and plain.boards is None


@pytest.mark.django_db
def test_match_rankings_share_a_belote_board_by_its_margin() -> None:
    a, b = active_bot("belote"), active_bot("belote")
    finished_match("belote", [current(a), current(b)], [1, 2], boards=[[120, 42], [81, 81]])
    [orders] = match_rankings(game="belote")
    won = engine.margin_share(78, 81)
    assert orders == [
        Weighted([(a.pk, 1), (b.pk, 2)], won), Weighted([(b.pk, 1), (a.pk, 2)], 1 - won),
        Weighted([(a.pk, 1), (b.pk, 2)], 0.5), Weighted([(b.pk, 1), (a.pk, 2)], 0.5),
    ]  # fmt: skip
    assert 0.7 < won < 0.75  # 78 points: nearly three quarters of the board


@pytest.mark.parametrize("seats", [2, 4])
def test_bootstrap_rows_reach_the_optimum_each_newton_fit_finds(seats: int) -> None:
    # fit_many solves a batch of resamples at once by truncated Newton from the full fit,
    # preconditioned with its Hessian (issue 35); the optimum is unique, so the point fit of
    # each resample itself (its matches repeated as often as drawn: Newton's method) agrees,
    # and the gradient of the penalised likelihood, written out choice by choice, vanishes (to
    # the resamples' tolerance: a last step of 1e-5 leaves ~1e-6; stopping at 1e-3 fails)
    rng = np.random.default_rng(seats)
    skill = rng.normal(size=30)
    matches = []
    for _ in range(400):
        table = rng.choice(30, size=seats, replace=False)
        boards = []
        for _board in range(int(rng.integers(1, 4))):  # one to three boards
            noisy = np.round(skill[table] + rng.gumbel(size=seats))  # rounded: some ties
            ranks = 1 + (noisy[None, :] > noisy[:, None]).sum(axis=1)
            boards.append([(int(b), int(r)) for b, r in zip(table, ranks, strict=True)])
        matches.append(boards)
    choices = choices_from_matches(matches)
    counts = rng.multinomial(choices.matches, np.full(choices.matches, 1.0 / choices.matches),
                             size=12).astype(np.float64)  # fmt: skip
    fast = strength.fit_many(choices, counts, alpha=0.1)
    for row, drawn in zip(fast, counts, strict=True):
        resample = [m for m, k in zip(matches, drawn, strict=True) for _ in range(int(k))]
        exact = fit(choices_from_matches(resample, choices.entrants), alpha=0.1).theta
        assert np.abs(row - exact).max() < 1e-6
        assert np.abs(penalised_gradient(choices, drawn, row, alpha=0.1)).max() < 1e-5


def penalised_gradient(
    choices: strength.Choices[int], counts: np.ndarray, theta: np.ndarray, *, alpha: float
) -> np.ndarray:
    """The gradient of ``−log-likelihood + α/2 ‖θ‖²`` of the matches counted ``counts`` times,
    choice by choice: each choice adds its weight times the softmax over its alternatives and
    takes its weight from the entrant it chose."""
    weights = choices.weights.T @ counts
    logits = np.where(choices.mask, theta[choices.alternatives], -np.inf)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    gradient = alpha * theta
    np.add.at(gradient, choices.alternatives, weights[:, None] * p)
    np.add.at(gradient, choices.chosen, -weights)
    return gradient
