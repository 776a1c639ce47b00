"""Luck benchmark (issue 34): is ``engine.luck`` unbiased on the real games, how much of the
deal scores' variance does it take out, and what does it cost?

In-process with the reference bots (``benchmarks/reference_bots.py``): per game, ``--games``
games between two neighbouring bots of a family (seats alternating between them, teams as
sides), with fresh seeds. Per deal it records the score margin of the first bot's seat over the
second's, raw and with each seat's luck taken out, and reports:

- the mean luck margin with its 95 % interval (the luck is mean-zero by construction: the
  interval should hold 0);
- the variance of the corrected margin over the raw one's, per deal (below 1: the correction
  removes luck);
- the CPU time of the luck per deal, over the CPU time of playing the games in-process and
  over the least a sandboxed match spends on the same deals: :data:`SANDBOXED_DECISION_MS` per
  decision, the round trip alone (docs/runtimes.md), so the share is an upper bound (the
  issue's budget: at most 0.2);
- the bots' own share of the raw margin's variance: the same deal (deck and dealer) played
  ``--replays`` times by the same bots with other seeds, the mean variance within a deal over
  the total; the rest is the cards' (the most any correction of chance can remove).
  ``benchmarks/variance.py`` splits it further, with intervals.

Run: ``python benchmarks/luck.py`` (about four minutes of CPU per family) or ``--games N``.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import engine  # noqa: E402
from benchmarks.reference_bots import FAMILIES, BotSpec, make_agent  # noqa: E402
from benchmarks.variance import pair_agents, sample_margins, split_variance  # noqa: E402
from engine import luck  # noqa: E402

#: CPU of one sandboxed decision's round trip before the bot thinks (docs/runtimes.md)
SANDBOXED_DECISION_MS = 0.07

GAMES: list[tuple[str, str, dict[str, Any], int]] = [  # label, game, params, games per pair
    ("Belote", "belote", {}, 100),
    ("Bauer", "bauer", {}, 60),
    ("Barbu Geronimo", "barbu", {"mode": "geronimo"}, 20),
    ("Badugi heads-up", "badugi", {"players": 2, "hands": 10}, 400),
]


def measure(game: engine.Game, bots: tuple[BotSpec, BotSpec], games: int) -> dict[str, float]:
    """Per-deal margins (seat 0's over seat 1's, bot ``bots[0]`` in the even seats), raw and
    corrected, over ``games`` games; the mean luck, variances and CPU times."""
    raw: list[float] = []
    lucky: list[float] = []
    play_cpu = luck_cpu = 0.0
    decisions = 0
    for seed in range(games):
        agents = [make_agent(game.name, bots[seat % 2], seed * 10 + seat)
                  for seat in range(game.num_players)]  # fmt: skip
        started = time.process_time()
        state = engine.play_game(game, agents, 10_000 + seed).state
        play_cpu += time.process_time() - started
        started = time.process_time()
        per_deal = luck.state_luck(state)
        luck_cpu += time.process_time() - started
        for record, deal in zip(state.deals, per_deal, strict=True):
            if record.scores is not None:
                raw.append(record.scores[0] - record.scores[1])
                decisions += (record.end or len(state.history)) - record.start
                lucky.append(deal[0] - deal[1])
    corrected = [r - x for r, x in zip(raw, lucky, strict=True)]
    se = statistics.stdev(lucky) / math.sqrt(len(lucky))
    return {
        "deals": len(raw),
        "raw_mean": statistics.mean(raw),
        "luck_mean": statistics.mean(lucky),
        "luck_low": statistics.mean(lucky) - 1.96 * se,
        "luck_high": statistics.mean(lucky) + 1.96 * se,
        "variance_ratio": statistics.pvariance(corrected) / statistics.pvariance(raw),
        "cpu_ratio": luck_cpu / play_cpu,
        "luck_ms_per_deal": 1000 * luck_cpu / len(raw),
        "play_ms_per_deal": 1000 * play_cpu / len(raw),
        "sandbox_share": 1000 * luck_cpu / (SANDBOXED_DECISION_MS * decisions),
    }


def own_share(game: engine.Game, bots: tuple[BotSpec, BotSpec], deals: int, replays: int) -> float:
    """The bots' own share of the variance of a deal's raw margin (``benchmarks/variance.py``,
    where the rest of the split is): ``deals`` deals, each played ``replays`` times by the same
    bots with other seeds; the mean variance within a deal over the total variance."""
    samples = sample_margins(game, pair_agents(game, bots), deals=deals, replays=replays)
    return split_variance(samples).shares()["own"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, help="games per pair (default: per game)")
    parser.add_argument("--family", choices=list(FAMILIES), default="mix")
    parser.add_argument("--only", help="only games whose name contains this text")
    parser.add_argument("--deals", type=int, default=100, help="deals for the variance split")
    parser.add_argument("--replays", type=int, default=6, help="plays of each of those deals")
    args = parser.parse_args(argv)
    pairs = [(BotSpec(args.family, 1.0), BotSpec(args.family, 0.5)),
             (BotSpec(args.family, 0.75), BotSpec(args.family, 0.25))]  # fmt: skip
    print("| game | bots | deals | mean raw margin | mean luck margin (95 % interval) | "
          "corrected / raw variance | bots' own share of the variance | luck CPU / play CPU "
          "| luck ms per deal | luck / sandboxed CPU (at most) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, name, params, games in GAMES:
        if args.only and args.only not in name:
            continue
        game = engine.load_game(name, **params)
        for pair in pairs:
            m = measure(game, pair, args.games or games)
            own = own_share(game, pair, args.deals, args.replays)
            print(f"| {label} | {pair[0].name} v {pair[1].name} | {m['deals']:,} | "
                  f"{m['raw_mean']:.2f} | {m['luck_mean']:+.2f} ({m['luck_low']:+.2f} to "
                  f"{m['luck_high']:+.2f}) | {m['variance_ratio']:.2f} | {own:.2f} | "
                  f"{m['cpu_ratio']:.2f} | {m['luck_ms_per_deal']:.2f} | "
                  f"{m['sandbox_share']:.2f} |")  # fmt: skip
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
