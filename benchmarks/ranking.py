"""Ranking benchmark (issue 18): how fast and how surely ladders find the true order.

In-process with the engine's agents (no sandbox, no database); the platform's own pure modules
do the statistics: ``ratings.strength`` (Bradley–Terry / Plackett–Luce with bootstrap
intervals), ``ratings.elo`` and ``tournaments.matchmaking``. For each game and each family of
reference bots (``benchmarks/reference_bots.py``: five bots of known order) and each of
``--runs`` independent runs, matches are played until the fitted order is the true order and
every neighbour's order confidence is at least 95 % (one-sided), or until the horizon.
Reported, as medians over runs (``>N`` when more than half the runs did not get there):

- deals to that verdict with plain matches (one game, seats alternating, scored as one result)
  and with duplicate sets (every rotation of the same deals) scored board by board as the
  platform scores them (``engine.boards``: one finishing order per board for the fit, the board
  shares for Elo), with uniformly random pairing and with the ladder's uncertainty-driven
  matchmaking, and the ratios; and a control, plain games scored deal by deal (each deal its own
  finishing order by deal score), which separates what boards gain by finer granularity from
  what the duplicate deals gain by cancelling card luck; and with every deal's luck taken out
  (``engine.luck``), plain games scored deal by deal ("corrected") and duplicate sets scored by
  boards ("corrected + duplicate"; Badugi by totals in both, shared by their corrected margin,
  ``engine.margin_scale``);
- the score-margin calibration: per pair of neighbours, the deals a one-sided 95 % verdict on
  the mean score margin needs, plain and duplicate;
- coverage: the share of runs whose 95 % intervals never put a weaker bot wholly above a
  stronger one, at each checkpoint;
- Spearman correlation with the true order at the checkpoints (duplicate, random pairing) for
  Elo, the Bradley–Terry / Plackett–Luce fit and openskill's Plackett–Luce.

Matches are cached per (table, seed, rotation), and run ``r`` uses the same seeds for every
mode, so the comparisons are paired. ``--svg`` writes the plot of deals against the share of
runs with the right order for docs/ranking.md.

Run: ``python benchmarks/ranking.py --quick`` (under three minutes of CPU) or without ``--quick``
(all four games, both families, 20 runs; about three hours of CPU, see docs/ranking.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]

import numpy as np  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402

import engine  # noqa: E402
from benchmarks.reference_bots import (  # noqa: E402
    FAMILIES,
    BotSpec,
    family,
    make_agent,
    seed_of,
)
from engine import luck  # noqa: E402
from matches.results import (  # noqa: E402
    BotResult,
    Order,
    SeatResult,
    board_orders,
    board_shares,
    ranks_of,
)
from ratings.elo import DEFAULT_CONFIG, BotRating, rate_match  # noqa: E402
from ratings.strength import (  # noqa: E402
    DEFAULT_ALPHA,
    DEFAULT_RESAMPLES,
    Weighted,
    bootstrap,
    choices_from_matches,
    fit,
    order_confidence,
    rank,
)
from tournaments.ladder_limits import MAX_PENDING_PER_BOT  # noqa: E402
from tournaments.matchmaking import Candidate, top_up  # noqa: E402

Table = tuple[int, ...]
Result = list[Order]  # one match: one finishing order, or one (or two weighted) per board / deal


@dataclass(frozen=True)
class Setup:
    label: str
    game: str
    params: dict[str, Any]
    kind: str  # reference family: one of reference_bots.FAMILIES
    horizon: int  # matches per run at most
    checkpoints: tuple[int, ...] = (50, 200)  # coverage and Spearman, every run
    long_checkpoint: int | None = 1000  # also, in the first ``long_runs`` runs
    long_runs: int = 5
    runs: int | None = None  # overrides --runs (the slowest game)
    margin_matches: int = 150  # per neighbouring pair for the score-margin calibration


@dataclass
class Played:
    """One cached game: score per table position, the seats and deal scores boards need, and
    the table position of each seat; its luck (``engine.luck``) once a corrected mode asks."""

    scores: list[float]
    board_game: engine.BoardGame
    positions: list[int]
    state: engine.State
    corrected: engine.BoardGame | None = None

    def luck_corrected(self) -> engine.BoardGame:
        """The game with every deal's luck taken out of its scores (computed once)."""
        if self.corrected is None:
            deals = luck.corrected_deal_scores(self.board_game.deal_scores,
                                               luck.state_luck(self.state))  # fmt: skip
            self.corrected = engine.BoardGame(self.board_game.seats, deals)
        return self.corrected


