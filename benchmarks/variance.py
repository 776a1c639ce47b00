"""Variance split (issue 34): how much of a deal's score margin is chance, how much of that the
luck correction (``engine.luck``) removes, and how much is the bots' own randomness, which no
correction of chance can remove.

The same deal (the engine's deck and reshuffles for one seed, and its dealer) is played
``replays`` times by the same two bots, their own generators reseeded each time. Given the
seed every chance outcome of the deal is fixed, so what varies within a deal is the bots' own
random moves; by the law of total variance the variance of the margin ``X`` (the first bot's
seats' mean deal score over the second's) splits as ``Var X = E[Var(X | deal)] + Var E[X |
deal]``: **the bots' own** part and **chance**. The corrected margin ``Y`` (the deal's luck
taken out) has the same mean; ``Var X − Var Y`` is the chance **the correction removes** and
``Var Y − E[Var(X | deal)]`` the chance **it leaves**.

**The bound.** Deals to a 95 % verdict scale with a deal's variance over its squared mean
difference, and a correction keeps the mean; so the fewest deals any correction of chance could
need, against the same games scored deal by deal without one, are ``own / Var X`` of them (a
correction that takes out ``E[X | deal] − E X``, every chance outcome's whole worth, leaves
exactly the bots' own variance, and none that is a function of the chance outcomes leaves less).
A correction whose later luck terms depend on the bots' moves (Belote's completing deal, Badugi's
draws) is not such a function and could in principle go lower, by absorbing how the bots' moves
and the cards interact; the fitted one does not come near (see docs/ranking.md).

The estimates are unbiased for a balanced design (one-way analysis of variance: the within-deal
variance with ``replays − 1`` degrees of freedom, the total from the mean squares), and the
intervals are a percentile bootstrap over deals (a deal's replays stay together).

Run: ``python benchmarks/variance.py --family mix`` (see ``--help``); docs/ranking.md, "Luck",
gives the figures and the commands.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

import engine  # noqa: E402
from benchmarks.reference_bots import (  # noqa: E402
    FAMILIES,
    MIXTURE_PS,
    BotSpec,
    make_agent,
    seed_of,
)
from engine import luck  # noqa: E402
from engine.match import start_info  # noqa: E402

Array = npt.NDArray[np.float64]
#: ``agents(deal, replay)``: the bots of one play of a deal, one per seat
AgentsOf = Callable[[int, int], Sequence[engine.Agent]]

GAMES: list[tuple[str, str, dict[str, Any]]] = [  # label, game, params
    ("Belote", "belote", {}),
    ("Bauer", "bauer", {}),
    ("Barbu Geronimo", "barbu", {"mode": "geronimo"}),
    ("Badugi heads-up", "badugi", {"players": 2, "hands": 10}),
]


@dataclass(frozen=True)
class Split:
    """A deal margin's variance and its parts (estimates; see the module docstring)."""

    total: float  # Var X, the raw margin
    corrected: float  # Var Y, the margin with the deal's luck taken out
    own: float  # E[Var(X | deal)]: the bots' own randomness
    own_corrected: float  # E[Var(Y | deal)]: the same for the corrected margin
    mean: float  # E X (the corrected margin's is the same in expectation)
    mean_corrected: float

    @property
    def removed(self) -> float:
        """Chance the correction removes."""
        return self.total - self.corrected

    @property
    def left(self) -> float:
        """Chance the correction leaves (negative only by noise or by luck terms that absorb
        the bots' moves, module docstring)."""
        return self.corrected - self.own

    def shares(self) -> dict[str, float]:
        """The three parts as shares of the raw variance (they add up to 1), the bound (the
        least share of the raw variance any correction of chance leaves: the own share) and
        the corrected variance's share."""
        return {
            "removed": self.removed / self.total,
            "left": self.left / self.total,
            "own": self.own / self.total,
            "corrected": self.corrected / self.total,
            "bound_over_corrected": self.own / self.corrected,
        }


