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
benchmark's, so a scale is not chosen on the seeds that then measure it. A game scored by its
total (Badugi) is ranked by whole games, so there the unit is a game (``hands`` hands, played
as the ranking benchmark plays them) and its margin is the chip total's: the sign of the raw
total against the corrected total's share.

Run: ``python benchmarks/margin_scale.py --game bauer --family mix`` (see ``--help``;
``--game badugi --deals 600 --scales 5,10,20,40,80`` for Badugi's games);
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
from benchmarks.ranking import Pool  # noqa: E402
from benchmarks.reference_bots import FAMILIES, BotSpec  # noqa: E402
from benchmarks.variance import GAMES, neighbours, pair_agents, sample_margins  # noqa: E402

Margins = tuple[np.ndarray, np.ndarray]

#: the seeds' offset: apart from the ranking benchmark's and variance.py's own (10,000)
SEED = 20_000


def deals_needed(shares: Sequence[float]) -> float:
    """Deals a one-sided 95 % verdict on the mean share needs (infinite without an edge)."""
    x = np.asarray(shares) - 0.5
    return float("inf") if x.mean() <= 0 else float((1.645 * x.std() / x.mean()) ** 2)


def deal_margins(game: engine.Game, pair: tuple[BotSpec, BotSpec], count: int) -> Margins:
    """The raw and corrected margins of ``count`` first deals, one play each."""
    samples = sample_margins(game, pair_agents(game, pair), deals=count, replays=1, seed=SEED)
    return np.array([s[0][0] for s in samples]), np.array([s[0][1] for s in samples])


def game_margins(game: engine.Game, pair: tuple[BotSpec, BotSpec], count: int) -> Margins:
    """The same of ``count`` whole games, for a game scored by its total (Badugi: its chip
    total over its hands), played as the ranking benchmark plays them (``Pool.match``)."""
    pool = Pool(game, list(pair))
    raw, corrected = [], []
    for k in range(count):
        _, _, totals = pool.match((0, 1), SEED + k, k, duplicate=False)
        _, _, corrected_totals = pool.match((0, 1), SEED + k, k, duplicate=False, corrected=True)
        raw.append(totals[0] - totals[1])
        corrected.append(corrected_totals[0] - corrected_totals[1])
    return np.array(raw), np.array(corrected)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="bauer", choices=[name for _, name, _ in GAMES])
    parser.add_argument("--family", choices=list(FAMILIES), default="mix")
    parser.add_argument("--deals", type=int, default=3000,
                        help="deals (Badugi: games) per pair of bots")  # fmt: skip
    parser.add_argument("--scales", default="0.1,0.25,0.5,1,2",
                        help="the logistic's scales, comma-separated")  # fmt: skip
    args = parser.parse_args(argv)
    params = next(p for _, name, p in GAMES if name == args.game)
    game = engine.load_game(args.game, **params)
    scales = [float(s) for s in args.scales.split(",")]
    shares: dict[str, float | None] = {"sign": None} | {f"logistic {s:g}": s for s in scales}
    rows: dict[str, list[float]] = {name: [] for name in shares}
    hands = game.params_dict().get("hands")
    unit = "deals" if game.scored_by_boards else f"games of {hands} hands"
    print(f"{game.name}, {FAMILIES[args.family]}, {args.deals} {unit} per pair, seeds from {SEED}")
    print("| pair | raw margin: mean, sd, tied | corrected: sd, 90 % of abs within | luck sd |")
    print("|---|---|---|---|")
    for pair in neighbours(args.family):
        if game.scored_by_boards:
            raw, corrected = deal_margins(game, pair, args.deals)
        else:
            raw, corrected = game_margins(game, pair, args.deals)
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