@dataclass
class Pool:
    """Plays and caches games between reference bots: ``(table, seed, rotation)`` → the played
    game's scores per table position and deal scores."""

    game: engine.Game
    bots: list[BotSpec]
    cache: dict[tuple[Table, int, int], Played] = field(default_factory=dict)

    def __post_init__(self) -> None:
        layout = list(range(self.game.num_players))
        if self.game.teams:  # seat -> table position (team index)
            layout = [next(t for t, team in enumerate(self.game.teams) if s in team)
                      for s in layout]  # fmt: skip
        self.layout = layout
        self.rotations = self.game.duplicate_rotations()
        # one engine entrant per table position (a team's first seat): whose board place counts
        self.representatives = [layout.index(pos) for pos in range(max(layout) + 1)]

    @property
    def size(self) -> int:
        return max(self.layout) + 1

    def play(self, table: Table, seed: int, rotation: int) -> Played:
        key = (table, seed, rotation)
        if key not in self.cache:
            seat_map = self.rotations[rotation]  # seat -> engine entrant (seat it started in)
            positions = [self.layout[entrant] for entrant in seat_map]
            agents = [
                make_agent(self.game.name, self.bots[table[pos]], seed_of(seed, rotation, seat))
                for seat, pos in enumerate(positions)
            ]
            played = engine.play_game(self.game, agents, seed, seats=seat_map, index=rotation)
            scores = [0.0] * self.size
            for seat, value in enumerate(played.state.returns()):
                scores[positions[seat]] += value
            deal_scores = [record.scores for record in played.state.deals]
            self.cache[key] = Played(scores, engine.BoardGame(seat_map, deal_scores), positions,
                                     played.state)  # fmt: skip
        return self.cache[key]

    def match(
        self,
        table: Table,
        seed: int,
        meeting: int,
        *,
        duplicate: bool,
        by_deal: bool = False,
        corrected: bool = False,
    ) -> tuple[Result, int, list[float]]:
        """One match's finishing orders, deals and score per table position: all rotations
        scored board by board (Badugi: by their total, ``Game.scored_by_boards``), or the
        ``meeting``-th one scored as one result (``by_deal``: deal by deal, the control).
        ``corrected``: every deal's luck taken out of its scores (``engine.luck``), a plain
        game then scored deal by deal (Badugi: by its total). ``duplicate`` and ``by_deal``:
        every deal of every game of the set scored as its own result, those past the shortest
        game's included (one match still, so the bootstrap resamples whole sets)."""
        each_deal = duplicate and by_deal and self.game.scored_by_boards
        rotations = range(len(self.rotations)) if duplicate else [meeting % len(self.rotations)]
        played = [self.play(table, seed, r) for r in rotations]
        deals = sum(len(p.board_game.deal_scores) for p in played)
        games = [p.luck_corrected() if corrected else p.board_game for p in played]
        totals = [sum(column) for column in zip(*(p.scores for p in played), strict=True)]
        if corrected:
            totals = [0.0] * self.size
            for p, g in zip(played, games, strict=True):
                for deal in g.deal_scores:
                    for seat, value in enumerate(deal or ()):
                        totals[p.positions[seat]] += value
            by_deal = self.game.scored_by_boards
        teams = self.game.teams
        if corrected and not by_deal and engine.margin_scale(self.game, corrected=True):
            # a game scored by its total (Badugi): the corrected total shared by its margin
            board = [0.0] * self.game.num_players
            for position, entrant in enumerate(self.representatives):
                board[entrant] = totals[position]
            return self.board_orders(table, [board], corrected=True), deals, totals
        if not (by_deal or (duplicate and self.game.scored_by_boards)):
            places = engine.placings(totals)
            return [[(bot, place) for bot, place in zip(table, places, strict=True)]], deals, totals
        if each_deal:  # each game's deals, one by one
            scores = engine.deal_boards(games, teams=teams)
        else:
            scores = engine.board_scores(games, teams=teams)
        return self.board_orders(table, scores, corrected=corrected), deals, totals

    def board_orders(self, table: Table, boards: list[list[float]], *, corrected: bool) -> Result:
        """The boards as the platform rates them (``matches.results.board_orders``, shared by
        margin on ``engine.margin_scale``), one seat per table position."""
        seats = [SeatResult(bot, 0, 0.0, 0, False) for bot in table]
        scores = [[board[e] for e in self.representatives] for board in boards]
        scale = engine.margin_scale(self.game, corrected=corrected)
        return board_orders(seats, scores, scale=scale)


@dataclass
class Trace:
    """One run of one schedule: results and deals after each match."""

    results: list[Result] = field(default_factory=list)
    deals: list[int] = field(default_factory=list)  # cumulative