def _split_arrays(raw: Array, corrected: Array) -> dict[str, Array]:
    """The estimates over the leading axes of ``(..., deals, replays)`` arrays."""
    k = raw.shape[-1]

    def parts(x: Array) -> tuple[Array, Array]:
        within = x.var(axis=-1, ddof=1).mean(axis=-1)
        between = x.mean(axis=-1).var(axis=-1, ddof=1)
        return between + within * (k - 1) / k, within

    total, own = parts(raw)
    total_c, own_c = parts(corrected)
    return {
        "total": total,
        "corrected": total_c,
        "own": own,
        "own_corrected": own_c,
        "mean": raw.mean(axis=(-2, -1)),
        "mean_corrected": corrected.mean(axis=(-2, -1)),
    }


def split_variance(samples: Sequence[Sequence[tuple[float, float]]]) -> Split:
    """The split of ``samples``: per deal, per replay, the ``(raw, corrected)`` margin; every
    deal played the same number of times (at least twice), at least two deals."""
    raw, corrected = _arrays(samples)
    return Split(**{key: float(v) for key, v in _split_arrays(raw, corrected).items()})


def _arrays(samples: Sequence[Sequence[tuple[float, float]]]) -> tuple[Array, Array]:
    data = np.asarray(samples, dtype=np.float64)
    if data.ndim != 3 or data.shape[0] < 2 or data.shape[1] < 2 or data.shape[2] != 2:
        raise ValueError("need (deals >= 2, replays >= 2, 2) margins, every deal alike")
    return data[..., 0], data[..., 1]


def bootstrap_splits(
    samples: Sequence[Sequence[tuple[float, float]]], *, resamples: int = 1000, seed: int = 0
) -> list[Split]:
    """The split of ``resamples`` data sets of as many deals drawn with replacement (a deal
    with all its replays), by a NumPy generator seeded with ``seed``."""
    raw, corrected = _arrays(samples)
    rng = np.random.default_rng(seed)
    chosen = rng.integers(0, raw.shape[0], size=(resamples, raw.shape[0]))
    found = _split_arrays(raw[chosen], corrected[chosen])
    return [Split(**{key: float(v[b]) for key, v in found.items()}) for b in range(resamples)]


def interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """The percentile interval of ``values``."""
    low, high = np.quantile(values, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def pooled_shares(splits: Sequence[Split]) -> dict[str, float]:
    """The mean over pairs of bots of each share (every pair weighs alike)."""
    shares = [s.shares() for s in splits]
    return {key: float(np.mean([s[key] for s in shares])) for key in shares[0]}


def deal_margin(
    game: engine.Game,
    seed: int,
    dealer: int,
    agents: Sequence[engine.Agent],
    first: Sequence[int],
    *,
    value: luck.Value | None = None,
) -> tuple[float, float]:
    """Play the first deal of the game seeded ``seed`` (the engine's deck and reshuffles) with
    ``dealer`` dealing; the raw and corrected margin of the seats ``first`` (their mean deal
    score) over the others'. ``value``: the luck's value estimate (default the game's)."""
    state = game.new_initial_state(seed, first_dealer=dealer)
    params = game.params_dict()
    for seat, agent in enumerate(agents):
        agent.start(start_info(game, seat, params))
    record = state.deals[0]
    while record.scores is None:
        seat = state.current_player()
        state.apply_action(agents[seat].act(state.observation(seat), state.legal_actions()))
    actions = [action for _, action in state.history[record.start : record.end]]
    deal = luck.deal_luck(game, record.deck, record.dealer, actions[:-1], value=value)
    scores = record.scores
    corrected = luck.corrected_deal_scores([scores], [deal])[0] or []
    second = [s for s in range(len(scores)) if s not in first]

    def margin(values: Sequence[float]) -> float:
        return float(np.mean([values[s] for s in first]) - np.mean([values[s] for s in second]))

    return margin(scores), margin(corrected)


def sample_margins(
    game: engine.Game,
    agents: AgentsOf,
    *,
    deals: int,
    replays: int,
    seed: int = 0,
    value: luck.Value | None = None,
) -> list[list[tuple[float, float]]]:
    """Per deal, per replay, the ``(raw, corrected)`` margin of the even seats over the odd
    ones: deal ``d`` is the engine's first deal for the seed ``seed + d``, dealt by seat
    ``d mod players``, and played ``replays`` times with ``agents(d, r)``."""
    first = list(range(0, game.num_players, 2))
    return [
        [deal_margin(game, seed + d, d % game.num_players, agents(d, r), first, value=value)
         for r in range(replays)]
        for d in range(deals)
    ]  # fmt: skip


def pair_agents(
    game: engine.Game, bots: tuple[BotSpec, BotSpec], *, rekey: bool = False
) -> AgentsOf:
    """Reference bots ``bots[0]`` in the even seats and ``bots[1]`` in the odd ones, their own
    generators seeded by the deal, the replay and the seat. ``rekey``: the hashed variants'
    coins keyed by the replay (both bots alike, so they stay one family), each replay another
    draw of the family's coins (see :func:`main`)."""

    def agents(deal: int, replay: int) -> list[engine.Agent]:
        key = seed_of("variance-key", replay).to_bytes(6, "big") if rekey else b""
        return [make_agent(game.name, bots[seat % 2], seed_of("variance", deal, replay, seat),
                           key=key)
                for seat in range(game.num_players)]  # fmt: skip

    return agents


def neighbours(kind: str) -> list[tuple[BotSpec, BotSpec]]:
    """The family's neighbouring pairs, strongest first: the pairs a verdict must order."""
    specs = [BotSpec(kind, p) for p in MIXTURE_PS]
    return list(zip(specs, specs[1:], strict=False))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", choices=list(FAMILIES), default="mix")
    parser.add_argument("--only", help="only games whose name contains this text")
    parser.add_argument("--deals", type=int, default=60, help="deals per pair of bots")
    parser.add_argument("--replays", type=int, default=4, help="plays of each deal (>= 2)")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples")
    parser.add_argument("--json", type=Path, help="write every pair's split and shares here")
    parser.add_argument("--rekey", action="store_true",
                        help="key the hashed variants' coins by the replay: their coins count "
                             "as the bots' own (what a value that does not know them cannot "
                             "predict)")  # fmt: skip
    args = parser.parse_args(argv)
    out: list[dict[str, Any]] = []
    print("| game | pair | deals x plays | mean margin | removed | left | own | corrected / raw "
          "| own / corrected | CPU s |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, name, params in GAMES:
        if args.only and args.only not in name:
            continue
        game = engine.load_game(name, **params)
        splits, boots = [], []
        for pair in neighbours(args.family):
            started = time.process_time()
            agents = pair_agents(game, pair, rekey=args.rekey)
            samples = sample_margins(game, agents, deals=args.deals, replays=args.replays,
                                     seed=10_000)  # fmt: skip
            cpu = time.process_time() - started
            split = split_variance(samples)
            boot = bootstrap_splits(samples, resamples=args.resamples)
            splits.append(split)
            boots.append(boot)
            row = shares_row(split, boot)
            out.append({"game": label, "family": args.family, "pair": [b.name for b in pair],
                        "deals": args.deals, "replays": args.replays, "rekey": args.rekey,
                        "cpu_s": cpu,
                        "split": asdict(split), "shares": row})  # fmt: skip
            print(f"| {label} | {pair[0].name} v {pair[1].name} | {args.deals} x "
                  f"{args.replays} | {split.mean:.2f} | {cell(row, 'removed')} | "
                  f"{cell(row, 'left')} | {cell(row, 'own')} | {cell(row, 'corrected')} | "
                  f"{cell(row, 'bound_over_corrected')} | {cpu:.0f} |")  # fmt: skip
            sys.stdout.flush()
        pooled = pooled_shares(splits)
        pooled_boot = [pooled_shares(list(b)) for b in zip(*boots, strict=True)]
        row = {key: [pooled[key], *interval([b[key] for b in pooled_boot])] for key in pooled}
        out.append({"game": label, "family": args.family, "pair": "pooled", "shares": row})
        print(f"| {label} | mean of the pairs | | | {cell(row, 'removed')} | {cell(row, 'left')} "
              f"| {cell(row, 'own')} | {cell(row, 'corrected')} | "
              f"{cell(row, 'bound_over_corrected')} | |")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


def shares_row(split: Split, boot: Sequence[Split]) -> dict[str, list[float]]:
    """Per share: the estimate and its 95 % bootstrap interval."""
    shares = [b.shares() for b in boot]
    return {key: [value, *interval([s[key] for s in shares])]
            for key, value in split.shares().items()}  # fmt: skip


def cell(row: dict[str, list[float]], key: str) -> str:
    value, low, high = row[key]
    return f"{value:.2f} ({low:.2f} to {high:.2f})"


if __name__ == "__main__":
    raise SystemExit(main())
