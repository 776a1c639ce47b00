"""Which entrants sit at which table, in which seats, in a round-robin tournament.

Pure and standard-library only: the caller maps entrant indices ``0..n-1`` to bots and each table's
seat order to the game's seats. A schedule is deterministic for a given ``seed`` (the module never
touches the global random state).

Two seats (Belote/Bauer teams, heads-up Badugi) -- exact guarantees, by construction:

* every pair of entrants meets exactly once per round (``C(n, 2)`` tables a round). A round is
  built with the circle method as ``n - 1`` (``n`` even) or ``n`` (``n`` odd) slots of ``n // 2``
  consecutive tables that share no entrant, so parallel workers rarely wait for the same bot;
* first seats: within a round every entrant has ``(n-1)/2`` first seats (``n`` odd) or
  ``n/2 - 1`` or ``n/2`` (``n`` even); every second round mirrors the one before, so over an even
  number of rounds every pair plays both seat orders equally often, and over any number of rounds
  first-seat counts differ by at most 1.

Three or more seats (Barbu 4, Badugi 3-6): ``tables_per_round = ceil(C(n, 2) / C(k, 2))``, the
fewest tables in which every pair could meet once. Over the whole tournament:

* (a) play counts: every entrant plays ``floor`` or ``ceil`` of ``k * tables / n`` tables (fixed
  first; the search below only swaps entrants, which keeps them);
* (c) seats: every entrant's counts of the ``k`` seats differ by at most 1. Always possible:
  de Werra's theorem on equitable edge-colourings of bipartite graphs, made constructive here
  with alternating-path swaps;
* (d) no table holds the same entrant twice;
* (b) pairs: the most and the least frequent pair differ by at most 2 meetings, and by at most 1
  where the search finds such a schedule (small ``n`` mostly). This is the result of a search,
  checked by the tests for every ``n`` up to 64 (``k = 4``: 1-3 rounds, ``k = 3, 5, 6``: 1-2
  rounds), not a theorem. "At most 1" cannot be promised: often no schedule has it. With ``k = 4``
  and one round of ``n = 8``, 5 tables give 40 seats, so some entrant plays 2 tables, meets at
  most 6 of its 7 opponents and misses one, while 30 meetings among 28 pairs make some pair meet
  twice: a spread of 2. That counting argument rules out "at most 1" for most ``n`` with one
  round (see :func:`pair_spread_floor`). Where it does not, "at most 1" may still need a
  combinatorial design: when ``C(k, 2) * tables`` is a multiple of ``C(n, 2)`` every pair must
  meet equally often, a balanced block design (with one round and ``k = 4``, a Steiner system
  S(2, 4, n), which exists only for ``n`` = 1 or 4 modulo 12 and is hard to find by search;
  S(2, 6, 16), S(2, 6, 21) and S(2, 6, 46) do not exist at all).

The method for ``k >= 3``: fix every entrant's play count (the seed picks who plays the extra
table), deal the seats out at random, then a local search swaps entrants between tables to lower
the sum of squared pair counts (whose minimum, for their fixed total, is the most even spread),
aimed at the pairs whose count lies outside a target window: first a spread-2 window, then, with a
smaller budget, the spread-1 window unless counting rules it out. Then the seats are balanced and
the tables ordered so that each entrant's tables are spread out (good for parallel workers).
"""

from __future__ import annotations

import random
from collections import deque
from math import comb
from typing import NamedTuple

MAX_ENTRANTS = 64

_FALLBACK_STEPS_PER_PAIR = 60
"""Search budget for the guaranteed window (pair spread <= 2): far more than it ever needs."""
_NARROW_STEPS_PER_PAIR = 4
"""Search budget for the narrow window (spread <= 1), which may not exist: keeps n=64 fast."""
_CANDIDATES = 16
"""Swaps sampled per search step; the best is taken if it does not worsen the sum of squares."""
_ORDER_WINDOW = 16
"""How many of the remaining tables are considered for the next place in the table order."""


class ScheduleError(ValueError):
    """A clear message for the tournament's creator."""