def confident_right_order(results: Sequence[Result], bots: int, seed: int) -> bool:
    """Fitted order is the true one (0 strongest) and each neighbour's order is one-sided 95 %."""
    choices = choices_from_matches(results, list(range(bots)))
    point = fit(choices)
    if list(np.argsort(-point.theta, kind="stable")) != list(range(bots)):
        return False
    return rank(results, entrants=list(range(bots)), seed=seed).confident_order(0.95)


def check_points(horizon: int) -> list[int]:
    """Match counts at which the stopping rule is checked: every match up to 20, then 4 % more."""
    points, n = [], 2
    while n <= horizon:
        points.append(n)
        n = n + 1 if n < 20 else max(n + 1, int(n * 1.04))
    return points


def run_schedule(
    pool: Pool,
    setup: Setup,
    run: int,
    *,
    duplicate: bool,
    choose: Callable[[Trace], Table],
    at_least: int = 0,
    by_deal: bool = False,
    corrected: bool = False,
) -> tuple[Trace, int | None]:
    """Play matches chosen by ``choose`` until the first confident right order (and at least
    ``at_least`` matches) or the horizon; the trace and the deals at the verdict (or None)."""
    trace = Trace()
    met: dict[Table, int] = {}
    found: int | None = None
    checks = set(check_points(setup.horizon))
    n_bots = len(pool.bots)
    while len(trace.results) < max(setup.horizon, at_least):
        table = choose(trace)
        k = met.get(table, 0)
        met[table] = k + 1
        result, deals, _ = pool.match(table, seed_of(setup.game, run, table, k), k,
                                      duplicate=duplicate, by_deal=by_deal,
                                      corrected=corrected)  # fmt: skip
        trace.results.append(result)
        trace.deals.append((trace.deals[-1] if trace.deals else 0) + deals)
        m = len(trace.results)
        if found is None and m in checks and confident_right_order(trace.results, n_bots, run):
            found = trace.deals[-1]
        if found is not None and m >= at_least:
            break
    return trace, found


def uniform_chooser(pool: Pool, run: int) -> Callable[[Trace], Table]:
    rng = random.Random(seed_of("uniform", run))
    tables = list(itertools.combinations(range(len(pool.bots)), pool.size))
    return lambda _trace: rng.choice(tables)


#: the match slots of docker-compose's worker (``ARENA_WORKER_CONCURRENCY``'s default), which
#: the ladder's queue depth follows (``tournaments.services.ladder_queue_depth``)
MODEL_MATCH_SLOTS = 2


def ladder_chooser(
    pool: Pool, run: int, depth: int = MODEL_MATCH_SLOTS, every: int | None = 1
) -> Callable[[Trace], Table]:
    """The ladder's scheduler, to the match (``tournaments.services.ladder_schedule``): a
    queue of pending tables, topped up as the ladder tops it up (``tournaments.matchmaking.
    top_up``: ``depth`` pending at most, ``MAX_PENDING_PER_BOT`` per bot, the queued pairs'
    matches lowering their priority) once ``every`` results have come in since the last
    top-up (None: only when the queue is empty), and when it is empty; its oldest table is
    played next.

    The defaults are the platform's: a queue as deep as the live workers' match slots (two),
    topped up after each result (``ladder_top_up_soon``). The model plays one match at a time
    in queue order, so a table is planned while the one before it still "runs", as on two
    workers; there a result can also come in while an older match still runs (the fit then
    lacks one result it would have here). ``every`` = None with a depth of 8 is the ladder as it
    was before: topped up by beat every 30 s, its queue emptied in between by fast matches."""
    rng = random.Random(seed_of("matchmaking", run))
    bots = list(range(len(pool.bots)))
    queue: list[Table] = []
    topped = 0  # results in at the last top-up

    def choose(trace: Trace) -> Table:
        nonlocal topped
        if queue and (every is None or len(trace.results) - topped < every):
            return queue.pop(0)
        topped = len(trace.results)
        tables = [[b for b, _ in ranks_of(r[0])] for r in trace.results]
        games = {b: sum(b in t for t in tables) for b in bots}
        current = fit(choices_from_matches(trace.results, bots)) if trace.results else None
        planned = top_up(
            entrants=[Candidate(b, games[b], MAX_PENDING_PER_BOT) for b in bots],
            queued=queue, fit=current, depth=depth, table_size=pool.size, rng=rng,
        )  # fmt: skip
        queue.extend(tuple(sorted(t)) for t in planned)
        return queue.pop(0)

    return choose


