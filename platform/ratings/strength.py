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
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Generic, NamedTuple, TypeVar

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from scipy.stats import chi2

Entrant = TypeVar("Entrant", bound=Hashable)
FloatArray = NDArray[np.float64]
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
#: Newton's method stops after a step this small (in θ; the fit's error is then far smaller)
_TOLERANCE = 1e-9
#: a bootstrap resample's truncated Newton stops after a step this small: its error is then
#: ~1e-7 in θ (2e-5 Elo points; the intervals' own Monte Carlo error is ~2 points), and a
#: resample costs a third less than to 1e-9
_RESAMPLE_TOLERANCE = 1e-5
#: the conjugate gradients' relative residual is at most this (and shrinks with the gradient)
_FORCING = 0.05
#: ``exp θ`` more than this far below the strongest entrant's is taken as this far (120,000
#: Elo points, far past any fit): every alternative set's sum stays positive
_EXP_FLOOR = 700.0
_CHUNK_CELLS = 2_000_000  # floats per batched array: bounds memory for large ladders


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

    @cached_property
    def design(self) -> _Design:
        """What the likelihood reads of them, built once: the fit and the bootstrap share it."""
        return _design(self)


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
        # identical orders of a match (a duplicate set's boards often end alike) become one
        # of their summed weight before they become choices
        distinct: dict[tuple[tuple[Entrant, int], ...], float] = {}
        for ranking in rankings:
            ranked, counts = (ranking.order, ranking.weight) if isinstance(ranking, Weighted) \
                else (ranking, 1.0)  # fmt: skip
            boards_of_two = len(rankings) > 1 and len(ranked) == 2
            measured[m] |= isinstance(ranking, Weighted) or boards_of_two
            key = tuple(ranked)
            distinct[key] = distinct.get(key, 0.0) + counts
        row: dict[int, float] = {}
        for ranked, counts in distinct.items():
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
    design = choices.design
    weights = np.ones((choices.matches, 1))
    theta = _full_fit(design, _data(design, weights), alpha)
    if choices.measured.any():  # such boards inform by their dispersion, not a coin's
        weights[choices.measured] = 1.0 / _dispersion(choices, theta[:, 0])
    n = len(choices.entrants)
    # The (Σθ)² term pins the mean without changing any difference (see _Design); remove it
    # again so the covariance of differences is the information's pseudo-inverse.
    information = _hessian_at(design, _data(design, weights), theta, alpha) - np.ones((n, n))
    # Strengths are centred: project out the common shift, which only the prior pins down.
    centre = np.eye(n) - np.full((n, n), 1.0 / n)
    covariance = centre @ np.linalg.pinv(information, hermitian=True) @ centre
    return Fit(choices.entrants, theta[:, 0], covariance)


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
    pairs, column = np.unique(np.stack([first, second], axis=1), axis=0, return_inverse=True)
    column = column.reshape(-1)
    won_first = (choices.chosen == first).astype(np.float64)
    measured = choices.weights[np.flatnonzero(choices.measured)].tocoo()  # matches × choices
    # one cell per measured match and pair (sparse: a match meets one pair of the ladder's)
    key = measured.row.astype(np.int64) * len(pairs) + column[measured.col]
    cells, cell = np.unique(key, return_inverse=True)
    boards = np.bincount(cell, weights=measured.data, minlength=len(cells))
    taken = np.bincount(cell, weights=measured.data * won_first[measured.col], minlength=len(cells))
    pair = pairs[cells % max(1, len(pairs))]
    p = 1.0 / (1.0 + np.exp(theta[pair[:, 1]] - theta[pair[:, 0]]))  # first over second
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


