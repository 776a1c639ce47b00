"""Engine throughput on one core: complete deals/s and matches/s with random agents.

The main figure builds the acting seat's observation at every decision, as a real match does;
the ``no obs`` column skips it (what a self-play loop that reads the state directly pays). When
``open_spiel`` is installed, OpenSpiel's euchre (the closest game it ships) is driven from Python
by the same random loop in the same run, and every figure is also given as a ratio to it. Run:
``python benchmarks/engine.py [--seconds 3] [--repeat 3]``. Targets are issue 15's.

Times are the process's CPU time (``time.process_time``), so other load on a shared machine
slows the figures less than wall-clock time would; each figure is the best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from benchmarks.openspiel_playout import random_deal  # noqa: E402


@dataclass(frozen=True)
class Case:
    label: str
    game: str
    params: dict[str, Any]
    unit: str  # what a "deal" is called for this game
    target_per_s: float


CASES = [
    Case("Bauer", "bauer", {}, "deals", 13_000),
    Case("Belote", "belote", {}, "deals", 10_000),
    Case("Barbu (Geronimo)", "barbu", {"mode": "geronimo"}, "deals", 8_000),
    Case("Badugi heads-up", "badugi", {"players": 2}, "hands", 20_000),
]


def play_states(game: engine.Game, seconds: float, observe: bool) -> tuple[int, int, float]:
    """Random playouts, an observation per decision if ``observe``: (matches, deals, elapsed)."""
    rng = random.Random(1)
    pick = rng.random
    matches = deals = 0
    started = time.process_time()
    seed = 0
    while time.process_time() - started < seconds:
        state = game.new_initial_state(seed)
        seed += 1
        while True:
            seat = state.current_player()
            if seat < 0:
                break
            if observe:
                state.observation(seat)
            legal = state.legal_actions()
            state.apply_action(legal[int(pick() * len(legal))])
        matches += 1
        deals += len(state.deals)
    return matches, deals, time.process_time() - started


def openspiel_euchre(seconds: float, observe: bool) -> float | None:
    """OpenSpiel euchre deals/s, driven from Python like :func:`play_states` (None: no pyspiel).

    ``observe`` builds the acting player's information-state string at every decision.
    """
    try:
        import pyspiel  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    game = pyspiel.load_game("euchre")
    pick = random.Random(1).random
    deals = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        random_deal(game, pick, observe)
        deals += 1
    return deals / (time.process_time() - started)


def run_matches(game: engine.Game, seconds: float) -> tuple[int, float]:
    """Whole matches through ``engine.run_match`` (timing, replay building included)."""
    count = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        agents = [engine.RandomAgent(count * 8 + i) for i in range(game.num_players)]
        engine.run_match(game, None, agents, seed=count)
        count += 1
    return count, time.process_time() - started


def badugi_evaluations(seconds: float) -> tuple[float, float] | None:
    """Hand evaluations per second, if the Badugi evaluator is there."""
    try:
        from engine.games.badugi import hand_value
    except ImportError:
        return None
    deck = [str(c) for c in engine.CARDS]
    rng = random.Random(3)
    hands = [rng.sample(deck, 4) for _ in range(20_000)]
    evaluate: Callable[[list[str]], object] = hand_value
    count = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        for hand in hands:
            evaluate(hand)
        count += len(hands)
    return count / (time.process_time() - started), 1_000_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU time per measurement")
    parser.add_argument("--repeat", type=int, default=1, help="runs per figure (best kept)")
    args = parser.parse_args()
    repeat = max(1, args.repeat)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    python = sys.version.split()[0]
    print(
        f"engine benchmark, one core, {args.seconds:g} s CPU time per run, best of {repeat}, "
        f"Python {python}, engine {'compiled by mypyc' if engine.compiled() else 'Python source'}"
    )
    euchre = openspiel_euchre(args.seconds, observe=False)
    if euchre is None:
        print("OpenSpiel euchre: open_spiel is not installed (pip install card-arena[openspiel])")
    else:
        euchre = max(
            [euchre] + [openspiel_euchre(args.seconds, False) or 0 for _ in range(1, repeat)]
        )
        euchre_obs = max(openspiel_euchre(args.seconds, observe=True) or 0 for _ in range(repeat))
        print(
            f"OpenSpiel euchre, Python-driven: {euchre:,.0f} deals/s "
            f"({euchre_obs:,.0f} with an information-state string per decision)"
        )
    header = (
        f"{'game':<18} {'unit':<6} {'per s':>9} {'target':>8} {'ratio':>6} {'/euchre':>7} "
        f"{'no obs':>9} {'/euchre':>7} {'obs cost':>8} {'deals/match':>11} {'run_match/s':>12}"
    )
    print(header)
    print("-" * len(header))

    def vs_euchre(rate: float) -> str:
        return f"{rate / euchre:>7.2f}" if euchre else f"{'-':>7}"

    available = engine.available_games()
    for case in CASES:
        if case.game not in available:
            print(f"{case.label:<18} (not registered)")
            continue
        game = engine.load_game(case.game, **case.params)
        observed = [play_states(game, args.seconds, observe=True) for _ in range(repeat)]
        matches, deals, elapsed = max(observed, key=lambda run: run[1] / run[2])
        per_s = deals / elapsed
        bare = max(
            d / e for _, d, e in (play_states(game, args.seconds, False) for _ in range(repeat))
        )
        runs, run_elapsed = run_matches(game, args.seconds)
        print(
            f"{case.label:<18} {case.unit:<6} {per_s:>9,.0f} {case.target_per_s:>8,.0f} "
            f"{per_s / case.target_per_s:>6.2f} {vs_euchre(per_s)} {bare:>9,.0f} "
            f"{vs_euchre(bare)} {1 - per_s / bare:>8.0%} {deals / matches:>11.1f} "
            f"{runs / run_elapsed:>12,.1f}"
        )
    evals = badugi_evaluations(args.seconds)
    if evals is not None:
        rate, target = evals
        print(
            f"{'Badugi hand_value':<18} {'evals':<6} {rate:>9,.0f} {target:>8,.0f} "
            f"{rate / target:>6.2f}"
        )


if __name__ == "__main__":
    main()
