"""Strengths from finishing orders: maximum-likelihood Plackett–Luce with bootstrap intervals.

Pure functions over numpy (no database), so the ladder pages, the scheduler and the ranking
benchmark run the same fit.

**Model.** Each entrant ``i`` has a strength ``θ_i`` (natural log scale). A match's finishing
order is read as a sequence of choices, best first: the winner is chosen from all entrants with
probability ``exp θ_w / Σ exp θ_j``, the second from the rest, and so on (Plackett–Luce). With
two entrants this is exactly Bradley–Terry, ``P(a beats b) = 1 / (1 + exp(θ_b − θ_a))``, so one
fit serves heads-up games (Belote and Bauer teams, heads-up Badugi) and tables (Barbu, Badugi
with 3–6 players). Strengths are reported on the Elo scale, ``400 / ln 10 · θ`` around 1500 for
the average entrant: 400 points apart means odds of 10 to 1.

**Boards.** A match contributes its finishing orders: one for a match scored as one result,
one per board for a duplicate set (``engine.boards``: the same deal compared across the set's
seat rotations), each order weighing 1, or, for a board shared by its margin, two orders (each
side first) weighing its shares (:class:`Weighted`: Bradley–Terry with fractional outcomes).
The bootstrap below still draws whole matches, so the boards of one set, which share bots and
decks, are never treated as independent.

**Ties.** Entrants on equal places are averaged over every order they could have finished in:
a tie for second between ``b`` and ``c`` counts as half a match ``b > c`` and half a match
``c > b`` (for ``d`` tied entrants, each of the ``d!`` orders with weight ``1/d!``). Heads-up,
a tie is therefore half a win for each side, as in Elo and the standings' points.

**Estimation.** The log-likelihood is concave; Newton's method with step halving maximises it.
Maximum likelihood alone has no finite answer when some entrant never lost (or never won), so
a Gaussian prior ``θ ~ N(0, 1/α)`` is added (``α = 0.1`` by default: a standard deviation of
3.2 natural-log units, about 550 Elo points); it matters while a bot has few or one-sided
results and fades as they accumulate. ``alpha=0`` is the plain maximum-likelihood estimate.

**Intervals.** A percentile bootstrap over matches: ``resamples`` data sets of the same number of
matches drawn with replacement from a ``numpy.random.Generator`` seeded with ``seed``, each
refitted; the 2.5 and 97.5 percentiles of each entrant's centred strength are its 95 %
interval. The same results and seed always give the same intervals. The share of resamples in
which one entrant is stronger than another estimates how sure their order is.

The bootstrap cannot see what did not happen: after two wins in two matches every resample
holds two wins, so it would call the order certain. Each interval is therefore never narrower
than the normal approximation of the penalised fit (``θ ± 1.96·SE``, SE from the inverse
information matrix, where the prior keeps a one-sided record uncertain), and each order
confidence is the smaller of the bootstrap share and the normal one. With a few dozen matches
per bot the two agree and the bootstrap decides. The information matrix treats each result as a
coin; boards vary less than a coin where they can be shared by a margin or tied, and their part
of it is divided by their measured dispersion (``_dispersion``), else the floor would hide what
the boards tell.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, NamedTuple, TypeVar

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from scipy.stats import chi2

Entrant = TypeVar("Entrant", bound=Hashable)
FloatArray = NDArray[np.float64]
Pair = tuple[FloatArray, FloatArray]
IntArray = NDArray[np.int64]

ELO_PER_NATURAL = 400.0 / math.log(10.0)
CENTRE = 1500.0
DEFAULT_ALPHA = 0.1
DEFAULT_RESAMPLES = 200
#: the least share of a coin's variance measured boards are assumed to show (see _dispersion)
MIN_DISPERSION = 0.01
Z95 = 1.959963984540054
MAX_TIED = 8  # 2**(d-1)·d choices for d tied entrants: a table is at most 6 seats
_MAX_ITERATIONS = 100
_TOLERANCE = 1e-9
_CHUNK_CELLS = 4_000_000  # floats per batched array: bounds memory for large ladders


class StrengthError(ValueError):
    """The results cannot be fitted as given (a malformed match)."""


@dataclass(frozen=True)
class Choices(Generic[Entrant]):
    """Matches turned into weighted choices, identical choices merged.

    Choice ``u`` picks entrant ``chosen[u]`` out of ``alternatives[u, :size[u]]`` (indices into
    ``entrants``; padding repeats the chosen index and is masked out). ``weights[m, u]`` is how
    much of choice ``u`` match ``m`` holds (ties give fractions). ``measured[m]``: match ``m``'s
    variance is measured, not taken for a coin's (see :func:`_dispersion`): it holds boards
    shared by their margin (:class:`Weighted` orders) or several boards between two sides."""

    entrants: tuple[Entrant, ...]
    chosen: IntArray
    alternatives: IntArray
    mask: NDArray[np.bool_]
    weights: sparse.csr_matrix  # matches × choices (a match holds few choices)
    measured: NDArray[np.bool_]

    @property
    def matches(self) -> int:
        return int(self.weights.shape[0])


Ranked = Sequence[tuple[Entrant, int]]  # one finishing order: (entrant, place) pairs


class Weighted(NamedTuple, Generic[Entrant]):
    """A finishing order that counts ``weight`` of one result: a board shared by its margin is
    two of them, each side first with its share (``matches.results.board_orders``)."""

    order: Ranked[Entrant]
    weight: float


def choices_from_rankings(
    rankings: Sequence[Ranked[Entrant]], entrants: Sequence[Entrant] | None = None
) -> Choices[Entrant]:
    """:func:`choices_from_matches` of matches with one finishing order each."""
    return choices_from_matches([[ranking] for ranking in rankings], entrants)


def choices_from_matches(
    matches: Sequence[Sequence[Ranked[Entrant] | Weighted[Entrant]]],
    entrants: Sequence[Entrant] | None = None,
) -> Choices[Entrant]:
    """Build the choices of ``matches``: each a list of finishing orders, one for a match scored
    as one result, one per board for a duplicate set scored board by board (``engine.boards``),
    each order weighing 1 unless it is :class:`Weighted`. An order is ``(entrant, place)``
    pairs where a lower place is better and equal places are ties. A match stays one unit of
    the bootstrap, whatever its number of orders, so the correlation between the boards of a
    set is respected. ``entrants`` fixes the order of the strengths (default: first
    appearance); every ranked entrant must be in it."""
    order: list[Entrant] = list(entrants) if entrants is not None else []
    index: dict[Entrant, int] = {e: i for i, e in enumerate(order)}
    if len(index) != len(order):
        raise StrengthError("an entrant is listed twice")
    keys: dict[tuple[int, tuple[int, ...]], int] = {}
    rows: list[dict[int, float]] = []
    measured = np.zeros(len(matches), dtype=np.bool_)
    for m, rankings in enumerate(matches):
        if not rankings:
            raise StrengthError(f"match {m} has no finishing order")
        row: dict[int, float] = {}
        for ranking in rankings:
            ranked, counts = (ranking.order, ranking.weight) if isinstance(ranking, Weighted) \
                else (ranking, 1.0)  # fmt: skip
            boards_of_two = len(rankings) > 1 and len(ranked) == 2
            measured[m] |= isinstance(ranking, Weighted) or boards_of_two
            places = _places(m, ranked, index, order, fixed=entrants is not None)
            for pick, among, weight in _tie_averaged_choices(places):
                u = keys.setdefault((pick, among), len(keys))
                row[u] = row.get(u, 0.0) + counts * weight
        rows.append(row)
    size = max((len(a) for _, a in keys), default=2)
    chosen = np.zeros(len(keys), dtype=np.int64)
    alternatives = np.zeros((len(keys), size), dtype=np.int64)
    mask = np.zeros((len(keys), size), dtype=np.bool_)
    for (c, alts), u in keys.items():
        chosen[u] = c
        alternatives[u, :] = c
        alternatives[u, : len(alts)] = alts
        mask[u, : len(alts)] = True
    weights = sparse.csr_matrix(
        (
            [w for row in rows for w in row.values()],
            [u for row in rows for u in row],
            np.cumsum([0] + [len(row) for row in rows]),
        ),
        shape=(len(rows), len(keys)),
        dtype=np.float64,
    )
    return Choices(tuple(order), chosen, alternatives, mask, weights, measured)


def _places(
    m: int,
    ranking: Ranked[Entrant],
    index: dict[Entrant, int],
    order: list[Entrant],
    *,
    fixed: bool,
) -> list[tuple[int, int]]:
    """``(place, entrant index)`` of one finishing order of match ``m``; entrants not seen yet
    are appended to ``order`` unless the entrants are ``fixed``."""
    if len(ranking) < 2:
        raise StrengthError(f"match {m} has fewer than two entrants")
    seen: set[Entrant] = set()
    places: list[tuple[int, int]] = []
    for entrant, place in ranking:
        if entrant in seen:
            raise StrengthError(f"match {m} ranks {entrant!r} twice")
        seen.add(entrant)
        if entrant not in index:
            if fixed:
                raise StrengthError(f"match {m} ranks {entrant!r}, not among the entrants")
            index[entrant] = len(order)
            order.append(entrant)
        places.append((place, index[entrant]))
    return places


def _tie_averaged_choices(
    places: list[tuple[int, int]],
) -> list[tuple[int, tuple[int, ...], float]]:
    """``(chosen, alternatives, weight)`` of one finishing order, ties averaged over every
    order of the tied group. For a group of ``d`` among ``rest`` remaining entrants, the share
    of orders in which the set ``S`` (``k`` of the group) goes first and then ``x`` is
    ``k!(d-k-1)!/d!``. The last choice (one alternative) carries no information: skipped."""
    groups: dict[int, list[int]] = {}
    for place, i in places:
        groups.setdefault(place, []).append(i)
    remaining = sorted(i for _, i in places)
    out: list[tuple[int, tuple[int, ...], float]] = []
    for place in sorted(groups):
        group = sorted(groups[place])
        d = len(group)
        if d > MAX_TIED:
            raise StrengthError(f"{d} entrants tied: at most {MAX_TIED} are supported")
        for k in range(d):
            share = math.factorial(k) * math.factorial(d - k - 1) / math.factorial(d)
            for first in itertools.combinations(group, k):
                left = tuple(i for i in remaining if i not in first)
                if len(left) < 2:
                    continue
                for x in group:
                    if x not in first:
                        out.append((x, left, share))
        remaining = [i for i in remaining if i not in group]
    return out


@dataclass(frozen=True)
class Fit(Generic[Entrant]):
    """Strengths ``theta`` (natural log scale, mean 0) and their approximate covariance (the
    inverse of the penalised information matrix, projected on centred strengths)."""

    entrants: tuple[Entrant, ...]
    theta: FloatArray
    covariance: FloatArray

    def elo(self) -> FloatArray:
        return CENTRE + ELO_PER_NATURAL * self.theta

    def difference_sd(self, i: int, j: int) -> float:
        """Standard error of ``θ_i − θ_j`` (Laplace approximation)."""
        c = self.covariance
        return math.sqrt(max(c[i, i] + c[j, j] - 2.0 * c[i, j], 0.0))


def fit(choices: Choices[Entrant], *, alpha: float = DEFAULT_ALPHA) -> Fit[Entrant]:
    """The (penalised) maximum-likelihood strengths of all matches in ``choices``."""
    if alpha < 0:
        raise StrengthError("alpha must be at least 0")
    weights = np.asarray(choices.weights.sum(axis=0), dtype=np.float64).reshape(1, -1)
    theta, hessian = _newton(choices, weights, alpha)
    if choices.measured.any():  # such boards inform by their dispersion, not a coin's
        phi = _dispersion(choices, theta[0])
        weights = weights + (1.0 / phi - 1.0) * _row_sum(choices.weights, choices.measured)
        _, hessian = _derivatives(choices, weights, theta, np.zeros_like(theta), alpha)
    n = len(choices.entrants)
    # The (Σθ)² term pins the mean without changing any difference (see _newton); remove it
    # again so the covariance of differences is the information's pseudo-inverse.
    information = hessian[0] - np.ones((n, n))
    # Strengths are centred: project out the common shift, which only the prior pins down.
    centre = np.eye(n) - np.full((n, n), 1.0 / n)
    covariance = centre @ np.linalg.pinv(information, hermitian=True) @ centre
    return Fit(choices.entrants, theta[0], covariance)


def _row_sum(weights: sparse.csr_matrix, rows: NDArray[np.bool_]) -> FloatArray:
    """The column sums of the ``rows`` of ``weights``, as a 1 × choices array."""
    return np.asarray(weights[np.flatnonzero(rows)].sum(axis=0), dtype=np.float64).reshape(1, -1)


def _dispersion(choices: Choices[Entrant], theta: FloatArray) -> float:
    """How much of a coin's variance the measured matches' boards show, at most 1.

    The information matrix assumes each result is a win or a loss (Bernoulli). Boards between
    two sides vary less where they can be shared: a board shared by its margin (``Weighted``,
    Belote: a side that takes 0.6 of every board is known better than one that wins 60 % of
    them), or a tied board, half a win for each side (Bauer: when the cards decide a deal, the
    seats holding them score in both rotations of the set, once for each side, and a deal whose
    caller's side misses five tricks scores for nobody; about half of the boards are level).
    The Bernoulli variance would hide what such boards tell. The Pearson dispersion of the
    measured matches' results, summed per match and pair (so the boards of one set are not
    taken as independent), measures it; its one-sided 95 % upper bound (χ² with one degree of
    freedom per match and pair) is used, so a handful of matches keeps the full variance. A
    match is measured by what it is, never by how it ended (``Choices.measured``): judged
    from its tied boards alone the dispersion would be biased low. Single won-or-lost results
    keep a coin's variance: for them it is the truth, and a one-sided record would otherwise
    look certain. Tables (choices among more than two) keep 1. Never below
    :data:`MIN_DISPERSION`: two bots that always split their boards evenly would otherwise be
    known exactly."""
    if choices.mask.sum(axis=1).max(initial=0) > 2:
        return 1.0
    first, second = choices.alternatives[:, 0], choices.alternatives[:, 1]
    pairs = {(int(i), int(j)) for i, j in zip(first, second, strict=True)}
    pair_index = {pair: k for k, pair in enumerate(sorted(pairs))}
    column = np.array([pair_index[int(i), int(j)] for i, j in zip(first, second, strict=True)])
    to_pair = sparse.csr_matrix(
        (np.ones(len(column)), (np.arange(len(column)), column)), shape=(len(column), len(pairs))
    )
    won_first = (choices.chosen == first).astype(np.float64)
    measured = choices.weights[np.flatnonzero(choices.measured)]
    boards = np.asarray((measured @ to_pair).todense())  # measured matches × pairs
    taken = np.asarray((measured @ sparse.diags(won_first) @ to_pair).todense())
    ordered = np.array(sorted(pairs)).reshape(-1, 2)
    p = 1.0 / (1.0 + np.exp(theta[ordered[:, 1]] - theta[ordered[:, 0]]))  # first over second
    played = boards > 0
    residual = (taken - boards * p)[played]
    variance = (boards * p * (1.0 - p))[played]
    clusters = int(played.sum())
    if clusters == 0 or variance.sum() <= 0.0:
        return 1.0
    upper = float(residual @ residual / variance.sum()) * clusters / chi2.ppf(0.05, clusters)
    return min(1.0, max(MIN_DISPERSION, upper))


def fit_matches(
    matches: Sequence[Sequence[Ranked[Entrant] | Weighted[Entrant]]],
    *,
    alpha: float = DEFAULT_ALPHA,
) -> Fit[Entrant] | None:
    """The point fit of ``matches`` (see :func:`choices_from_matches`; no bootstrap), or None
    when there are none."""
    return fit(choices_from_matches(matches), alpha=alpha) if matches else None


def fit_many(choices: Choices[Entrant], match_weights: FloatArray, *, alpha: float) -> FloatArray:
    """Strengths for each row of ``match_weights`` (data sets × matches: how often each match
    counts), in batches; rows of the result are centred ``θ`` vectors.

    Every row is solved by truncated Newton (:func:`_newton_cg`) from the fit of all matches
    (each counted once), with that fit's inverse Hessian as the conjugate gradient's
    preconditioner: a resample's optimum is near the full fit's, and each step then costs
    Hessian-vector products instead of assembling and solving an entrants × entrants system
    per row (1,000 bots: about 10 minutes for 200 resamples by Newton's method; issue 35). The
    objective is strictly convex, so the optimum is the same; a row that has not converged
    after :data:`_MAX_ITERATIONS` steps is finished by Newton's method."""
    n = len(choices.entrants)
    out = np.empty((match_weights.shape[0], n))
    if match_weights.shape[0] == 0:
        return out
    full = np.asarray(choices.weights.sum(axis=0), dtype=np.float64).reshape(1, -1)
    start_theta, hessian = _newton(choices, full, alpha)
    inverse = np.linalg.inv(hessian[0])
    full_diagonal = np.diag(hessian[0]).copy()
    per_set = max(1, 4 * choices.chosen.shape[0] * max(1, choices.alternatives.shape[1]) + n)
    batch = max(1, _CHUNK_CELLS // per_set)
    for start in range(0, match_weights.shape[0], batch):
        weights = np.asarray((choices.weights.T @ match_weights[start : start + batch].T).T)
        theta, done = _newton_cg(choices, weights, alpha, start_theta, inverse, full_diagonal)
        out[start : start + batch] = theta
        if not done.all():
            rest = np.flatnonzero(~done)
            out[start + rest], _ = _newton(choices, weights[rest], alpha)
    return out


def _newton_cg(
    choices: Choices[Entrant], weights: FloatArray, alpha: float, start: FloatArray,
    inverse: FloatArray, full_diagonal: FloatArray,
) -> tuple[FloatArray, NDArray[np.bool_]]:  # fmt: skip
    """Minimise every row's objective (see :func:`_newton`) from ``start``: Newton steps whose
    systems are solved by conjugate gradients preconditioned with ``inverse``, to a relative
    residual that shrinks with the gradient (so the steps end as Newton's do); ``(centred θ
    per row, whether each row converged)``."""
    sets = weights.shape[0]
    theta = np.repeat(start.reshape(1, -1), sets, axis=0)
    done = np.zeros(sets, dtype=bool)
    if choices.chosen.shape[0] == 0:
        return theta - theta.mean(axis=1, keepdims=True), ~done
    n = theta.shape[1]
    wins = _scatter(weights[..., None], choices.chosen[:, None], n)
    value = _objective(choices, weights, theta, wins, alpha)
    for _ in range(_MAX_ITERATIONS):
        gradient, p, wp = _gradient(choices, weights, theta, wins, alpha)
        gradient[done] = 0.0
        size = np.sqrt((gradient**2).sum(axis=1))
        forcing = np.minimum(0.5, np.sqrt(size)) * size
        # the preconditioner rescaled to this row's curvature per entrant (its diagonal): a
        # resample counts a bot's matches 0, 1, 2… times, so a bot of few matches may weigh
        # half or twice what it weighs in the full fit
        diagonal = _scatter(wp * (1.0 - p), choices.alternatives, n) + alpha + 1.0
        rescale = np.sqrt(full_diagonal / diagonal)
        step = _conjugate_gradients(choices, p, wp, alpha, gradient, inverse, rescale, forcing)
        theta, value, scale = _line_search(choices, weights, wins, alpha, theta, value, step)
        done |= np.abs(scale[:, None] * step).max(axis=1) < _TOLERANCE
        if done.all():
            break
    return theta - theta.mean(axis=1, keepdims=True), done


def _conjugate_gradients(
    choices: Choices[Entrant], p: FloatArray, wp: FloatArray, alpha: float,
    gradient: FloatArray, inverse: FloatArray, scale: FloatArray, tolerance: FloatArray,
) -> FloatArray:  # fmt: skip
    """Per row, ``x`` with ``‖H x − gradient‖ ≤ tolerance`` (``H``: the row's Hessian at the
    softmax ``p``, applied by :func:`_hessian_times`), preconditioned with ``inverse``."""
    x = np.zeros_like(gradient)
    residual = gradient.copy()
    z = ((residual * scale) @ inverse) * scale
    direction = z.copy()
    rz = (residual * z).sum(axis=1)
    active = np.sqrt((residual**2).sum(axis=1)) > tolerance
    for _ in range(gradient.shape[1]):
        if not active.any():
            break
        product = np.zeros_like(direction)  # rows that have converged cost nothing more
        product[active] = _hessian_times(choices, p[active], wp[active], alpha, direction[active])
        curvature = (direction * product).sum(axis=1)
        length = np.where(active, rz / np.where(active, curvature, 1.0), 0.0)
        x += length[:, None] * direction
        residual -= length[:, None] * product
        active &= np.sqrt((residual**2).sum(axis=1)) > tolerance
        z = ((residual * scale) @ inverse) * scale
        new_rz = (residual * z).sum(axis=1)
        direction = z + np.where(active, new_rz / np.where(rz == 0.0, 1.0, rz), 0.0)[:, None] * (
            direction
        )
        rz = new_rz
    return x


def _hessian_times(
    choices: Choices[Entrant], p: FloatArray, wp: FloatArray, alpha: float, v: FloatArray
) -> FloatArray:
    """Each row's Hessian (see :func:`_derivatives`) times that row of ``v``, without forming
    it: for choice ``u``, ``(diag p − p pᵀ) v`` over its alternatives, weighted and summed."""
    gathered = v[:, choices.alternatives]  # sets × choices × slots
    mean = (p * gathered).sum(axis=2, keepdims=True)
    product = _scatter(wp * (gathered - mean), choices.alternatives, v.shape[1])
    return np.asarray(product + alpha * v + v.sum(axis=1, keepdims=True), dtype=np.float64)


def _scatter(values: FloatArray, columns: IntArray, n: int) -> FloatArray:
    """sets × n: ``values[s, u, k]`` summed into column ``columns[u, k]`` of row ``s``
    (``np.bincount``: many times faster than ``np.add.at``)."""
    sets = values.shape[0]
    index = (np.arange(sets)[:, None, None] * n + columns[None]).ravel()
    summed = np.bincount(index, weights=values.ravel(), minlength=sets * n)
    return summed.astype(np.float64).reshape(sets, n)


def _line_search(
    choices: Choices[Entrant], weights: FloatArray, wins: FloatArray, alpha: float,
    theta: FloatArray, value: FloatArray, step: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray]:  # fmt: skip
    """``theta - scale · step`` per row, each row's ``scale`` halved from 1 until its objective
    does not rise; ``(new θ, its objective, the scales)``."""
    scale = np.ones(theta.shape[0])
    for _halving in range(40):
        candidate = theta - scale[:, None] * step
        new_value = _objective(choices, weights, candidate, wins, alpha)
        worse = new_value > value + 1e-12 * (1.0 + np.abs(value))
        if not worse.any():
            break
        scale = np.where(worse, scale / 2.0, scale)
    return candidate, new_value, scale


def _newton(choices: Choices[Entrant], weights: FloatArray, alpha: float) -> Pair:
    """Maximise every row's penalised log-likelihood at once; ``(θ, Hessian)`` per row.

    Minimises ``f(θ) = −Σ_u w_u log P_u(θ) + α/2 ‖θ‖² + ½ (Σθ)²``. The likelihood is unchanged
    by adding a constant to every θ, and the gradient of both other terms along that direction
    vanishes only at ``Σθ = 0``, so the last term fixes the mean at 0 without moving any
    difference; it keeps the Hessian invertible even with ``α = 0``."""
    sets, n = weights.shape[0], len(choices.entrants)
    theta = np.zeros((sets, n))
    if choices.chosen.shape[0] == 0:
        return theta, np.broadcast_to(alpha * np.eye(n) + 1.0, (sets, n, n)).copy()
    wins = np.zeros((sets, n))
    np.add.at(wins.T, choices.chosen, weights.T)
    value = _objective(choices, weights, theta, wins, alpha)
    hessian = np.zeros((sets, n, n))
    for _ in range(_MAX_ITERATIONS):
        gradient, hessian = _derivatives(choices, weights, theta, wins, alpha)
        step = np.asarray(np.linalg.solve(hessian, gradient[..., None])[..., 0], dtype=np.float64)
        theta, value, scale = _line_search(choices, weights, wins, alpha, theta, value, step)
        if np.abs(scale[:, None] * step).max() < _TOLERANCE:
            break
    theta -= theta.mean(axis=1, keepdims=True)
    return theta, hessian


def _log_probabilities(choices: Choices[Entrant], theta: FloatArray) -> Pair:
    """Per data set and choice: ``log Σ_{j∈A} exp θ_j`` and the softmax over the alternatives."""
    logits = np.where(choices.mask, theta[:, choices.alternatives], -np.inf)
    top = logits.max(axis=2, keepdims=True)
    exp = np.exp(logits - top)
    total = exp.sum(axis=2, keepdims=True)
    return (np.log(total) + top)[..., 0], exp / total


def _objective(
    choices: Choices[Entrant],
    weights: FloatArray,
    theta: FloatArray,
    wins: FloatArray,
    alpha: float,
) -> FloatArray:
    log_total, _ = _log_probabilities(choices, theta)
    log_likelihood = np.einsum("si,si->s", wins, theta) - np.einsum("su,su->s", weights, log_total)
    penalty = 0.5 * alpha * (theta**2).sum(axis=1) + 0.5 * theta.sum(axis=1) ** 2
    return np.asarray(penalty - log_likelihood, dtype=np.float64)


def _gradient(
    choices: Choices[Entrant],
    weights: FloatArray,
    theta: FloatArray,
    wins: FloatArray,
    alpha: float,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The objective's gradient per row, with the softmax ``p`` and ``weights · p``."""
    sets, n = theta.shape
    _, p = _log_probabilities(choices, theta)
    wp = weights[..., None] * p  # sets × choices × slots
    expected = _scatter(wp, choices.alternatives, n)
    total = theta.sum(axis=1, keepdims=True)
    return expected - wins + alpha * theta + total, p, wp


def _derivatives(
    choices: Choices[Entrant],
    weights: FloatArray,
    theta: FloatArray,
    wins: FloatArray,
    alpha: float,
) -> Pair:
    sets, n = theta.shape
    gradient, p, wp = _gradient(choices, weights, theta, wins, alpha)
    # Hessian of −log P_u: diag(p) − p pᵀ over u's alternatives, scattered into n × n.
    slots = choices.alternatives.shape[1]
    rows = np.repeat(choices.alternatives, slots, axis=1)
    cols = np.tile(choices.alternatives, (1, slots))
    flat = rows * n + cols  # choices × slots²
    outer = -(wp[:, :, :, None] * p[:, :, None, :]).reshape(sets, -1, slots * slots)
    diagonal = np.arange(slots) * (slots + 1)
    outer[:, :, diagonal] += wp
    index = (np.arange(sets)[:, None, None] * n * n + flat[None]).ravel()
    summed = np.bincount(index, weights=outer.ravel(), minlength=sets * n * n).astype(np.float64)
    return gradient, summed.reshape(sets, n, n) + alpha * np.eye(n) + 1.0


@dataclass(frozen=True)
class Strength(Generic[Entrant]):
    """One entrant's fitted strength on the Elo scale with its bootstrap 95 % interval."""

    entrant: Entrant
    strength: float
    low: float
    high: float
    matches: int


@dataclass(frozen=True)
class Ranking(Generic[Entrant]):
    """Entrants strongest first; ``order_confidence[k]`` is the bootstrap share of resamples in
    which entrant ``k`` is stronger than entrant ``k + 1`` (one-sided)."""

    strengths: list[Strength[Entrant]]
    order_confidence: list[float]
    resamples: int
    seed: int

    def tied_with_next(self, k: int) -> bool:
        """Entrant ``k``'s interval overlaps the next one's: statistically tied."""
        return self.strengths[k].low <= self.strengths[k + 1].high

    def confident_order(self, level: float = 0.95) -> bool:
        """Every neighbour's order holds in at least ``level`` of the resamples."""
        return all(c >= level for c in self.order_confidence)


def rank(
    matches: Sequence[Sequence[Ranked[Entrant] | Weighted[Entrant]]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    alpha: float = DEFAULT_ALPHA,
    entrants: Sequence[Entrant] | None = None,
) -> Ranking[Entrant]:
    """Fit ``matches`` (finishing orders per match, see :func:`choices_from_matches`) and
    bootstrap 95 % intervals over matches; deterministic for a given ``seed``."""
    if resamples < 1:
        raise StrengthError("resamples must be at least 1")
    choices = choices_from_matches(matches, entrants)
    n = len(choices.entrants)
    if n == 0:
        return Ranking([], [], resamples, seed)
    point = fit(choices, alpha=alpha)
    boot = ELO_PER_NATURAL * bootstrap(choices, resamples=resamples, seed=seed, alpha=alpha)
    elo = point.elo()
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    # never narrower than the normal approximation (see the module docstring)
    sd = ELO_PER_NATURAL * np.sqrt(np.clip(np.diag(point.covariance), 0.0, None))
    low = np.minimum(CENTRE + low, elo - Z95 * sd)
    high = np.maximum(CENTRE + high, elo + Z95 * sd)
    counts = _appears(choices).sum(axis=0)
    order = sorted(range(n), key=lambda i: (-elo[i], i))
    strengths = [
        Strength(
            choices.entrants[i], float(elo[i]), float(low[i]), float(high[i]), int(counts[i])
        )  # fmt: skip
        for i in order
    ]
    confidence = [order_confidence(point, boot, a, b) for a, b in itertools.pairwise(order)]
    return Ranking(strengths, confidence, resamples, seed)


def order_confidence(point: Fit[Entrant], boot: FloatArray, a: int, b: int) -> float:
    """How sure the fit is that entrant ``a`` (an index) is stronger than ``b``: the smaller
    of the share of ``boot`` resamples in which it is and the normal approximation's
    ``P(θ_a > θ_b)`` (see the module docstring)."""
    return min(float(np.mean(boot[:, a] > boot[:, b])), _normal_share(point, a, b))


def _normal_share(point: Fit[Entrant], a: int, b: int) -> float:
    """``P(θ_a > θ_b)`` under the normal approximation of the penalised fit."""
    sd = point.difference_sd(a, b)
    if sd == 0.0:
        return 1.0 if point.theta[a] > point.theta[b] else 0.5
    z = float(point.theta[a] - point.theta[b]) / sd
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def bootstrap(choices: Choices[Entrant], *, resamples: int, seed: int, alpha: float) -> FloatArray:
    """``resamples`` × entrants centred strengths (natural log scale), each fitted on matches
    drawn with replacement."""
    rng = np.random.default_rng(seed)
    m = choices.matches
    counts = rng.multinomial(m, np.full(m, 1.0 / m), size=resamples).astype(np.float64)
    return fit_many(choices, counts, alpha=alpha)


def _appears(choices: Choices[Entrant]) -> NDArray[np.bool_]:
    """matches × entrants: whether the entrant took part in the match."""
    n = len(choices.entrants)
    involved = np.zeros((choices.chosen.shape[0], n), dtype=np.bool_)
    for slot in range(choices.alternatives.shape[1]):
        involved[np.arange(choices.chosen.shape[0]), choices.alternatives[:, slot]] |= choices.mask[
            :, slot
        ]
    touched = (choices.weights > 0).astype(np.int64)
    return np.asarray((touched @ sparse.csr_matrix(involved.astype(np.int64))).todense()) > 0
