"""The scale of a luck-corrected deal's share (issue 34): what sharing a deal by its corrected
margin, on several scales, tells of two neighbouring bots, against sharing it by its sign.

A deal scored alone gives the first side the share ``f(m)`` of it, ``m`` its margin: by the sign
(1, ½ or 0) or the logistic ``engine.margin_share(m, scale)``. A one-sided 95 % verdict on the
mean share needs about ``(1.645 · sd / (mean − ½))²`` deals; reported is that number over the
raw deal's sign's (below 1: fewer deals). Bauer's raw deal is won, lost or tied, so its sign is
its whole result; its corrected margin is that point minus the luck, whose sign breaks every tie
by the luck alone. The spread columns say where the corrected margins lie against the scale.

The deals are ``benchmarks/variance.py``'s (``sample_margins``: the engine's first deal of each
seed, played once by each neighbouring pair of the family) on seeds apart from the ranking
benchmark's, so a scale is not chosen on the seeds that then measure it.

Run: ``python benchmarks/margin_scale.py --game bauer --family mix`` (see ``--help``);
docs/ranking.md, "Luck-corrected scores", gives the figures.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import numpy as np  # noqa: E402

import engine  # noqa: E402
from benchmarks.reference_bots import FAMILIES  # noqa: E402
from benchmarks.variance import GAMES, neighbours, pair_agents, sample_margins  # noqa: E402

#: the seeds' offset: apart from the ranking benchmark's and variance.py's own (10,000)
SEED = 20_000


def deals_needed(shares: Sequence[float]) -> float:
    """Deals a one-sided 95 % verdict on the mean share needs (infinite without an edge)."""
    x = np.asarray(shares) - 0.5
    return float("inf") if x.mean() <= 0 else float((1.645 * x.std() / x.mean()) ** 2)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="bauer", choices=[name for _, name, _ in GAMES])
    parser.add_argument("--family", choices=list(FAMILIES), default="mix")
    parser.add_argument("--deals", type=int, default=3000, help="deals per pair of bots")
    parser.add_argument("--scales", default="0.1,0.25,0.5,1,2",
                        help="the logistic's scales, comma-separated")  # fmt: skip
    args = parser.parse_args(argv)
    params = next(p for _, name, p in GAMES if name == args.game)
    game = engine.load_game(args.game, **params)
    scales = [float(s) for s in args.scales.split(",")]
    shares: dict[str, float | None] = {"sign": None} | {f"logistic {s:g}": s for s in scales}
    rows: dict[str, list[float]] = {name: [] for name in shares}
    print(f"{game.name}, {FAMILIES[args.family]}, {args.deals} deals per pair, seeds from {SEED}")
    print("| pair | raw margin: mean, sd, tied | corrected: sd, 90 % of abs within | luck sd |")
    print("|---|---|---|---|")
    for pair in neighbours(args.family):
        samples = sample_margins(game, pair_agents(game, pair), deals=args.deals, replays=1,
                                 seed=SEED)  # fmt: skip
        raw = np.array([play[0][0] for play in samples])
        corrected = np.array([play[0][1] for play in samples])
        base = deals_needed([engine.margin_share(m, None) for m in raw])
        for name, scale in shares.items():
            rows[name].append(deals_needed([engine.margin_share(m, scale) for m in corrected])
                              / base)  # fmt: skip
        within = np.quantile(abs(corrected), 0.9)
        print(f"| {pair[0].name} v {pair[1].name} | {raw.mean():.3f}, {raw.std():.3f}, "
              f"{np.mean(raw == 0):.2f} | {corrected.std():.3f}, {within:.3f} | "
              f"{(raw - corrected).std():.3f} |")  # fmt: skip
    print("\ncorrected deals shared by | deals over the raw deal's sign's, per pair | mean")
    for name, ratios in rows.items():
        cells = ", ".join(f"{r:.2f}" for r in ratios)
        print(f"{name} | {cells} | {np.mean(ratios):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
