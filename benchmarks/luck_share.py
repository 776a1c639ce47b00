"""The luck's CPU against whole sandboxed matches (issue 34's budget: at most 20 % of a match).

Plays ``--matches`` duplicate matches of each game back to back with ``benchmarks/sandbox.py``'s
steady stream (fresh sandboxes for every game, as a worker plays them; a match's CPU is the
referee's and every sandbox's, read from the bots' control groups, so measure on an otherwise
quiet machine), the game's example heuristic bot (``examples/GAME/heuristic.py``) in every seat
(``--bot random``: the packaged random bot instead, whose matches cost the least). Then it
computes what recording a rated match of a game whose ladder reads luck-corrected scores adds,
from each match's replay: what ``matches.luck.match_luck`` computes (every seat's luck and the
corrected boards), the best of ``--repeat`` passes over the replays, and prints it per match and
over the match's CPU. ``benchmarks/luck.py`` sets the luck against the least a sandboxed
decision costs instead (an upper bound, bots that think not at all).

Run (as root, cgroups mounted): ``python benchmarks/luck_share.py`` (see ``--help``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import engine  # noqa: E402
from benchmarks.sandbox import stream  # noqa: E402
from engine.luck import corrected_boards_of_replay, replay_luck, seat_luck  # noqa: E402
from sandbox import Limits, cgroups, load_bot  # noqa: E402

#: label, game, params: the ladders' duplicate matches (Badugi heads-up at its default length)
GAMES: list[tuple[str, str, dict[str, Any]]] = [
    ("Belote", "belote", {}),
    ("Bauer", "bauer", {}),
    ("Badugi heads-up", "badugi", {"players": 2}),
]


def luck_ms(replays: Sequence[dict[str, Any]], repeat: int) -> float:
    """What recording a rated match computes of its luck (``matches.luck.match_luck``, which
    needs Django: the same three engine calls), ms per match, the best of ``repeat`` passes."""
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        for replay in replays:
            per_deal = replay_luck(replay)
            seat_luck(replay, per_deal)
            corrected_boards_of_replay(replay, per_deal)
        best = min(best, time.process_time() - started)
    return best / len(replays) * 1000


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10, help="matches per game")
    parser.add_argument("--repeat", type=int, default=3, help="passes of the luck (best)")
    parser.add_argument("--only", help="only games whose name contains this text")
    parser.add_argument("--bot", choices=["heuristic", "random"], default="heuristic")
    args = parser.parse_args(argv)
    print(f"{args.matches} sandboxed duplicate matches per game, {args.bot} bots; "
          f"load average {os.getloadavg()[0]:.1f}; {cgroups.describe_mode()}")  # fmt: skip
    print("| game | match CPU, ms | luck CPU, ms | luck / match |")
    print("|---|---|---|---|")
    limits = Limits(match_time_bank_ms=10**9)
    for label, game, params in GAMES:
        if args.only and args.only not in game:
            continue
        path = ROOT / "examples" / (f"{game}/heuristic.py" if args.bot == "heuristic" else "random")
        bot = load_bot(path)
        results: list[engine.MatchResult] = []
        try:
            _, referee, sandboxes = stream(game, params, True, bot, limits, args.matches, 0,
                                           results)  # fmt: skip
        finally:
            bot.close()
        match_ms = referee + sandboxes
        luck = luck_ms([result.replay for result in results], args.repeat)
        print(f"| {label} | {match_ms:.1f} | {luck:.1f} | {luck / match_ms:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
