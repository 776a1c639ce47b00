"""Uncertainty-driven choice of the next ladder matches: pure functions, no database.

The ladder's verdict is the order of neighbours: it is sure of its standings once every bot's
order with the next one holds. A match helps most between two bots that are neighbours in the
true order and whose order the fit is not yet sure of. For two entrants ``a`` and ``b`` the
fitted strengths (``ratings.strength``) give a difference ``Δ`` with standard error ``s``; under
the normal approximation the chance that their fitted order is wrong is ``Φ(−|Δ| / s)`` (½ when
either has no result yet). The chance that they are neighbours in the true order comes from
draws of the strengths from the fit's normal posterior (:func:`neighbour_chances`). A pair's
priority is the product of the two, the doubt an oracle that knew the order would serve, divided
by ``√(1 + pending)`` (:func:`discounted`; pending: matches of the pair queued or planned in the
same call, whose results the fit cannot know yet). Finished meetings do not divide it: the fit
counts them already, and dividing by them again starved the one hard pair of neighbours that
decides the verdict. Two bots whose difference is known to within :data:`RESOLUTION_ELO` have no
priority left (the ladder calls them tied), so two bots of equal strength stop drawing matches
once they have met a few hundred times; until then the back-pressure (a bot's ``capacity``)
bounds what they take. A table's priority is the sum over its pairs: the best table is chosen
among all possible ones while there are at most ``MAX_TABLES_SCORED`` (every heads-up pair up to
100 bots, every Barbu table up to 20), otherwise it is grown from the best pair, adding each
time the entrant with the highest summed priority against those already seated.

New versions come first: any entrant whose current version has played fewer than
``NEW_VERSION_GAMES`` games (counting the matches planned in this call) is seated before the
others, fewest games first, at the best table that has a seat for it, so a fresh upload gets
its first games at once and its table still serves the neighbours in doubt.

No table seats two entrants of one author (Halite's rule: a bot could lose on purpose to its
sibling, or soft-play a table to its sibling's profit); candidates without an author (the
house's reference bots) are exempt.

The ladder keeps a queue of pending matches (:func:`top_up`): up to ``queue depth`` of them, at
most ``MAX_PENDING_PER_BOT`` per bot (both in :mod:`tournaments.ladder_limits`), so a slow bot
cannot fill the queue.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.special import erfc

from ratings.strength import DEFAULT_ALPHA, ELO_PER_NATURAL, Fit

NEW_VERSION_GAMES = 5
#: up to this many possible tables, every one is scored; beyond, tables grow from the best pair
MAX_TABLES_SCORED = 5_000
#: draws from the fit's posterior that estimate which pairs are neighbours in the true order
ORDER_SAMPLES = 400
#: a pair whose difference has a standard error below this (Elo points) is tied for good
RESOLUTION_ELO = 5.0


@dataclass(frozen=True)
class Candidate:
    """An entrant the scheduler may seat: its id, how many games its current version has
    played, and how many more matches it may join now (back-pressure)."""

    bot: int
    version_games: int
    capacity: int
    author: int | None = None  # two entrants of one author never share a table (None: exempt)


def apart(a: Candidate, b: Candidate) -> bool:
    """Whether ``a`` and ``b`` may sit at one table: not two bots of one author (soft play)."""
    return a.author is None or a.author != b.author


def pair_key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def meetings_of(tables: Sequence[Collection[int]]) -> Counter[tuple[int, int]]:
    """How often each pair of entrants met among ``tables``."""
    met: Counter[tuple[int, int]] = Counter()
    for table in tables:
        for a, b in itertools.combinations(set(table), 2):
            met[pair_key(a, b)] += 1
    return met


def order_uncertainty(fit: Fit[int] | None, a: int, b: int) -> float:
    """Chance (normal approximation) that the fitted order of ``a`` and ``b`` is wrong."""
    if fit is None or a not in fit.entrants or b not in fit.entrants:
        return 0.5
    i, j = fit.entrants.index(a), fit.entrants.index(b)
    sd = fit.difference_sd(i, j)
    if sd == 0.0:
        return 0.5
    z = abs(float(fit.theta[i] - fit.theta[j])) / sd
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def top_up(
    *,
    entrants: Sequence[Candidate],
    queued: Sequence[Collection[int]],
    fit: Fit[int] | None,
    depth: int,
    table_size: int,
    rng: random.Random,
) -> list[list[int]]:
    """The tables that top the ladder's queue up to ``depth`` pending matches, ``queued``
    (each its entrants). An entrant's ``capacity`` here is the most pending matches it may
    have (``MAX_PENDING_PER_BOT`` on the ladder): its queued ones take from it, and a
    queued pair's matches lower its priority (:func:`discounted`)."""
    free = depth - len(queued)
    if free <= 0:
        return []
    busy = Counter(bot for table in queued for bot in set(table))
    candidates = [dataclasses.replace(c, capacity=c.capacity - busy[c.bot])
                  for c in entrants if busy[c.bot] < c.capacity]  # fmt: skip
    return plan_tables(candidates=candidates, fit=fit, pending=meetings_of(queued),
                       table_size=table_size, count=free, rng=rng)  # fmt: skip


