"""Play matches with the sandbox runner alone (no database, no broker), in N processes that
take the next match as they come free: the baseline of ``benchmarks/platform_throughput.py``.

    python benchmarks/runner_alone.py JOBS.json [PROCESSES]

``JOBS.json`` is a list of ``{"game", "params", "seed", "duplicate", "seats": [file, ...]}``.
Prints the seconds spent playing (after the imports), so start-up is not counted.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from sandbox import SandboxedAgent, load_bot  # noqa: E402


def play(job: dict[str, object]) -> None:
    paths = [str(p) for p in job["seats"]]  # type: ignore[attr-defined]
    packages = {path: load_bot(path) for path in dict.fromkeys(paths)}
    agents = [SandboxedAgent(packages[path]) for path in paths]
    try:
        game = engine.load_game(str(job["game"]), **job["params"])  # type: ignore[arg-type]
        engine.run_match(game, None, agents, int(job["seed"]),  # type: ignore[call-overload]
                         duplicate=bool(job["duplicate"]))  # fmt: skip
    finally:
        for agent in agents:
            agent.close()
        for package in packages.values():
            package.close()


def main() -> None:
    jobs = json.loads(Path(sys.argv[1]).read_text())
    processes = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        pool.map(abs, range(processes))  # the workers are up before the clock starts
        started = time.perf_counter()
        pool.map(play, jobs, chunksize=1)
        print(f"{time.perf_counter() - started:.3f}")


if __name__ == "__main__":
    main()