def oracle_chooser(pool: Pool, run: int) -> Callable[[Trace], Table]:
    """A yardstick for the matchmaking, not a platform mode: it knows the true order and, before
    every match, seats the table whose true neighbours the stopping rule doubts most (the sum
    of ``1 −`` their order confidence, :func:`neighbour_doubt`). No pairing that can only guess
    the order should need many fewer deals."""
    rng = random.Random(seed_of("oracle", run))
    bots = len(pool.bots)
    tables = list(itertools.combinations(range(bots), pool.size))

    def choose(trace: Trace) -> Table:
        doubt = neighbour_doubt(trace.results, bots, run)
        return max(tables, key=lambda t: (sum(doubt[b] for b in t if b + 1 in t), rng.random()))

    return choose


def neighbour_doubt(results: Sequence[Result], bots: int, seed: int) -> list[float]:
    """Per bot ``b`` (0 strongest): ``1 −`` the stopping rule's confidence that ``b`` is ahead
    of ``b + 1`` (the bootstrap with the stopping rule's seed, floored by the normal share); ½
    before any result. The last bot has no neighbour below: 0."""
    if not results:
        return [0.5] * (bots - 1) + [0.0]
    choices = choices_from_matches(results, list(range(bots)))
    boot = bootstrap(choices, resamples=DEFAULT_RESAMPLES, seed=seed, alpha=DEFAULT_ALPHA)
    point = fit(choices)
    return [1.0 - order_confidence(point, boot, b, b + 1) for b in range(bots - 1)] + [0.0]


def intervals_hold(results: Sequence[Result], bots: int, seed: int) -> bool:
    """No weaker bot's 95 % interval lies wholly above a stronger bot's."""
    ranking = rank(results, entrants=list(range(bots)), seed=seed)
    by_bot = {s.entrant: s for s in ranking.strengths}
    return not any(
        by_bot[weak].low > by_bot[strong].high
        for strong, weak in itertools.combinations(range(bots), 2)
    )


def spearman_scores(results: Sequence[Result], bots: int) -> dict[str, float]:
    """Spearman correlation of each method's order with the true one (bot 0 strongest), all on
    board-scored duplicate sets: Elo one update per set with the board shares (as the ladder),
    the fit one finishing order per board, openskill one update per board (it has no notion
    of a set)."""
    from openskill.models import PlackettLuce

    truth = [-b for b in range(bots)]
    elo: dict[int, BotRating] = {}
    model = PlackettLuce()
    skills = {b: model.rating() for b in range(bots)}
    for result in results:
        entrants = [BotResult(b, 1, 0.0, 0, 0) for b, _ in ranks_of(result[0])]
        rate_match(elo, entrants, DEFAULT_CONFIG, board_shares(result))
        for order in result:
            if isinstance(order, Weighted) and order.weight < 0.5:
                continue  # openskill has no weights: it reads who took the larger share
            ranked = ranks_of(order)
            rated = model.rate([[skills[b]] for b, _ in ranked],
                               ranks=[place for _, place in ranked])  # fmt: skip
            for (b, _), team in zip(ranked, rated, strict=True):
                skills[b] = team[0]
    pl = fit(choices_from_matches(results, list(range(bots)))).theta
    values = {
        "elo": [elo[b].rating if b in elo else DEFAULT_CONFIG.initial for b in range(bots)],
        "bt_pl": list(pl),
        "openskill": [skills[b].mu for b in range(bots)],
    }
    return {name: float(spearmanr(truth, v)[0]) for name, v in values.items()}


@dataclass(frozen=True)
class Schedule:
    """How one kind of run plays: duplicate sets or plain games, who meets whom, and for plain
    games whether each deal is scored as its own result (the control)."""

    duplicate: bool
    chooser: Callable[[Pool, int], Callable[[Trace], Table]]
    by_deal: bool = False
    corrected: bool = False  # every deal's luck taken out (engine.luck)


#: every kind of run, by its name in the summaries; "duplicate" (random pairing) always runs
SCHEDULES = {
    "plain": Schedule(False, uniform_chooser),
    "plain_by_deal": Schedule(False, uniform_chooser, by_deal=True),
    "duplicate": Schedule(True, uniform_chooser),
    "matchmaking": Schedule(True, ladder_chooser),
    "plain_matchmaking": Schedule(False, ladder_chooser),
    "oracle": Schedule(True, oracle_chooser),
    "corrected": Schedule(False, uniform_chooser, corrected=True),
    "corrected_duplicate": Schedule(True, uniform_chooser, corrected=True),
    # Bauer's duplicate sets scored deal by deal inside the set (issue 34), not by boards
    "corrected_duplicate_by_deal": Schedule(True, uniform_chooser, by_deal=True, corrected=True),
    "corrected_matchmaking": Schedule(False, ladder_chooser, corrected=True),
    # what Bauer's ladder plays: duplicate sets with the matchmaking, every deal a board
    "corrected_duplicate_by_deal_matchmaking": Schedule(
        True, ladder_chooser, by_deal=True, corrected=True
    ),
}