def plan_tables(
    *,
    candidates: Sequence[Candidate],
    fit: Fit[int] | None,
    pending: Mapping[tuple[int, int], int],
    table_size: int,
    count: int,
    rng: random.Random,
) -> list[list[int]]:
    """Up to ``count`` tables of ``table_size`` entrants (seat order shuffled); ``pending``:
    per pair (:func:`pair_key`), its matches already queued and not yet in ``fit``."""
    if table_size < 2:
        raise ValueError("a table needs at least two entrants")
    bots = [c.bot for c in candidates]
    position = {bot: k for k, bot in enumerate(bots)}
    # pair priorities as n × n matrices: a ladder of 1,000 bots has 500,000 pairs, too many
    # to score one Python call at a time (issue 35: 15 s per top-up)
    doubt = order_uncertainties(fit, bots, resolution=RESOLUTION_ELO / ELO_PER_NATURAL)
    doubt *= neighbour_chances(fit, bots, rng)
    waiting = np.zeros_like(doubt)  # pending, then also the matches planned in this call
    for (a, b), times in pending.items():
        if a in position and b in position:
            waiting[position[a], position[b]] = waiting[position[b], position[a]] = times
    # two candidates may share a table unless one author has both (None: a code of its own)
    authors = np.array([-1 - k if c.author is None else c.author
                        for k, c in enumerate(candidates)], dtype=np.int64)  # fmt: skip
    joined: Counter[int] = Counter()

    def priority(a: int, b: int) -> float:
        i, j = position[a], position[b]
        return float(discounted(doubt[i, j], waiting[i, j]))

    def table_priority(table: Sequence[Candidate]) -> tuple[float, float]:
        pairs = itertools.combinations(table, 2)
        return sum(priority(a.bot, b.bot) for a, b in pairs), rng.random()

    tables: list[list[int]] = []
    for _ in range(count):
        free = [c for c in candidates if joined[c.bot] < c.capacity]
        new = [c for c in free if c.version_games + joined[c.bot] < NEW_VERSION_GAMES]
        seated = []  # the new version with the fewest games first, the rest by priority
        if new:
            seated.append(min(new, key=lambda c: (c.version_games + joined[c.bot], rng.random())))
        others = [c for c in free if c not in seated and all(apart(c, s) for s in seated)]
        if len(seated) + len(others) < table_size:
            break
        if math.comb(len(others), table_size - len(seated)) <= MAX_TABLES_SCORED:
            allowed = [
                [*seated, *t] for t in itertools.combinations(others, table_size - len(seated))
                if all(apart(a, b) for a, b in itertools.combinations(t, 2))
            ]  # fmt: skip
            if not allowed:
                break
            seated = max(allowed, key=table_priority)
        elif not seated:
            priorities = discounted(doubt, waiting)
            best_pair = _best_pair([position[c.bot] for c in free], priorities, authors, rng)
            if best_pair is None:
                break
            seated = [free[best_pair[0]], free[best_pair[1]]]
        while len(seated) < table_size:
            rest = [c for c in free if c not in seated and all(apart(c, s) for s in seated)]
            if not rest:
                break
            gains = [(sum(priority(s.bot, x.bot) for s in seated), rng.random()) for x in rest]
            seated.append(rest[gains.index(max(gains))])
        if len(seated) < table_size:  # nobody left who may join this table
            break
        table = [c.bot for c in seated]
        rng.shuffle(table)
        tables.append(table)
        for bot in table:
            joined[bot] += 1
        for a, b in itertools.combinations(table, 2):
            waiting[position[a], position[b]] += 1
            waiting[position[b], position[a]] += 1
    return tables


def discounted(doubt: NDArray[np.float64], pending: NDArray[np.float64]) -> NDArray[np.float64]:
    """Pairs' priorities (matrices, or one pair's entries): their ``doubt`` divided by
    ``√(1 + pending)``, their matches queued or planned whose results the fit does not know
    yet.

    A planned match leaves the pair in doubt until its result is in, so it should not take
    the pair's whole claim; but dividing by ``1 + pending`` (before issue 34) spread the
    matches planned in one call over too many pairs: the benchmark's model of the ladder then
    planned four at a time, and planning them one at a time needed 9 % fewer deals in Badugi's
    passive variants. Of the powers of ``1 + pending`` measured (0, ¼, ½, ¾, 1; see
    docs/ranking.md), ½ needed the fewest deals."""
    return np.asarray(doubt / np.sqrt(1.0 + pending), dtype=np.float64)


