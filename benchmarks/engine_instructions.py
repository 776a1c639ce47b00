"""Engine cost as instructions per deal (callgrind), optionally against an older revision.

Wall-clock deals/s on a shared machine move by 10 % and more between runs; callgrind's
instruction count does not depend on other load, so it can tell whether a change made the rules
slower by a few percent. Each figure plays the same seeded random playouts with an observation
per decision (as :mod:`benchmarks.engine` does) and subtracts a run of the first half of them.
Run: ``python benchmarks/engine_instructions.py [--against 550b24b] [--playouts 20]
[--games barbu] [--observation]``; needs ``valgrind``. ``--against`` checks the revision out
with ``git worktree`` into a scratch directory and measures its engine the same way; each row
then gives today's speed over its. ``--observation`` splits each figure into the rules alone
(the same playouts without observations) and the observations alone (the difference).
``--openspiel`` plays the deals through the OpenSpiel adapter (``arena_openspiel``, one deal per
game) with its information-state string instead of the engine's observation. ``--no-gc`` turns
the garbage collector off in the measured process (whose passes, set off by allocations, walk
every live object: a change elsewhere can make them cost more in a part that did not change).
"""

from __future__ import annotations

import argparse
import gc
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: label, game, options (the games of benchmarks/engine.py)
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("Bauer", "bauer", {}),
    ("Belote", "belote", {}),
    ("Barbu (Geronimo)", "barbu", {"mode": "geronimo"}),
    ("Badugi heads-up", "badugi", {"players": 2}),
]
CASES_BY_GAME = {game: params for _, game, params in CASES}


def play(root: str, game_name: str, playouts: int, flags: str) -> None:
    """The measured workload (run in the child process, under callgrind); ``flags``: ``o``
    observations, ``s`` through OpenSpiel, ``g`` the garbage collector off."""
    sys.path.insert(0, root)
    if "g" in flags:
        gc.disable()
    observe = "o" in flags
    if "s" in flags:
        play_openspiel(game_name, playouts, observe)
        return
    import engine

    game = engine.load_game(game_name, **CASES_BY_GAME[game_name])
    pick = random.Random(1).random
    deals = 0
    for seed in range(playouts):
        state = game.new_initial_state(seed)
        while (seat := state.current_player()) >= 0:
            if observe:
                state.observation(seat)
            legal = state.legal_actions()
            state.apply_action(legal[int(pick() * len(legal))])
        deals += len(state.deals)
    print(f"deals={deals}")


def play_openspiel(game_name: str, playouts: int, observe: bool) -> None:
    """The same through the OpenSpiel adapter: one deal per game, chance's outcomes drawn by the
    same seeded generator, the acting seat's information-state string if ``observe``."""
    import pyspiel
    from openspiel_playout import random_deal  # beside this script (any revision's engine)

    import arena_openspiel  # noqa: F401 - registers the games

    options = ",".join(f"{k}={v}" for k, v in CASES_BY_GAME[game_name].items())
    game = pyspiel.load_game(f"arena_{game_name}({options})" if options else f"arena_{game_name}")
    pick = random.Random(1).random
    for _ in range(playouts):
        random_deal(game, pick, observe)
    print(f"deals={playouts}")


def instructions(root: Path, game: str, playouts: int, flags: str) -> tuple[int, int]:
    """(instructions, deals) of ``playouts`` playouts of ``game`` with the engine in ``root``."""
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
         __file__, "--child", str(root), game, str(playouts), f"+{flags}"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    collected = re.search(r"Collected : (\d+)", out.stderr)
    deals = re.search(r"deals=(\d+)", out.stdout)
    assert collected and deals, out.stderr[-2000:]
    return int(collected.group(1)), int(deals.group(1))


def per_deal(root: Path, game: str, playouts: int, flags: str) -> float:
    """Instructions per deal of the second half of ``playouts``: the first half pays the import
    and the tables built on first use (Badugi's hand table, cached masks), which a long run
    amortises."""
    base, base_deals = instructions(root, game, playouts // 2, flags)
    total, deals = instructions(root, game, playouts, flags)
    return (total - base) / (deals - base_deals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--against", help="a git revision whose engine to measure too")
    parser.add_argument("--playouts", type=int, default=20, help="seeded playouts per figure")
    parser.add_argument("--games", help="comma-separated (default: all four)")
    parser.add_argument("--observation", action="store_true",
                        help="also the rules alone and the observations alone")  # fmt: skip
    parser.add_argument("--openspiel", action="store_true",
                        help="through the OpenSpiel adapter: information states")  # fmt: skip
    parser.add_argument("--no-gc", action="store_true", help="the garbage collector off")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        root, game, playouts, flags = args.child
        play(root, game, int(playouts), flags)
        return
    rules = ("s" if args.openspiel else "") + ("g" if args.no_gc else "")
    cases = [c for c in CASES if not args.games or c[1] in args.games.split(",")]
    with tempfile.TemporaryDirectory() as scratch:
        old = Path(scratch) / "old"
        if args.against:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old), args.against],
                check=True, capture_output=True,
            )  # fmt: skip
        try:
            what = "information-state strings (OpenSpiel)" if args.openspiel else "observations"
            print(f"instructions per deal (callgrind), {args.playouts} playouts, {what} on")
            header = f"{'game':<18} {'now':>12}"
            if args.against:
                header += f" {args.against:>12} {'speed now/then':>15}"
            print(header)
            for label, game, _ in cases:
                now = per_deal(ROOT, game, args.playouts, "o" + rules)
                then = per_deal(old, game, args.playouts, "o" + rules) if args.against else 0.0
                rows = [(label, now, then)]
                if args.observation:
                    rules_now = per_deal(ROOT, game, args.playouts, rules)
                    rules_then = per_deal(old, game, args.playouts, rules) if args.against else 0.0
                    rows += [("  rules alone", rules_now, rules_then),
                             ("  observations", now - rules_now, then - rules_then)]  # fmt: skip
                for name, a, b in rows:
                    row = f"{name:<18} {a:>12,.0f}"
                    if args.against:
                        row += f" {b:>12,.0f} {b / a:>15.3f}"
                    print(row, flush=True)
        finally:
            if args.against:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)],
                    check=False, capture_output=True,
                )  # fmt: skip


if __name__ == "__main__":
    main()
