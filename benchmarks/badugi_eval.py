"""Badugi figures on one core: evaluator speed and the heuristic's win rate vs random in bb/100.

Run ``python benchmarks/badugi_eval.py [--seconds 3] [--pairs 2000]``. Prints:

* the one-off build time of the 270,725-hand evaluation table and ``hand_value`` evaluations/s
  (target 1,000,000) on card texts and on :class:`engine.Card` values;
* (heads-up hands/s with random agents are measured by ``benchmarks/engine.py``;)
* the heuristic agent against random in a duplicate heads-up match of ``--pairs`` hand pairs (the
  same deck with the button swapped): big blinds per 100 hands with the standard error over pairs.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine.games import badugi_hands  # noqa: E402
from engine.games.badugi import BadugiGame, big_blinds_per_100, hand_value  # noqa: E402


def table_build_seconds() -> float:
    badugi_hands._TABLE = None
    started = time.perf_counter()
    badugi_hands.all_hand_values()
    return time.perf_counter() - started


def evaluations_per_second(seconds: float, as_cards: bool) -> float:
    rng = random.Random(3)
    deck = list(engine.CARDS) if as_cards else [str(c) for c in engine.CARDS]
    hands = [rng.sample(deck, 4) for _ in range(20_000)]
    count = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        for hand in hands:
            hand_value(hand)
        count += len(hands)
    return count / (time.perf_counter() - started)


def heuristic_vs_random(pairs: int, seed: int) -> tuple[float, float, float]:
    """(bb/100 of the heuristic, its standard error over hand pairs, big_blinds_per_100)."""
    agents = [engine.make_agent("badugi", "heuristic", 0), engine.make_agent("badugi", "random", 1)]
    result = engine.run_match("badugi", {"hands": pairs}, agents, seed=seed, duplicate=True)
    first, second = result.games
    big_blind = BadugiGame().params.big_blind
    per_pair = []
    for a, b in zip(first.state.deals, second.state.deals, strict=True):
        assert a.scores is not None and b.scores is not None
        chips = (a.scores[first.seats.index(0)] + b.scores[second.seats.index(0)]) / 2
        per_pair.append(100 * chips / big_blind)
    mean = statistics.mean(per_pair)
    error = statistics.stdev(per_pair) / len(per_pair) ** 0.5
    return mean, error, big_blinds_per_100(result)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per speed figure")
    parser.add_argument("--pairs", type=int, default=2000, help="duplicate hand pairs")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    print(f"Badugi, one core, Python {sys.version.split()[0]}")
    print(f"evaluation table built in {table_build_seconds():.3f} s")
    for label, as_cards in (("card texts", False), ("Card values", True)):
        rate = evaluations_per_second(args.seconds, as_cards)
        print(f"hand_value on {label:<11}: {rate:>12,.0f} evals/s (target 1,000,000)")
    # heads-up hands/s with random agents: benchmarks/engine.py
    started = time.perf_counter()
    mean, error, overall = heuristic_vs_random(args.pairs, args.seed)
    elapsed = time.perf_counter() - started
    print(
        f"heuristic vs random       : {mean:+.1f} ± {error:.1f} bb/100 over {args.pairs:,} "
        f"duplicate hand pairs (match result {overall:+.1f} bb/100, {elapsed:.1f} s)"
    )


if __name__ == "__main__":
    main()
