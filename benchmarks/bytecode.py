"""A large Python bot's start with and without its bytecode (:mod:`sandbox.bytecode`).

    .venv/bin/python benchmarks/bytecode.py [--lines 3000] [--starts 20] [--rounds 5]

The bot is the packaged random bot importing a generated module of ``--lines`` lines of
ordinary code (functions with loops, conditions and dict displays, as a hand-written strategy
has). Each round starts it ``--starts`` times in the sandbox (spawn, ``hello``, ``ready``, then
the teardown) from a staged copy without bytecode and from one with it, alternated; printed are
the medians over rounds of the CPU a start costs, the sandbox's (up to ``ready``, read from
the bot's own control group: bubblewrap, its init and the bot) and this process's (the
worker's side), and of the wall time to ``ready``, then the one-off cost of compiling the
bytecode in the sandbox (a cache miss, its CPU read from every bot group: measure that on a
quiet machine). CPU time moves less than wall time with other load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sandbox import DEFAULT_LIMITS, BotPackage, SandboxedAgent, cgroups, load_bot  # noqa: E402
from sandbox.bytecode import with_bytecode  # noqa: E402

FUNCTION = '''
def evaluate_{i}(hand, trick, trump):
    """Score a hand against the trick so far ({i})."""
    score = 0
    for card in hand:
        rank, suit = card[:-1], card[-1]
        if suit == trump:
            score += {weight} * len(rank)
        elif rank in ("A", "10"):
            score += {bonus}
        else:
            score -= 1
    table = {{"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2}}
    best = max((table.get(c[:-1], 0), c) for c in trick) if trick else (0, "")
    return score + best[0] - {penalty}
'''


def make_bot(folder: Path, lines: int) -> None:
    """The random bot, importing a generated module of about ``lines`` lines."""
    shutil.copytree(ROOT / "examples" / "random", folder)
    entry = folder / "bot.py"
    entry.write_text(entry.read_text().replace("import sys\n", "import sys\n\nimport strategy\n"))
    per_function = FUNCTION.count("\n")
    functions = [
        FUNCTION.format(i=i, weight=i % 7 + 1, bonus=i % 5, penalty=i % 3)
        for i in range(max(1, lines // per_function))
    ]
    (folder / "strategy.py").write_text('"""A generated strategy."""\n' + "".join(functions))


def starts(package: BotPackage, n: int) -> tuple[float, float, float]:
    """Medians over ``n`` starts: the sandbox's CPU ms up to ``ready`` (read from the bot's own
    control group: bubblewrap, its init and the bot, no other bot's), this process's CPU ms a
    start (the worker's side, the teardown included) and the ms to ``ready``."""
    sandbox_cpu, waits = [], []
    own = os.times()
    for seat in range(n):
        with SandboxedAgent(package, DEFAULT_LIMITS) as agent:
            started = time.perf_counter()
            agent.start({"game": "belote", "seat": seat % 4, "params": {}})
            agent.wait_ready()
            waits.append(time.perf_counter() - started)
            group = agent._res.group
            assert group is not None, "the sandbox's CPU is read from the bot's control group"
            sandbox_cpu.append(group.cpu_seconds())
    after = os.times()
    return (
        statistics.median(sandbox_cpu) * 1000,
        (sum(after[:2]) - sum(own[:2])) / n * 1000,
        statistics.median(waits) * 1000,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=3000, help="lines of the imported module")
    parser.add_argument("--starts", type=int, default=20, help="starts per round and kind")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    groups = cgroups.backend()
    assert groups is not None, "the sandboxes' CPU is read from the bots' control groups"
    work = Path(tempfile.mkdtemp(prefix="arena-bytecode-bench-"))
    try:
        make_bot(work / "bot", args.lines)
        plain, compiled = load_bot(work / "bot"), load_bot(work / "bot")
        started = time.process_time()
        sandboxes = groups.cpu_seconds()
        wall = time.perf_counter()
        assert with_bytecode(compiled, work / "cache")
        miss = (
            (time.perf_counter() - wall) * 1000,
            (groups.cpu_seconds() - sandboxes + time.process_time() - started) * 1000,
        )
        rows: dict[str, list[tuple[float, float, float]]] = {"source": [], "bytecode": []}
        for _ in range(args.rounds):  # alternated: a change in the machine's load hits both
            rows["source"].append(starts(plain, args.starts))
            rows["bytecode"].append(starts(compiled, args.starts))
        plain.close()
        compiled.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    medians = {k: [statistics.median(r[i] for r in v) for i in range(3)] for k, v in rows.items()}
    print(f"a Python bot importing {args.lines:,} generated lines; medians of "
          f"{args.rounds} rounds of {args.starts} starts each")  # fmt: skip
    for kind, (sandbox_cpu, worker_cpu, ready) in medians.items():
        print(f"  from {kind:8}: {sandbox_cpu:6.1f} ms of sandbox CPU + {worker_cpu:4.1f} ms "
              f"of the worker's a start; {ready:5.1f} ms to ready")  # fmt: skip
    ratio = (medians["bytecode"][0] + medians["bytecode"][1]) / (
        medians["source"][0] + medians["source"][1]
    )
    print(f"  a start's CPU with bytecode / without: {ratio:.2f}")
    print(f"  compiling the bytecode once (a cache miss): {miss[0]:.1f} ms wall, "
          f"{miss[1]:.1f} ms CPU")  # fmt: skip


if __name__ == "__main__":
    main()
