"""Clock benchmark (issue 29): a loaded host must not cost bots their time.

    .venv/bin/python benchmarks/clock.py [--work 400000] [--timeout-ms 0] [--target 400]

Four copies of one deterministic bot (every decision computes the same fixed sum: the same CPU
work, whatever the game) play a Belote match in the full sandbox, twice with the same seed: on
an idle host, then with two CPU spinners (``while True: pass``, one per core of a two-core
machine) running beside the worker. For each run it prints per decision the mean time charged
(wall time less the CPU wait, :mod:`sandbox.clock`), the bot's CPU time and the wall time, the
slowest, how many decisions took longer than the decision limit in wall time (each one a
``timeout`` under the old wall clock) and the timeouts actually given. The decision limit
(``--timeout-ms``; by default 1.3x the slowest charged decision of an idle calibration match,
at least 20 ms) is what makes the loaded run's wall time a failure and its charged time a pass.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from sandbox import Limits, SandboxedAgent, cgroups, clock  # noqa: E402

BOT = """\
import json, sys
WORK = {work}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({{"type": "ready"}}), flush=True)
    elif message["type"] == "act":
        total = 0
        for i in range(WORK):  # the same CPU work at every decision
            total += i * i
        print(json.dumps({{"id": message["id"], "action": message["legal"][0]}}), flush=True)
    else:
        break
"""


class Recording(SandboxedAgent):
    """Keeps each decision's charged and wall time."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.times: list[tuple[float, float]] = []
        self.cpu_seconds = 0.0

    def _charge(self, decision: clock.DecisionClock) -> None:
        self.times.append((decision.charged(), time.monotonic() - decision.started))
        if decision.group is not None and decision.at_start is not None:
            self.cpu_seconds += decision.group.cpu_seconds() - decision.at_start.cpu
        super()._charge(decision)


def play(bot: Path, limits: Limits, target: int) -> dict[str, float]:
    """One match of four copies of ``bot``: per-decision means and extremes, in ms."""
    agents = [Recording(bot, limits) for _ in range(4)]
    try:
        result = engine.run_match("belote", {"target": target}, list(agents), seed=29)
    finally:
        for agent in agents:
            agent.close()
    times = [t for agent in agents for t in agent.times]
    limit_s = limits.decision_timeout_ms / 1000
    return {
        "decisions": len(times),
        "charged_ms": 1000 * sum(c for c, _ in times) / len(times),
        "cpu_ms": 1000 * sum(a.cpu_seconds for a in agents) / len(times),
        "wall_ms": 1000 * sum(w for _, w in times) / len(times),
        "max_charged_ms": 1000 * max(c for c, _ in times),
        "max_wall_ms": 1000 * max(w for _, w in times),
        "over_limit_wall": sum(1 for _, w in times if w > limit_s),
        "timeouts": sum(1 for f in result.faults if f.verdict == engine.Verdict.TIMEOUT),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=int, default=400_000, help="loop iterations a decision")
    parser.add_argument("--timeout-ms", type=int, default=0)
    parser.add_argument("--target", type=int, default=400, help="Belote target score")
    args = parser.parse_args()
    if cgroups.backend() is None:
        sys.exit(f"needs a control group: {cgroups.unavailable_reason()}")
    with tempfile.TemporaryDirectory() as folder:
        bot = Path(folder) / "work.py"
        bot.write_text(BOT.format(work=args.work))
        os.chmod(folder, 0o755)
        roomy = Limits(decision_timeout_ms=10_000, match_time_bank_ms=600_000)
        calibration = play(bot, roomy, args.target)
        timeout_ms = args.timeout_ms or max(20, int(calibration["max_charged_ms"] * 1.3))
        limits = roomy.replace(decision_timeout_ms=timeout_ms)
        print(f"{os.cpu_count()} CPUs; decision limit {timeout_ms} ms; work {args.work} loops")
        idle = play(bot, limits, args.target)
        spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
        try:
            time.sleep(0.5)
            loaded = play(bot, limits, args.target)
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
    columns = ("decisions", "charged_ms", "cpu_ms", "wall_ms", "max_charged_ms", "max_wall_ms",
               "over_limit_wall", "timeouts")  # fmt: skip
    print(f"{'':12}" + "".join(f"{c:>16}" for c in columns))
    for name, run in (("idle", idle), ("2 spinners", loaded)):
        print(f"{name:12}" + "".join(f"{run[c]:>16.2f}" for c in columns))
    change = 100 * (loaded["charged_ms"] / idle["charged_ms"] - 1)
    print(f"charged per decision, loaded vs idle: {change:+.1f} % (target: within 10 %)")


if __name__ == "__main__":
    main()