def tables_per_round(n_entrants: int, table_size: int) -> int:
    """``C(n, 2)`` for two seats, else the fewest tables in which every pair could meet once."""
    _check(n_entrants, table_size, rounds=1)
    pairs = comb(n_entrants, 2)
    return pairs if table_size == 2 else -(-pairs // comb(table_size, 2))


def round_robin_tables(
    n_entrants: int, table_size: int, rounds: int = 1, *, seed: int = 0
) -> list[list[int]]:
    """Tables of a round-robin tournament; each table lists entrant indices (0..n-1) in seat
    order. Raises :class:`ScheduleError` for impossible sizes."""
    _check(n_entrants, table_size, rounds)
    rng = random.Random(seed)
    if table_size == 2:
        return _pairings(n_entrants, rounds, rng)
    n_tables = rounds * tables_per_round(n_entrants, table_size)
    plays = _play_counts(n_entrants, n_tables * table_size, rng)
    tables = _deal(plays, n_tables, table_size, rng)
    tables = _balance_pairs(n_entrants, table_size, tables, rng)
    _balance_seats(n_entrants, table_size, tables)
    return _spread_order(n_entrants, tables)


def pair_spread_floor(n_entrants: int, table_size: int, rounds: int = 1) -> int:
    """0, 1 or 2: a lower bound on max - min of the pair counts of any schedule with ``k >= 3``
    seats whose play counts differ by at most 1, from counting alone (2 means "at most 1" is
    impossible). 0 or 1 does not promise that such a schedule exists."""
    _check(n_entrants, table_size, rounds)
    n_tables = rounds * tables_per_round(n_entrants, table_size)
    windows = _pair_windows(n_entrants, table_size, n_tables)
    if not windows.possible:
        return 2
    return windows.narrow[1] - windows.narrow[0]


# --- validation -------------------------------------------------------------------------------


def _check(n_entrants: int, table_size: int, rounds: int) -> None:
    if table_size < 2:
        raise ScheduleError(f"a table needs at least 2 seats, not {table_size}")
    if rounds < 1:
        raise ScheduleError(f"a tournament needs at least 1 round, not {rounds}")
    if n_entrants < table_size:
        missing = table_size - n_entrants
        raise ScheduleError(
            f"{n_entrants} {_bots(n_entrants)} cannot fill a table of {table_size} seats: "
            f"add at least {missing} more {_bots(missing)}"
        )
    if n_entrants > MAX_ENTRANTS:
        extra = n_entrants - MAX_ENTRANTS
        raise ScheduleError(
            f"{n_entrants} bots are more than the {MAX_ENTRANTS} a tournament allows: "
            f"remove at least {extra} {_bots(extra)}"
        )


def _bots(count: int) -> str:
    return "bot" if count == 1 else "bots"


# --- two seats: the circle method -------------------------------------------------------------


def _pairings(n_entrants: int, rounds: int, rng: random.Random) -> list[list[int]]:
    """Every pair once a round, in circle-method slots; odd rounds mirror the round before."""
    label = list(range(n_entrants))
    rng.shuffle(label)  # which bot gets the extra first seat is left to the seed
    one_round = [(label[a], label[b]) for a, b in _circle_round(n_entrants)]
    return [
        [first, second] if number % 2 == 0 else [second, first]
        for number in range(rounds)
        for first, second in one_round
    ]


def _circle_round(n_entrants: int) -> list[tuple[int, int]]:
    """All pairs ``(first, second)`` of one round, slot by slot (a slot is a matching).

    Entrants ``0..m-1`` (``m`` odd) stand on a circle; in slot ``s`` the entrants at equal
    distance from ``s`` meet, and ``s`` meets entrant ``m`` if ``n`` is even, else sits out.
    ``a`` sits first against ``b`` when ``b`` is 1..(m-1)/2 steps clockwise of ``a``: a regular
    tournament, everyone first (m-1)/2 times. Against entrant ``m`` the odd ones sit first,
    (n-2)/2 of them, so first-seat counts are n/2 - 1 or n/2.
    """
    m = n_entrants if n_entrants % 2 else n_entrants - 1
    pairs: list[tuple[int, int]] = []
    for slot in range(m):
        if m < n_entrants:
            extra = m
            pairs.append((slot, extra) if slot % 2 else (extra, slot))
        for step in range(1, (m - 1) // 2 + 1):
            a, b = (slot + step) % m, (slot - step) % m
            pairs.append((a, b) if (b - a) % m <= (m - 1) // 2 else (b, a))
    return pairs


# --- three or more seats: tables ----------------------------------------------------------------


def _play_counts(n_entrants: int, seats: int, rng: random.Random) -> list[int]:
    """``seats`` spread evenly; the seed decides who plays the extra table."""
    base, extra = divmod(seats, n_entrants)
    plays = [base] * n_entrants
    for entrant in rng.sample(range(n_entrants), extra):
        plays[entrant] += 1
    return plays


def _deal(plays: list[int], n_tables: int, size: int, rng: random.Random) -> list[list[int]]:
    """Random tables with the given play counts: shuffled passes over the entrants cut into
    tables, then swaps that remove an entrant seated twice where a table spans two passes."""
    seats: list[int] = []
    for number in range(max(plays)):
        batch = [entrant for entrant, count in enumerate(plays) if count > number]
        rng.shuffle(batch)
        seats.extend(batch)
    tables = [seats[i * size : (i + 1) * size] for i in range(n_tables)]
    for here, table in enumerate(tables):
        for position, entrant in enumerate(table):
            if table.index(entrant) != position:
                _move_duplicate(tables, here, position, rng)
    return tables


def _move_duplicate(tables: list[list[int]], here: int, position: int, rng: random.Random) -> None:
    """Swap ``tables[here][position]`` with a seat of another table where neither is present.

    One always exists: an entrant plays at most ``ceil(k * tables / n) <= tables`` tables."""
    entrant = tables[here][position]
    order = list(range(len(tables)))
    rng.shuffle(order)
    for there in order:
        other = tables[there]
        if entrant in other:
            continue
        for slot, candidate in enumerate(other):
            if candidate not in tables[here]:
                other[slot], tables[here][position] = entrant, candidate
                return
    raise AssertionError("no swap removes a duplicate seat")  # pragma: no cover


# --- three or more seats: pair balance ----------------------------------------------------------

_Window = tuple[int, int]


class _Windows(NamedTuple):
    narrow: _Window
    """``[floor, ceil]`` of the mean pair count: the ideal, a spread of at most 1."""
    possible: bool
    """False when counting alone rules the narrow window out."""
    fallbacks: list[_Window]
    """Spread-2 windows to settle for, the likelier first."""


def _pair_windows(n_entrants: int, size: int, n_tables: int) -> _Windows:
    """Target ranges of pair counts for the search.

    With play counts ``p`` in {floor, ceil} of ``k * tables / n`` an entrant has ``(k-1) p``
    meetings to share among ``n - 1`` opponents; the narrow window needs that to fit in
    ``[lo, hi]`` meetings per opponent for both values of ``p``. At most one side can fail
    (``k <= n``), so a spread of 2 is never ruled out this way.
    """
    pairs, meetings = comb(n_entrants, 2), n_tables * comb(size, 2)
    lo, hi = meetings // pairs, -(-meetings // pairs)
    seats = n_tables * size
    fewest, most = seats // n_entrants, -(-seats // n_entrants)
    if lo == hi:  # every pair would meet exactly lo times: a balanced design
        return _Windows((lo, hi), fewest == most, [(lo - 1, hi + 1)])
    if (size - 1) * fewest < lo * (n_entrants - 1):  # some entrant cannot meet everyone lo times
        return _Windows((lo, hi), False, [(lo - 1, hi)])
    if (size - 1) * most > hi * (n_entrants - 1):
        return _Windows((lo, hi), False, [(lo, hi + 1)])
    below, above = (lo - 1, hi), (lo, hi + 1)
    near_lo = 2 * meetings < (lo + hi) * pairs
    return _Windows((lo, hi), True, [below, above] if near_lo else [above, below])


def _balance_pairs(
    n_entrants: int, size: int, tables: list[list[int]], rng: random.Random
) -> list[list[int]]:
    """Search for a spread-2 window, then for the narrow one (even where it is impossible: on the
    way there fewer pairs sit at the extremes); keep the better schedule."""
    windows = _pair_windows(n_entrants, size, len(tables))
    pairs = comb(n_entrants, 2)
    search = _PairSearch(n_entrants, size, tables, rng)
    for window in windows.fallbacks:
        if search.run(window, _FALLBACK_STEPS_PER_PAIR * pairs):
            break
    if search.spread() <= 1:
        return search.tables
    saved = [list(table) for table in search.tables]
    saved_spread = search.spread()
    search.run(windows.narrow, _NARROW_STEPS_PER_PAIR * pairs)
    return search.tables if search.spread() <= saved_spread else saved


class _Bag:
    """A set with O(1) add, discard and random choice."""

    def __init__(self) -> None:
        self.items: list[int] = []
        self._position: dict[int, int] = {}

    def add(self, item: int) -> None:
        if item not in self._position:
            self._position[item] = len(self.items)
            self.items.append(item)

    def discard(self, item: int) -> None:
        position = self._position.pop(item, None)
        if position is None:
            return
        last = self.items.pop()
        if position < len(self.items):
            self.items[position] = last
            self._position[last] = position


class _PairSearch:
    """Swaps of two entrants between two tables that never raise the sum of squared pair counts
    (whose minimum, for a fixed total, is the most even spread), each aimed at a pair whose count
    lies outside the target window: join a pair that meets too rarely, split one that meets too
    often. Sideways moves are accepted, so the search walks across plateaus."""

    def __init__(self, n: int, size: int, tables: list[list[int]], rng: random.Random) -> None:
        self.n, self.size, self.tables, self.rng = n, size, tables, rng
        self.count = [0] * (n * n)  # count[a * n + b]: how often a and b meet, kept symmetric
        self.where: list[set[int]] = [set() for _ in range(n)]
        for index, table in enumerate(tables):
            for a in table:
                self.where[a].add(index)
                for b in table:
                    if a != b:
                        self.count[a * n + b] += 1
        self.low, self.high = _Bag(), _Bag()
        self.window = (0, 0)

    def spread(self) -> int:
        n = self.n
        counts = [self.count[a * n + b] for a in range(n) for b in range(a + 1, n)]
        return max(counts) - min(counts)

    def run(self, window: _Window, max_steps: int) -> bool:
        """Search until every pair count is inside ``window``; False if the steps ran out."""
        self.window = window
        self.low, self.high = _Bag(), _Bag()
        for a in range(self.n):
            for b in range(a + 1, self.n):
                self._classify(a, b)
        for _ in range(max_steps):
            if not self.low.items and not self.high.items:
                return True
            low, high, draw = self.low.items, self.high.items, self.rng.random
            if low and (not high or draw() < 0.5):
                move = self._join(low[int(draw() * len(low))])
            else:
                move = self._split(high[int(draw() * len(high))])
            if move is not None:
                self._swap(*move)
        return not self.low.items and not self.high.items

    def _classify(self, a: int, b: int) -> None:
        key = a * self.n + b if a < b else b * self.n + a
        count = self.count[key]
        if count < self.window[0]:
            self.low.add(key)
        else:
            self.low.discard(key)
        if count > self.window[1]:
            self.high.add(key)
        else:
            self.high.discard(key)

    def _join(self, key: int) -> tuple[int, int, int, int] | None:
        """The best sampled swap that moves ``a`` from one of its tables to a table of ``b``."""
        a, b = self._ends(key)
        tables, where, size, draw = self.tables, self.where, self.size, self.rng.random
        mine = list(where[a])
        theirs = [index for index in where[b] if index not in where[a]]
        if not theirs:
            return None
        best, best_delta = None, 1
        for _ in range(_CANDIDATES):  # int(draw() * n) is randrange(n), several times faster
            there = theirs[int(draw() * len(theirs))]
            here = mine[int(draw() * len(mine))]
            other = tables[there][int(draw() * size)]
            if other == b or here in where[other]:
                continue
            delta = self._delta(a, here, other, there)
            if delta < best_delta:
                best, best_delta = (a, here, other, there), delta
        return best

    def _split(self, key: int) -> tuple[int, int, int, int] | None:
        """The best sampled swap that moves ``a`` away from a table it shares with ``b``."""
        a, b = self._ends(key)
        tables, where, size, draw = self.tables, self.where, self.size, self.rng.random
        shared = [index for index in where[a] if index in where[b]]
        best, best_delta = None, 1
        for _ in range(_CANDIDATES):
            here = shared[int(draw() * len(shared))]
            there = int(draw() * len(tables))
            if there in where[a]:
                continue
            other = tables[there][int(draw() * size)]
            if here in where[other]:
                continue
            delta = self._delta(a, here, other, there)
            if delta < best_delta:
                best, best_delta = (a, here, other, there), delta
        return best

    def _ends(self, key: int) -> tuple[int, int]:
        a, b = divmod(key, self.n)
        return (a, b) if self.rng.random() < 0.5 else (b, a)

    def _delta(self, x: int, here: int, y: int, there: int) -> int:
        """Half the change of the sum of squared pair counts if ``x`` (at table ``here``) and
        ``y`` (at ``there``) swap: x leaves its partners at ``here`` to y and takes y's."""
        count, n = self.count, self.n
        here_table, there_table = self.tables[here], self.tables[there]
        delta = 0
        for u in here_table:
            if u != x and u not in there_table:
                delta += count[y * n + u] - count[x * n + u] + 1
        for w in there_table:
            if w != y and w not in here_table:
                delta += count[x * n + w] - count[y * n + w] + 1
        return delta

    def _swap(self, x: int, here: int, y: int, there: int) -> None:
        here_table, there_table = self.tables[here], self.tables[there]
        for u in here_table:
            if u != x and u not in there_table:
                self._add(x, u, -1)
                self._add(y, u, 1)
        for w in there_table:
            if w != y and w not in here_table:
                self._add(y, w, -1)
                self._add(x, w, 1)
        here_table[here_table.index(x)] = y
        there_table[there_table.index(y)] = x
        self.where[x].remove(here)
        self.where[x].add(there)
        self.where[y].remove(there)
        self.where[y].add(here)

    def _add(self, a: int, b: int, change: int) -> None:
        self.count[a * self.n + b] += change
        self.count[b * self.n + a] += change
        self._classify(a, b)


# --- three or more seats: seats and order -------------------------------------------------------


def _balance_seats(n_entrants: int, size: int, tables: list[list[int]]) -> None:
    """Reorder every table so each entrant's seat counts differ by at most 1.

    Greedy first (each seat to the member who has sat there least), then de Werra's repair:
    while an entrant ``v`` has seat ``a`` at least twice more than seat ``b``, find a path
    v -(a)- table -(b)- w -(a)- table ... ending at an entrant ``u`` with more ``b`` than ``a``
    seats, and swap seats a and b at every table on it. Inner entrants keep their counts, ``v``
    and ``u`` move towards balance, so the sum of squared seat counts falls and the loop ends.
    """
    seat_count = [[0] * size for _ in range(n_entrants)]
    for table in tables:
        free = list(table)
        for seat in range(size):
            member = min(free, key=lambda entrant: seat_count[entrant][seat])
            free.remove(member)
            table[seat] = member
            seat_count[member][seat] += 1
    where: list[list[int]] = [[] for _ in range(n_entrants)]
    for index, table in enumerate(tables):
        for entrant in table:
            where[entrant].append(index)
    for entrant in range(n_entrants):  # a repair never widens another entrant's spread
        counts = seat_count[entrant]
        while max(counts) - min(counts) >= 2:
            _reseat_path(entrant, counts.index(max(counts)), counts.index(min(counts)),
                         tables, where, seat_count)  # fmt: skip


def _reseat_path(
    start: int,
    a: int,
    b: int,
    tables: list[list[int]],
    where: list[list[int]],
    seat_count: list[list[int]],
) -> None:
    """Breadth-first search for the alternating path of :func:`_balance_seats`, then the swaps.

    The end exists: the entrants reachable from ``start`` hold seat ``b`` at every table where
    one of them holds seat ``a``, so together they hold ``b`` at least as often as ``a``, and
    ``start`` holds ``a`` at least twice more."""
    parent: dict[int, tuple[int, int]] = {start: (start, -1)}
    queue = deque([start])
    while queue:
        entrant = queue.popleft()
        if entrant != start and seat_count[entrant][b] > seat_count[entrant][a]:
            break
        for index in where[entrant]:
            table = tables[index]
            if table[a] == entrant and table[b] not in parent:
                parent[table[b]] = (entrant, index)
                queue.append(table[b])
    else:
        raise AssertionError("no alternating path balances the seats")  # pragma: no cover
    end = entrant
    seat_count[end][a] += 1
    seat_count[end][b] -= 1
    seat_count[start][a] -= 1
    seat_count[start][b] += 1
    while entrant != start:
        previous, index = parent[entrant]
        table = tables[index]
        table[a], table[b] = table[b], table[a]
        entrant = previous


def _spread_order(n_entrants: int, tables: list[list[int]]) -> list[list[int]]:
    """Order the tables so each entrant's are spread out: the next table is, among the next few
    remaining, the one whose members have waited longest since they last played."""
    last_played = [-len(tables)] * n_entrants
    remaining = list(tables)
    ordered: list[list[int]] = []
    while remaining:
        window = remaining[:_ORDER_WINDOW]
        position = len(ordered)
        pick = max(range(len(window)), key=lambda i: _waits(window[i], last_played, position))
        table = remaining.pop(pick)
        for entrant in table:
            last_played[entrant] = position
        ordered.append(table)
    return ordered


def _waits(table: list[int], last_played: list[int], position: int) -> tuple[int, int]:
    """The shortest and the total wait of a table's members (larger is better)."""
    waits = [position - last_played[entrant] for entrant in table]
    return min(waits), sum(waits)
