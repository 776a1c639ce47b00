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
    uncertainty = {
        pair_key(a.bot, b.bot): order_uncertainty(fit, a.bot, b.bot)
        for a, b in itertools.combinations(candidates, 2)
    }
    planned: Counter[tuple[int, int]] = Counter()
    joined: Counter[int] = Counter()

    def priority(a: int, b: int) -> float:
        key = pair_key(a, b)
        return uncertainty[key] / (1 + meetings.get(key, 0) + planned[key])

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
            pairs: list[tuple[Candidate, Candidate]] = [
                p for p in itertools.combinations(free, 2) if apart(*p)
            ]
            if not pairs:
                break
            first, second = max(pairs, key=lambda p: (priority(p[0].bot, p[1].bot), rng.random()))
            seated = [first, second]
        while len(seated) < table_size:
            rest = [c for c in free if c not in seated and all(apart(c, s) for s in seated)]
            if not rest:
                break
            seated.append(
                max(rest, key=lambda x: (sum(priority(s.bot, x.bot) for s in seated),
                                         rng.random()))  # fmt: skip
            )
        if len(seated) < table_size:  # nobody left who may join this table
            break
        table = [c.bot for c in seated]
        rng.shuffle(table)
        tables.append(table)
        for bot in table:
            joined[bot] += 1
        for a, b in itertools.combinations(table, 2):
            planned[pair_key(a, b)] += 1
    return tables