@dataclass
class RunResult:
    found: dict[str, int | None]  # per schedule run: deals to the verdict, None if not reached
    coverage: dict[int, bool]
    spearman: dict[int, dict[str, float]]
    #: per luck-corrected schedule, the coverage at the setup's checkpoints (its own results)
    corrected_coverage: dict[str, dict[int, bool]] = field(default_factory=dict)


def checkpoints_of(setup: Setup, run: int) -> list[int]:
    long = [setup.long_checkpoint] if setup.long_checkpoint and run < setup.long_runs else []
    return [*setup.checkpoints, *long]


def one_run(setup: Setup, run: int, modes: Sequence[str] = tuple(SCHEDULES)) -> RunResult:
    game = engine.load_game(setup.game, **setup.params)
    pool = Pool(game, family(setup.kind))
    bots = len(pool.bots)
    points = checkpoints_of(setup, run)

    def play(mode: str, at_least: int = 0) -> tuple[Trace, int | None]:
        schedule = SCHEDULES[mode]
        return run_schedule(pool, setup, run, duplicate=schedule.duplicate,
                            by_deal=schedule.by_deal, corrected=schedule.corrected,
                            choose=schedule.chooser(pool, run),
                            at_least=at_least)  # fmt: skip

    found: dict[str, int | None] = {}
    dup, found["duplicate"] = play("duplicate", at_least=max(points))  # also the checkpoints'
    corrected_coverage: dict[str, dict[int, bool]] = {}
    for mode in modes:
        if mode == "duplicate":
            continue
        if not SCHEDULES[mode].corrected:
            _, found[mode] = play(mode)
            continue
        trace, found[mode] = play(mode, at_least=max(setup.checkpoints))
        corrected_coverage[mode] = {point: intervals_hold(trace.results[:point], bots, run)
                                    for point in setup.checkpoints}  # fmt: skip
    coverage, spearman = {}, {}
    for point in points:
        coverage[point] = intervals_hold(dup.results[:point], bots, run)
        spearman[point] = spearman_scores(dup.results[:point], bots)
    return RunResult(found, coverage, spearman, corrected_coverage)


@dataclass
class Margin:
    """Deals a one-sided 95 % verdict on the mean score margin needs, per neighbouring pair."""

    pair: tuple[str, str]
    plain: float
    duplicate: float


def margins(setup: Setup) -> list[Margin]:
    """The calibration of issue 18: for each neighbouring pair, ``margin_matches`` matches at
    a table with the bots nearest to them; per-deal mean margin ``μ`` and per-deal variance
    ``σ²`` (matches as clusters), deals needed ``(1.645 σ / μ)²``."""
    game = engine.load_game(setup.game, **setup.params)
    pool = Pool(game, family(setup.kind))
    out = []
    for a in range(len(pool.bots) - 1):
        others = sorted((b for b in range(len(pool.bots)) if b not in (a, a + 1)),
                        key=lambda b: (abs(b - a - 0.5), b))  # fmt: skip
        table = tuple(sorted([a, a + 1, *others[: pool.size - 2]]))
        needed = []
        for duplicate in (False, True):
            diffs, deals = [], []
            for k in range(setup.margin_matches):
                _, n, totals = pool.match(table, seed_of("margin", setup.game, table, k), k,
                                          duplicate=duplicate)  # fmt: skip
                diffs.append(totals[table.index(a)] - totals[table.index(a + 1)])
                deals.append(n)
            mu = sum(diffs) / sum(deals)
            var = sum((d - mu * n) ** 2 for d, n in zip(diffs, deals, strict=True)) / sum(deals)
            needed.append(float("inf") if mu <= 0 else 1.645**2 * var / mu**2)
        out.append(Margin((pool.bots[a].name, pool.bots[a + 1].name), needed[0], needed[1]))
    return out


