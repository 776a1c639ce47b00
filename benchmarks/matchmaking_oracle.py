"""The ladder's matchmaking against the oracle pairing, run by run (issue 34).

Deals to the right order at 95 % on duplicate sets with ``benchmarks/ranking.py``'s own
schedules (``ladder_chooser``, ``oracle_chooser``, ``run_schedule``) and seeds, without
the full benchmark's random pairing, coverage and calibration: both schedules of a run share
one pool, so the games they both seat are played once. Prints each run's deals and the medians
with their ratio; ``--json`` keeps every run's deals (``--oracle-from`` reads the oracle's
from such a file instead of playing it again: its code does not depend on the matchmaking).

Both schedules score the sets alike: by raw boards (Badugi: raw totals) by default, or as the
game's ladder rates them: ``--corrected`` (each deal's luck taken out: Belote's boards, Badugi's
totals shared by their margin) and ``--by-deal`` (every deal its own board: Bauer's ladder).

Run: ``python benchmarks/matchmaking_oracle.py badugi passive --runs 60`` (``--corrected``).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]

import engine  # noqa: E402
from benchmarks.ranking import (  # noqa: E402
    MODEL_MATCH_SLOTS,
    SETUPS_FULL,
    Pool,
    ladder_chooser,
    median_deals,
    oracle_chooser,
    run_schedule,
)
from benchmarks.reference_bots import FAMILIES, family  # noqa: E402


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", help="a game of the full benchmark: belote, badugi, bauer, barbu")
    parser.add_argument("family", choices=list(FAMILIES))
    parser.add_argument("--runs", type=int, default=20, help="runs 0 … N − 1 (default 20)")
    parser.add_argument("--oracle-from", type=Path, help="the oracle's deals from this --json")
    parser.add_argument("--json", type=Path, help="write every run's deals here")
    parser.add_argument("--depth", type=int, default=MODEL_MATCH_SLOTS,
                        help="the ladder's queue depth (default: docker-compose's worker's "
                             "match slots, which the platform's depth follows)")  # fmt: skip
    parser.add_argument("--every", type=int, default=1,
                        help="results between top-ups (1, the default: after each, as the "
                             "platform does; 0: when the queue is empty)")  # fmt: skip
    parser.add_argument("--corrected", action="store_true",
                        help="score the sets with each deal's luck taken out")  # fmt: skip
    parser.add_argument("--by-deal", action="store_true",
                        help="every deal of a set its own board (Bauer's ladder)")  # fmt: skip
    args = parser.parse_args(argv)
    setup = next((s for s in SETUPS_FULL if s.game == args.game and s.kind == args.family), None)
    if setup is None:
        parser.error(f"no setup {args.game} {args.family}")
    known = json.loads(args.oracle_from.read_text())["oracle"] if args.oracle_from else None
    deals: dict[str, list[int | None]] = {"matchmaking": [], "oracle": []}
    for run in range(args.runs):
        pool = Pool(engine.load_game(setup.game, **setup.params), family(setup.kind))
        choosers = {"matchmaking": ladder_chooser(pool, run, args.depth, args.every or None),
                    "oracle": oracle_chooser(pool, run)}  # fmt: skip
        for mode, chooser in choosers.items():
            if mode == "oracle" and known is not None:
                deals[mode].append(known[run])
                continue
            _, found = run_schedule(pool, setup, run, duplicate=True, choose=chooser,
                                    corrected=args.corrected, by_deal=args.by_deal)  # fmt: skip
            deals[mode].append(found)
        print(run, {mode: runs[-1] for mode, runs in deals.items()}, flush=True)
    medians = {mode: median_deals(runs) for mode, runs in deals.items()}
    paired = [math.log(m / o) for m, o in zip(*deals.values(), strict=True) if m and o]
    print(f"{setup.label}, {FAMILIES[setup.kind]}, runs 0-{args.runs - 1}: medians {medians}")
    if medians["matchmaking"] and medians["oracle"] and paired:
        geometric = math.exp(statistics.mean(paired))
        print(f"matchmaking / oracle: {medians['matchmaking'] / medians['oracle']:.3f} "
              f"(geometric mean of the runs' ratios {geometric:.3f})")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(deals) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
