"""The luck's CPU against whole sandboxed matches (issue 34's budget: at most 20 % of a match).

Plays ``--matches`` duplicate matches of each game back to back, the game's example heuristic
bot (``examples/GAME/heuristic.py``) in every seat under the full sandbox, fresh sandboxes for
every game, as a worker plays them (``--bot random``: the packaged random bot instead, whose
matches cost the least); a match's CPU is the referee's (this process) and every
sandbox's (read from the bots' control groups, so measure on an otherwise quiet machine). Then
it computes what recording a rated match of a game whose ladder reads luck-corrected scores
adds, from each match's replay: ``matches.luck.match_luck`` (every seat's luck and the corrected
boards), the best of ``--repeat`` passes over the replays, and prints it per match and over the
match's CPU. ``benchmarks/luck.py`` sets the luck against the least a sandboxed decision costs
instead (an upper bound, bots that think not at all).

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
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]

import engine  # noqa: E402
from engine.luck import corrected_boards_of_replay, replay_luck, seat_luck  # noqa: E402
from sandbox import Limits, SandboxedAgent, cgroups, load_bot  # noqa: E402

#: label, game, params: the ladders' duplicate matches (Badugi heads-up at its default length)
GAMES: list[tuple[str, str, dict[str, Any]]] = [
    ("Belote", "belote", {}),
    ("Bauer", "bauer", {}),
    ("Badugi heads-up", "badugi", {"players": 2}),
]


def played(
    game: str, params: dict[str, Any], matches: int, path: Path
) -> tuple[list[dict[str, Any]], float]:
    """The replays of ``matches`` sandboxed duplicate matches of the bot at ``path`` and their
    CPU, ms per match."""
    bot = load_bot(path)
    limits = Limits(match_time_bank_ms=10**9)
    groups = cgroups.backend()
    assert groups is not None, "a match's CPU is read from the bots' control groups"
    players = engine.load_game(game, **params).num_players
    replays = []
    sandboxes_before, before = groups.cpu_seconds(), os.times()
    agents: list[SandboxedAgent] = []
    for seed in range(matches):
        agents = [SandboxedAgent(bot, limits) for _ in range(players)]
        try:
            result = engine.run_match(game, params, agents, seed=seed, duplicate=True)
        finally:
            for agent in agents:
                agent.close(wait=False)
        assert not result.faults, result.faults
        replays.append(result.replay)
    for agent in agents:
        agent.close()
    after = os.times()
    cpu = sum(after[:2]) - sum(before[:2]) + groups.cpu_seconds() - sandboxes_before
    bot.close()
    return replays, cpu / matches * 1000


def luck_ms(replays: Sequence[dict[str, Any]], repeat: int) -> float:
    """What ``matches.luck.match_luck`` costs per match, the best of ``repeat`` passes."""
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
    for label, game, params in GAMES:
        if args.only and args.only not in game:
            continue
        path = ROOT / "examples" / (f"{game}/heuristic.py" if args.bot == "heuristic" else "random")
        replays, match_ms = played(game, params, args.matches, path)
        luck = luck_ms(replays, args.repeat)
        print(f"| {label} | {match_ms:.1f} | {luck:.1f} | {luck / match_ms:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