def median_deals(values: Sequence[int | None]) -> float | None:
    """Median with unfinished runs counted as infinite; None if the median is unfinished."""
    ordered = sorted(values, key=lambda v: float("inf") if v is None else v)
    middle = ordered[(len(ordered) - 1) // 2 : len(ordered) // 2 + 1]
    if any(v is None for v in middle):
        return None
    return float(statistics.mean(v for v in middle if v is not None))


def fmt(value: float | None, horizon_deals: str) -> str:
    return f">{horizon_deals}" if value is None else f"{value:,.0f}"


def ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0 or not np.isfinite(a) or not np.isfinite(b):
        return "n/a"
    return f"{a / b:.2f}"


SETUPS_FULL = [
    Setup("Belote", "belote", {}, "mix", 3000),
    Setup("Belote", "belote", {}, "det", 3000),
    Setup("Badugi heads-up", "badugi", {"players": 2, "hands": 10}, "mix", 3000),
    Setup("Badugi heads-up", "badugi", {"players": 2, "hands": 10}, "det", 3000),
    Setup("Badugi heads-up", "badugi", {"players": 2, "hands": 10}, "passive", 3000),
    Setup("Bauer", "bauer", {}, "mix", 3000),
    Setup("Bauer", "bauer", {}, "det", 3000),
    # a Geronimo set is 112 deals and about 0.5 s: earlier checkpoints, fewer margin matches
    Setup("Barbu Geronimo", "barbu", {"mode": "geronimo"}, "mix", 400, (10, 50),
          long_checkpoint=200, margin_matches=40),
    Setup("Barbu Geronimo", "barbu", {"mode": "geronimo"}, "det", 400, (10, 50),
          long_checkpoint=200, margin_matches=40),
]  # fmt: skip
SETUPS_QUICK = [
    Setup("Belote", "belote", {}, "mix", 400, long_checkpoint=None, margin_matches=40),
    Setup("Badugi heads-up", "badugi", {"players": 2, "hands": 10}, "passive", 400,
          long_checkpoint=None, margin_matches=40),
]  # fmt: skip


def summarise(setup: Setup, results: list[RunResult], margin: list[Margin]) -> dict[str, Any]:
    """Per schedule run, the median deals (``mode``) and every run's (``mode_runs``); the
    calibration, coverage and rank correlations."""
    modes = [m for m in SCHEDULES if m in results[0].found]
    deals = {mode: [r.found[mode] for r in results] for mode in modes}
    points = sorted({p for r in results for p in r.coverage})
    coverage = {
        point: statistics.mean(r.coverage[point] for r in results if point in r.coverage)
        for point in points
    }
    measured = {point: sum(point in r.coverage for r in results) for point in points}
    spearman = {
        point: {
            method: statistics.mean(
                r.spearman[point][method] for r in results if point in r.spearman
            )  # fmt: skip
            for method in ("elo", "bt_pl", "openskill")
        }
        for point in coverage
    }
    return {
        "label": setup.label, "family": setup.kind, "runs": len(results),
        "horizon": setup.horizon, "margins": [vars(m) for m in margin],
        **{mode: median_deals(runs) for mode, runs in deals.items()},
        **{f"{mode}_runs": runs for mode, runs in deals.items()},
        "coverage": coverage, "spearman": spearman, "checkpoint_runs": measured,
        "corrected_coverage": {
            mode: {point: statistics.mean(r.corrected_coverage[mode][point] for r in results)
                   for point in setup.checkpoints}
            for mode in results[0].corrected_coverage
        },
    }  # fmt: skip


def print_summary(s: dict[str, Any]) -> None:
    h = f"{s['horizon']} matches"

    def deals(mode: str) -> str:
        return fmt(s[mode], h) if mode in s else "not run"

    def over(a: str, b: str) -> str:
        return ratio(s.get(a), s.get(b))

    print(f"\n{s['label']} — {FAMILIES[s['family']]} ({s['runs']} runs)")
    print(f"  deals to the right order at 95 %: plain {deals('plain')}, duplicate "
          f"{deals('duplicate')} (ratio {over('duplicate', 'plain')}); matchmaking "
          f"{deals('matchmaking')} (ratio to random pairing {over('matchmaking', 'duplicate')});"
          f" oracle pairing {deals('oracle')} (ratio {over('oracle', 'duplicate')})")  # fmt: skip
    print(
        f"  with matchmaking, plain {deals('plain_matchmaking')}: duplicate/plain "
        f"{over('matchmaking', 'plain_matchmaking')}"
    )
    print(f"  luck corrected (engine.luck): plain {deals('corrected')} (ratio to plain "
          f"{over('corrected', 'plain')}, to plain by deal {over('corrected', 'plain_by_deal')});"
          f" duplicate {deals('corrected_duplicate')} (ratio to plain "
          f"{over('corrected_duplicate', 'plain')}, to duplicate "
          f"{over('corrected_duplicate', 'duplicate')}); duplicate scored deal by deal "
          f"{deals('corrected_duplicate_by_deal')} (ratio to plain "
          f"{over('corrected_duplicate_by_deal', 'plain')}, to duplicate "
          f"{over('corrected_duplicate_by_deal', 'duplicate')}); plain with matchmaking "
          f"{deals('corrected_matchmaking')} (ratio to duplicate with it "
          f"{over('corrected_matchmaking', 'matchmaking')})")  # fmt: skip
    print(
        f"  control, plain scored deal by deal: {deals('plain_by_deal')} (duplicate / it "
        f"{over('duplicate', 'plain_by_deal')}; it / plain {over('plain_by_deal', 'plain')})"
    )
    done = ", ".join(
        f"{mode} {sum(v is not None for v in s[f'{mode}_runs'])}"
        for mode in SCHEDULES if f"{mode}_runs" in s
    )  # fmt: skip
    print(f"  runs reaching it (of {s['runs']}): {done}")
    for m in s["margins"]:
        print(f"  score-margin verdict {m['pair'][0]} > {m['pair'][1]}: plain {m['plain']:,.0f} "
              f"deals, duplicate {m['duplicate']:,.0f} (ratio "
              f"{ratio(m['duplicate'], m['plain'])})")  # fmt: skip
    for point, share in s["coverage"].items():
        rho = s["spearman"][point]
        runs = s["checkpoint_runs"][point]
        print(f"  after {point:>5} matches ({runs} runs): intervals hold the true order in "
              f"{share:.0%};"
              f" Spearman Elo {rho['elo']:.3f}, BT/PL {rho['bt_pl']:.3f},"
              f" openskill {rho['openskill']:.3f}")  # fmt: skip
    for mode, shares in s.get("corrected_coverage", {}).items():
        held = ", ".join(f"after {point} matches {share:.0%}" for point, share in shares.items())
        print(f"  {mode}: intervals hold the true order {held}")


CURVES = (  # summary key, legend, colour, dash
    ("plain_runs", "plain", "#7f7f7f", "6,4"),
    ("plain_by_deal_runs", "plain by deal (control)", "#2ca02c", "2,3"),
    ("duplicate_runs", "duplicate", "#1f77b4", ""),
    ("matchmaking_runs", "duplicate + matchmaking", "#d62728", ""),
    ("oracle_runs", "duplicate + oracle pairing", "#9467bd", "1,2"),
    ("corrected_runs", "luck corrected", "#ff7f0e", "6,4"),
    ("corrected_duplicate_runs", "luck corrected + duplicate", "#ff7f0e", ""),
    ("corrected_duplicate_by_deal_runs", "luck corrected + duplicate by deal", "#8c564b", ""),
    ("corrected_matchmaking_runs", "luck corrected + matchmaking", "#e377c2", "6,4"),
)


def cdf_svg(summaries: list[dict[str, Any]], path: Path) -> None:
    """One panel per setup: deals played (log scale) against the share of runs whose order was
    right at 95 % by then, for plain and duplicate play and for matchmaking."""
    columns, panel_w, panel_h, pad = 2, 330, 190, 46
    rows = (len(summaries) + columns - 1) // columns
    width = columns * panel_w + 20
    finite = [v for s in summaries for key, *_ in CURVES for v in s.get(key, []) if v is not None]
    if not finite:
        return
    lo, hi = np.log10(max(1.0, min(finite) * 0.8)), np.log10(max(finite) * 1.1)
    legend, lx, ly = [], 20, 16  # the legend wraps to a new line where the plot ends
    for _, name, colour, dash in CURVES:
        step = 50 + 6 * len(name)
        if lx + step > width:
            lx, ly = 20, ly + 18
        legend.append(f'<line x1="{lx}" x2="{lx + 26}" y1="{ly}" y2="{ly}" stroke="{colour}" '
                      f'stroke-width="2" stroke-dasharray="{dash or "none"}"/>'
                      f'<text x="{lx + 32}" y="{ly + 4}">{name}</text>')  # fmt: skip
        lx += step
    top = ly + 24  # the first row of panels
    height = top + rows * panel_h + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="sans-serif" font-size="11">',
           '<rect width="100%" height="100%" fill="white"/>', *legend]  # fmt: skip
    for i, s in enumerate(summaries):
        ox, oy = 10 + (i % columns) * panel_w, top + (i // columns) * panel_h
        x0, x1, y0, y1 = ox + pad, ox + panel_w - 12, oy + panel_h - 36, oy + 18

        def x(v: float, x0: float = x0, x1: float = x1) -> float:
            return float(x0 + (np.log10(v) - lo) / (hi - lo) * (x1 - x0))

        def y(p: float, y0: float = y0, y1: float = y1) -> float:
            return y0 + p * (y1 - y0)

        family_name = FAMILIES[s["family"]]
        out.append(f'<text x="{x0}" y="{oy + 10}" font-weight="bold">{s["label"]}, '
                   f'{family_name} ({s["runs"]} runs)</text>')  # fmt: skip
        out.append(
            f'<rect x="{x0}" y="{y1}" width="{x1 - x0}" height="{y0 - y1}" '
            'fill="none" stroke="#999"/>'
        )
        for p in (0.5, 1.0):
            out.append(f'<line x1="{x0}" x2="{x1}" y1="{y(p):.1f}" y2="{y(p):.1f}" '
                       f'stroke="#ddd"/><text x="{x0 - 4}" y="{y(p) + 4:.1f}" '
                       f'text-anchor="end">{p:.0%}</text>')  # fmt: skip
        decade = 10 ** int(np.floor(lo))
        while np.log10(decade) <= hi:
            if np.log10(decade) >= lo:
                out.append(f'<line x1="{x(decade):.1f}" x2="{x(decade):.1f}" y1="{y0}" '
                           f'y2="{y1}" stroke="#eee"/><text x="{x(decade):.1f}" '
                           f'y="{y0 + 13}" text-anchor="middle">{decade:,}</text>')  # fmt: skip
            decade *= 10
        out.append(f'<text x="{(x0 + x1) / 2}" y="{y0 + 26}" text-anchor="middle">deals</text>')
        for key, _, colour, dash in CURVES:
            runs = s.get(key)
            if runs is None:  # a summary saved before the curve existed
                continue
            done = sorted(v for v in runs if v is not None)
            points: list[tuple[float, float]] = [(float(x0), y(0.0))]
            for k, v in enumerate(done, start=1):
                points += [(x(v), points[-1][1]), (x(v), y(k / len(runs)))]
            points.append((x1, points[-1][1]))
            line = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
            out.append(
                f'<polyline points="{line}" fill="none" stroke="{colour}" '
                f'stroke-width="1.6" stroke-dasharray="{dash or "none"}"/>'
            )
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two setups, 5 runs: < 3 min of CPU")
    parser.add_argument("--runs", type=int, help="runs per setup (default 20, quick 5)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--only", help="only setups whose game contains this text")
    parser.add_argument("--family", choices=list(FAMILIES), help="only this family of bots")
    parser.add_argument("--modes", default=",".join(SCHEDULES),
                        help="the schedules to run, comma-separated (duplicate always runs; "
                             f"default: all of {', '.join(SCHEDULES)})")  # fmt: skip
    parser.add_argument("--long-runs", type=int, metavar="N",
                        help="runs with the long checkpoint (default: the setup's, 5)")  # fmt: skip
    parser.add_argument("--json", type=Path, help="write the summaries here")
    parser.add_argument("--svg", type=Path, help="write the deals→right-order plot here")
    parser.add_argument("--plot-from", type=Path, nargs="+", metavar="JSON",
                        help="only redraw --svg from summaries written by --json")  # fmt: skip
    args = parser.parse_args(argv)
    if args.plot_from:
        if not args.svg:
            parser.error("--plot-from needs --svg")
        saved: dict[tuple[str, str], dict[str, Any]] = {}
        for f in args.plot_from:  # a later file's figures win (a partial run adds its modes)
            for s in json.loads(f.read_text()):
                saved.setdefault((s["label"], s["family"]), {}).update(s)
        cdf_svg(list(saved.values()), args.svg)
        return 0
    setups = SETUPS_QUICK if args.quick else SETUPS_FULL
    if args.only:
        setups = [s for s in setups if args.only in s.game]
    if args.family:
        setups = [s for s in setups if s.kind == args.family]
    if args.long_runs is not None:
        setups = [dataclasses.replace(s, long_runs=args.long_runs) for s in setups]
    runs = args.runs or (5 if args.quick else 20)
    modes = args.modes.split(",")
    if unknown := set(modes) - set(SCHEDULES):
        parser.error(f"unknown modes: {', '.join(sorted(unknown))}")
    started = time.perf_counter()
    summaries = []
    with ProcessPoolExecutor(max_workers=args.jobs) as executor:
        margin_jobs = [executor.submit(margins, setup) for setup in setups]
        futures = {
            (i, r): executor.submit(one_run, setup, r, modes)
            for i, setup in enumerate(setups)
            for r in range(setup.runs or runs)
        }
        for i, setup in enumerate(setups):
            results = [futures[i, r].result() for r in range(setup.runs or runs)]
            summary = summarise(setup, results, margin_jobs[i].result())
            summaries.append(summary)
            print_summary(summary)
            sys.stdout.flush()
    print(f"\n{time.perf_counter() - started:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(summaries, indent=1, default=str) + "\n")
    if args.svg:
        cdf_svg(summaries, args.svg)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
