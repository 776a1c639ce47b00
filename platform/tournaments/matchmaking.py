"""Uncertainty-driven choice of the next ladder matches: pure functions, no database.

A ladder learns most from a match whose result it cannot yet predict between entrants whose
order it is not yet sure of. For two entrants ``a`` and ``b`` the fitted strengths
(``ratings.strength``) give a difference ``Δ`` with standard error ``s``; under the normal
approximation the chance that their fitted order is wrong is ``Φ(−|Δ| / s)`` (½ when either has
no result yet). A pair's priority is that chance divided by ``1 + meetings``: overlapping
intervals first, and among them the pairs that met least, so two bots of equal strength do not
absorb every match. A table's priority is the sum over its pairs: the best table is chosen
among all possible ones while there are at most ``MAX_TABLES_SCORED`` (every heads-up pair up to
100 bots, every Barbu table up to 20), otherwise it is grown from the best pair, adding each time
the entrant with the highest summed priority against those already seated.

New versions come first: any entrant whose current version has played fewer than
``NEW_VERSION_GAMES`` games (counting the matches planned in this call) is seated before the
priorities are consulted, with the opponents it is least sure about, so a fresh upload gets its
first games at once.

No table seats two entrants of one author (Halite's rule: a bot could lose on purpose to its
sibling, or soft-play a table to its sibling's profit); candidates without an author (the
house's reference bots) are exempt.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.special import erfc

from ratings.strength import Fit

NEW_VERSION_GAMES = 5
#: up to this many possible tables, every one is scored; beyond, tables grow from the best pair
MAX_TABLES_SCORED = 5_000


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


def meetings_of(tables: Sequence[Sequence[int]]) -> Counter[tuple[int, int]]:
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


def plan_tables(
    *,
    candidates: Sequence[Candidate],
    fit: Fit[int] | None,
    meetings: Mapping[tuple[int, int], int],
    table_size: int,
    count: int,
    rng: random.Random,
) -> list[list[int]]:
    """Up to ``count`` tables of ``table_size`` entrants (seat order shuffled)."""
    if table_size < 2:
        raise ValueError("a table needs at least two entrants")
    bots = [c.bot for c in candidates]
    position = {bot: k for k, bot in enumerate(bots)}
    # pair priorities as n × n matrices: a ladder of 1,000 bots has 500,000 pairs, too many
    # to score one Python call at a time (issue 35: 15 s per top-up)
    uncertainty = order_uncertainties(fit, bots)
    met = np.zeros_like(uncertainty)
    for (a, b), times in meetings.items():
        if a in position and b in position:
            met[position[a], position[b]] = met[position[b], position[a]] = times
    planned = np.zeros_like(uncertainty)
    # two candidates may share a table unless one author has both (None: a code of its own)
    authors = np.array([-1 - k if c.author is None else c.author
                        for k, c in enumerate(candidates)], dtype=np.int64)  # fmt: skip
    joined: Counter[int] = Counter()

    def priority(a: int, b: int) -> float:
        i, j = position[a], position[b]
        return float(uncertainty[i, j] / (1 + met[i, j] + planned[i, j]))

    tables: list[list[int]] = []
    for _ in range(count):
        free = [c for c in candidates if joined[c.bot] < c.capacity]
        if len(free) < table_size:
            break
        new = [c for c in free if c.version_games + joined[c.bot] < NEW_VERSION_GAMES]
        if new:
            seated = [min(new, key=lambda c: (c.version_games + joined[c.bot], rng.random()))]
        elif math.comb(len(free), table_size) <= MAX_TABLES_SCORED:
            allowed = [
                t for t in itertools.combinations(free, table_size)
                if all(apart(a, b) for a, b in itertools.combinations(t, 2))
            ]  # fmt: skip
            if not allowed:
                break
            best = max(
                allowed,
                key=lambda t: (sum(priority(a.bot, b.bot) for a, b in itertools.combinations(t, 2)),
                               rng.random()),
            )  # fmt: skip
            seated = list(best)
        else:
            priorities = uncertainty / (1 + met + planned)
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
            planned[position[a], position[b]] += 1
            planned[position[b], position[a]] += 1
    return tables


def order_uncertainties(fit: Fit[int] | None, bots: Sequence[int]) -> NDArray[np.float64]:
    """:func:`order_uncertainty` of every pair of ``bots`` at once, as a matrix (the diagonal
    is meaningless)."""
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
    out[np.ix_(known, known)] = np.where(sd == 0.0, 0.5, wrong)
    return out


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