def fit_many(
    choices: Choices[Entrant], match_weights: FloatArray, *, alpha: float,
    start: FloatArray | None = None,
) -> FloatArray:  # fmt: skip
    """Strengths for each row of ``match_weights`` (data sets × matches: how often each match
    counts), in batches; rows of the result are centred ``θ`` vectors. ``start``: the fit of
    all matches (:func:`fit`'s ``theta``), when the caller has it.

    Every row is solved by truncated Newton (:func:`_newton_cg`) from the fit of all matches
    (each counted once), with that fit's inverse Hessian as the conjugate gradient's
    preconditioner: a resample's optimum is near the full fit's, and each step then costs
    Hessian-vector products, a few sparse products each (:func:`_hessian_times`), instead of
    assembling and solving an entrants × entrants system per row. The objective is strictly
    convex, so the optimum is the one Newton's method finds (to
    :data:`_RESAMPLE_TOLERANCE`); a row that has not converged
    after :data:`_MAX_ITERATIONS` steps is finished by Newton's method (issue 35: 1,000 bots
    and 20,000 Barbu matches took about 10 minutes for 200 resamples by Newton's method, then
    two minutes by truncated Newton over the choices' alternatives one by one)."""
    design = choices.design
    n = len(choices.entrants)
    out = np.empty((match_weights.shape[0], n))
    if match_weights.shape[0] == 0:
        return out
    full = _data(design, np.ones((choices.matches, 1)))
    start = _full_fit(design, full, alpha) if start is None else start.reshape(-1, 1)
    hessian = _hessian_at(design, full, start, alpha)
    step = _newton_cg(design, alpha, np.asarray(np.linalg.inv(hessian)), np.diag(hessian))
    batch = max(1, _CHUNK_CELLS // (design.incidence.shape[0] + n))
    for first in range(0, match_weights.shape[0], batch):
        data = _data(design, match_weights[first : first + batch].T)
        theta = np.repeat(start, data.wins.shape[1], axis=1)
        theta, done = _minimise(design, data, alpha, theta, step, _RESAMPLE_TOLERANCE)
        if not done.all():
            rest = np.flatnonzero(~done)
            theta[:, rest], _ = _minimise(
                design, data.columns(rest), alpha, theta[:, rest], _newton_step(design, alpha)
            )
        out[first : first + batch] = theta.T
    return out


class _Design(NamedTuple):
    """What the likelihood reads of the choices: the distinct sets of alternatives choices were
    made among, and per match how much of a choice among each set it holds and how much of
    each entrant it chose. Choices among the same set share its softmax, so the objective
    ``f(θ) = Σ_A T_A log Σ_{j∈A} exp θ_j − Σ_i W_i θ_i + α/2 ‖θ‖² + ½ (Σθ)²`` (``T_A``: the
    weight of choices among set ``A``, ``W_i``: of choices of entrant ``i``), its gradient and
    its Hessian's products are products with the sparse incidence of sets and entrants: the
    entrants' ``exp θ`` summed per set and per-set sums added back per entrant, with nothing
    as long as all the choices' alternatives held in between."""

    incidence: sparse.csr_matrix  # sets × entrants: 1 where the entrant is among the set
    members: sparse.csr_matrix  # entrants × sets: its transpose, by rows too
    set_weights: sparse.csr_matrix  # sets × matches: how much of a choice among the set
    win_weights: sparse.csr_matrix  # entrants × matches: how much of a choice of the entrant


def _design(choices: Choices[Entrant]) -> _Design:
    n, count = len(choices.entrants), choices.chosen.shape[0]
    sets, of_choice = np.unique(
        np.where(choices.mask, choices.alternatives, -1), axis=0, return_inverse=True
    )
    row, slot = np.nonzero(sets >= 0)
    incidence = sparse.csr_matrix(
        (np.ones(row.size), (row, sets[row, slot])), shape=(sets.shape[0], n)
    )
    to_set = sparse.csr_matrix(
        (np.ones(count), (np.arange(count), of_choice.reshape(-1))), shape=(count, sets.shape[0])
    )
    chose = sparse.csr_matrix(
        (np.ones(count), (np.arange(count), choices.chosen)), shape=(count, n)
    )
    return _Design(
        incidence,
        incidence.T.tocsr(),
        (choices.weights @ to_set).T.tocsr(),
        (choices.weights @ chose).T.tocsr(),
    )


class _Data(NamedTuple):
    """Data sets, one per column: the weights of choices among each alternative set (sets ×
    data sets) and of choices of each entrant (entrants × data sets)."""

    sets: FloatArray
    wins: FloatArray

    def columns(self, keep: IntArray) -> _Data:
        return _Data(self.sets[:, keep], self.wins[:, keep])


def _data(design: _Design, match_weights: FloatArray) -> _Data:
    """The data sets of ``match_weights`` (matches × data sets: how often each match counts)."""
    return _Data(
        np.asarray(design.set_weights @ match_weights, dtype=np.float64),
        np.asarray(design.win_weights @ match_weights, dtype=np.float64),
    )


class _Point(NamedTuple):
    """The objective at ``theta`` (entrants × data sets), per column: its ``value``,
    ``exp θ`` scaled by the column's largest (``exp``; see :data:`_EXP_FLOOR`) and its sums per
    alternative set (``total``, sets × data sets), the softmax of set ``A`` being
    ``exp[A] / total[A]``."""

    theta: FloatArray
    value: FloatArray
    exp: FloatArray
    total: FloatArray


def _point(design: _Design, data: _Data, theta: FloatArray, alpha: float) -> _Point:
    top = theta.max(axis=0, initial=0.0)
    exp = np.exp(np.maximum(theta - top, -_EXP_FLOOR))
    total = np.asarray(design.incidence @ exp, dtype=np.float64)
    value = (
        (data.sets * np.log(total)).sum(axis=0) + data.sets.sum(axis=0) * top
        - (data.wins * theta).sum(axis=0)
        + 0.5 * alpha * (theta**2).sum(axis=0) + 0.5 * theta.sum(axis=0) ** 2
    )  # fmt: skip
    return _Point(theta, value, exp, total)


class _Slope(NamedTuple):
    """The objective's gradient at a point, with the parts of its Hessian there:
    ``H = diag(expected) − E Mᵀ diag(curvature) M E + α I + 1 1ᵀ`` (``M``: the incidence,
    ``E = diag(exp)``), per column. ``expected``: the choices' expected picks of each entrant,
    ``Σ_A T_A p_A``; ``curvature``: ``T_A / total_A²`` per alternative set."""

    gradient: FloatArray
    expected: FloatArray
    curvature: FloatArray


def _slope(design: _Design, data: _Data, point: _Point, alpha: float) -> _Slope:
    share = data.sets / point.total
    expected = point.exp * np.asarray(design.members @ share, dtype=np.float64)
    theta = point.theta
    gradient = expected - data.wins + alpha * theta + theta.sum(axis=0)
    return _Slope(gradient, expected, share / point.total)


def _hessian_times(
    design: _Design, point: _Point, slope: _Slope, alpha: float, v: FloatArray
) -> FloatArray:
    """Each column's Hessian (see :class:`_Slope`) times that column of ``v``, never formed."""
    per_set = slope.curvature * np.asarray(design.incidence @ (point.exp * v), dtype=np.float64)
    low_rank = point.exp * np.asarray(design.members @ per_set, dtype=np.float64)
    return np.asarray(slope.expected * v - low_rank + alpha * v + v.sum(axis=0), dtype=np.float64)


def _hessian_at(design: _Design, data: _Data, theta: FloatArray, alpha: float) -> FloatArray:
    """The Hessian of ``data``'s one column at ``theta`` (entrants × 1)."""
    point = _point(design, data, theta, alpha)
    return _hessian(design, point, _slope(design, data, point, alpha), alpha, 0)


def _hessian(
    design: _Design, point: _Point, slope: _Slope, alpha: float, column: int
) -> FloatArray:
    """The Hessian of one column (see :class:`_Slope`), entrants × entrants."""
    scaled = design.incidence @ sparse.diags(point.exp[:, column])
    low_rank = (scaled.T @ sparse.diags(slope.curvature[:, column]) @ scaled).toarray()
    n = point.exp.shape[0]
    return np.asarray(np.diag(slope.expected[:, column]) - low_rank + alpha * np.eye(n) + 1.0)


Step = Callable[[_Point, _Slope], FloatArray]


def _minimise(
    design: _Design, data: _Data, alpha: float, theta: FloatArray, step: Step,
    tolerance: float = _TOLERANCE,
) -> tuple[FloatArray, NDArray[np.bool_]]:  # fmt: skip
    """Minimise every column's objective from ``theta`` by Newton steps (``step``: each column's
    Hessian system solved for its gradient, exactly or truncated) with step halving, until a
    column's step is below ``tolerance``; ``(centred θ, whether each column converged)``.
    Converged columns are set aside: the others cost what they are."""
    out = theta.copy()
    done = np.zeros(theta.shape[1], dtype=np.bool_)
    live = np.arange(theta.shape[1])
    point = _point(design, data, theta, alpha)
    for _ in range(_MAX_ITERATIONS):
        if live.size == 0:
            break
        direction = step(point, _slope(design, data, point, alpha))
        point, scale = _line_search(design, data, alpha, point, direction)
        out[:, live] = point.theta
        finished = np.abs(scale * direction).max(axis=0, initial=0.0) < tolerance
        if finished.any():
            done[live[finished]] = True
            keep = np.flatnonzero(~finished)
            live, data = live[keep], data.columns(keep)
            point = _Point(*(a[..., keep] for a in point))
    return out - out.mean(axis=0), done


def _line_search(
    design: _Design, data: _Data, alpha: float, point: _Point, step: FloatArray
) -> tuple[_Point, FloatArray]:
    """``θ − scale · step`` per column, each column's ``scale`` halved from 1 until its
    objective does not rise; ``(the new point, the scales)``."""
    scale = np.ones(step.shape[1])
    for _halving in range(40):
        candidate = _point(design, data, point.theta - scale * step, alpha)
        worse = candidate.value > point.value + 1e-12 * (1.0 + np.abs(point.value))
        if not worse.any():
            break
        scale = np.where(worse, scale / 2.0, scale)
    return candidate, scale


def _full_fit(design: _Design, data: _Data, alpha: float) -> FloatArray:
    """The optimum of ``data``'s one column by Newton's method from 0 (entrants × 1)."""
    theta = np.zeros((design.incidence.shape[1], 1))
    return _minimise(design, data, alpha, theta, _newton_step(design, alpha))[0]


def _newton_step(design: _Design, alpha: float) -> Step:
    """Newton's method: each column's Hessian assembled and solved."""

    def step(point: _Point, slope: _Slope) -> FloatArray:
        return np.stack(
            [
                np.linalg.solve(_hessian(design, point, slope, alpha, c), slope.gradient[:, c])
                for c in range(point.theta.shape[1])
            ],
            axis=1,
        )

    return step


def _newton_cg(
    design: _Design, alpha: float, inverse: FloatArray, full_diagonal: FloatArray
) -> Step:
    """Truncated Newton: each column's Hessian system solved by conjugate gradients, to a
    relative residual that shrinks with the gradient (so the steps end as Newton's do),
    preconditioned by ``inverse`` (the full fit's inverse Hessian, whose diagonal is
    ``full_diagonal``) rescaled to the column's curvature per entrant: a resample counts a
    bot's matches 0, 1, 2… times, so a bot of few matches may weigh half or twice what it
    weighs in the full fit."""

    def step(point: _Point, slope: _Slope) -> FloatArray:
        size = np.sqrt((slope.gradient**2).sum(axis=0))
        tolerance = np.minimum(_FORCING, np.sqrt(size)) * size
        members = np.asarray(design.members @ slope.curvature, dtype=np.float64)
        diagonal = slope.expected - point.exp**2 * members + alpha + 1.0
        scale = np.sqrt(full_diagonal[:, None] / diagonal)

        def times(v: FloatArray) -> FloatArray:
            return _hessian_times(design, point, slope, alpha, v)

        return _conjugate_gradients(times, slope.gradient, inverse, scale, tolerance)

    return step


def _conjugate_gradients(
    times: Callable[[FloatArray], FloatArray], gradient: FloatArray, inverse: FloatArray,
    scale: FloatArray, tolerance: FloatArray,
) -> FloatArray:  # fmt: skip
    """Per column, ``x`` with ``‖H x − gradient‖ ≤ tolerance`` (``times(v)``: ``H v`` per
    column), preconditioned with ``scale · inverse · scale``. Columns that have converged stop
    moving; their products are still computed with the others' (cheaper than copying the
    rest out)."""
    x = np.zeros_like(gradient)
    residual = gradient.copy()
    z = scale * (inverse @ (scale * residual))
    direction = z.copy()
    rz = (residual * z).sum(axis=0)
    active = np.sqrt((residual**2).sum(axis=0)) > tolerance
    for _ in range(gradient.shape[0]):
        if not active.any():
            break
        product = times(direction)
        curvature = (direction * product).sum(axis=0)
        length = np.where(active, rz / np.where(active, curvature, 1.0), 0.0)
        x += length * direction
        residual -= length * product
        active &= np.sqrt((residual**2).sum(axis=0)) > tolerance
        z = scale * (inverse @ (scale * residual))
        new_rz = (residual * z).sum(axis=0)
        direction = z + np.where(active, new_rz / np.where(rz == 0.0, 1.0, rz), 0.0) * direction
        rz = new_rz
    return x


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
    boot = ELO_PER_NATURAL * bootstrap(
        choices, resamples=resamples, seed=seed, alpha=alpha, start=point.theta
    )
    elo = point.elo()
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    # never narrower than the normal approximation (see the module docstring)
    sd = ELO_PER_NATURAL * np.sqrt(np.clip(np.diag(point.covariance), 0.0, None))
    low = np.minimum(CENTRE + low, elo - Z95 * sd)
    high = np.maximum(CENTRE + high, elo + Z95 * sd)
    counts = _matches_played(choices)
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


def bootstrap(
    choices: Choices[Entrant], *, resamples: int, seed: int, alpha: float,
    start: FloatArray | None = None,
) -> FloatArray:  # fmt: skip
    """``resamples`` × entrants centred strengths (natural log scale), each fitted on matches
    drawn with replacement (``start``: see :func:`fit_many`)."""
    rng = np.random.default_rng(seed)
    m = choices.matches
    counts = rng.multinomial(m, np.full(m, 1.0 / m), size=resamples).astype(np.float64)
    return fit_many(choices, counts, alpha=alpha, start=start)


def _matches_played(choices: Choices[Entrant]) -> IntArray:
    """How many matches each entrant took part in."""
    count, slots = choices.alternatives.shape
    involved = sparse.csr_matrix(
        (np.ones(int(choices.mask.sum())),
         (np.repeat(np.arange(count), slots)[choices.mask.reshape(-1)],
          choices.alternatives[choices.mask])),
        shape=(count, len(choices.entrants)),
    )  # fmt: skip
    touched = (choices.weights > 0).astype(np.float64)
    played = touched @ involved
    return np.asarray((played > 0).sum(axis=0), dtype=np.int64).reshape(-1)