def order_uncertainties(
    fit: Fit[int] | None, bots: Sequence[int], *, resolution: float = 0.0
) -> NDArray[np.float64]:
    """:func:`order_uncertainty` of every pair of ``bots`` at once, as a matrix (the diagonal
    is meaningless); 0 for a pair whose difference has a standard error below ``resolution``
    (natural scale): their order is not worth more matches."""
    out = np.full((len(bots), len(bots)), 0.5)
    if fit is None:
        return out
    index = {entrant: k for k, entrant in enumerate(fit.entrants)}
    known = [k for k, bot in enumerate(bots) if bot in index]
    rows = np.array([index[bots[k]] for k in known], dtype=np.intp)
    covariance = fit.covariance[np.ix_(rows, rows)]
    variance = np.diag(covariance)
    sd = np.sqrt(np.maximum(variance[:, None] + variance[None, :] - 2.0 * covariance, 0.0))
    theta = fit.theta[rows]
    gap = np.abs(theta[:, None] - theta[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        wrong = 0.5 * erfc(gap / sd / math.sqrt(2.0))
    wrong = np.where(sd == 0.0, 0.5, wrong)
    out[np.ix_(known, known)] = np.where((sd < resolution) & (sd > 0.0), 0.0, wrong)
    return out


def neighbour_chances(
    fit: Fit[int] | None, bots: Sequence[int], rng: random.Random
) -> NDArray[np.float64]:
    """For every pair of ``bots``, the chance that they are neighbours in the true order:
    the share of :data:`ORDER_SAMPLES` draws of the strengths from the fit's normal posterior
    in which they are (bots without a result drawn from the fit's prior). Without a fit every
    pair has the same chance (1: only the products' ratios matter); the diagonal is 0."""
    n = len(bots)
    if fit is None:
        return np.ones((n, n)) - np.eye(n)
    generator = np.random.default_rng(rng.getrandbits(64))
    index = {entrant: k for k, entrant in enumerate(fit.entrants)}
    known = [k for k, bot in enumerate(bots) if bot in index]
    rows = np.array([index[bots[k]] for k in known], dtype=np.intp)
    draws = generator.normal(0.0, math.sqrt(1.0 / DEFAULT_ALPHA), size=(ORDER_SAMPLES, n))
    if known:
        noise = generator.standard_normal((ORDER_SAMPLES, len(known)))
        draws[:, known] = fit.theta[rows] + noise @ _root(fit.covariance[np.ix_(rows, rows)]).T
    order = np.argsort(draws, axis=1)
    adjacent = np.bincount((order[:, :-1] * n + order[:, 1:]).ravel(), minlength=n * n)
    chances = adjacent.reshape(n, n).astype(np.float64)
    return (chances + chances.T) / ORDER_SAMPLES


def _root(covariance: NDArray[np.float64]) -> NDArray[np.float64]:
    """A matrix ``L`` with ``L Lᵀ`` = ``covariance`` (centred strengths: singular, so Cholesky
    gets a jitter far below any strength's variance, and an eigendecomposition if even that
    fails)."""
    n = len(covariance)
    jitter = 1e-10 * max(float(np.trace(covariance)) / max(n, 1), 1e-12)
    try:
        root = np.linalg.cholesky(covariance + jitter * np.eye(n))
    except np.linalg.LinAlgError:
        values, vectors = np.linalg.eigh(covariance)
        root = vectors * np.sqrt(np.clip(values, 0.0, None))
    return np.asarray(root, dtype=np.float64)


def _best_pair(
    free: Sequence[int], priorities: NDArray[np.float64], authors: NDArray[np.int64],
    rng: random.Random,
) -> tuple[int, int] | None:  # fmt: skip
    """Indexes into ``free`` (positions of candidates) of the pair of highest priority that
    may share a table, ties broken at random; None when no pair may."""
    at = np.asarray(free, dtype=np.intp)
    values = priorities[np.ix_(at, at)]
    allowed = np.triu(authors[at][:, None] != authors[at][None, :], k=1)
    values = np.where(allowed, values, -np.inf)
    best = values.max(initial=-np.inf)
    if best == -np.inf:
        return None
    ties = np.argwhere(values == best)
    i, j = ties[rng.randrange(len(ties))]
    return int(i), int(j)
