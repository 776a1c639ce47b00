"""Play matches with the sandbox runner alone (no database, no broker), in N processes that
take the next match as they come free: the baseline of ``benchmarks/platform_throughput.py``.

    python benchmarks/runner_alone.py JOBS.json [PROCESSES]

``JOBS.json`` is a list of ``{"game", "params", "seed", "duplicate", "seats": [file, ...]}``.
Prints the seconds spent playing (after the imports), so start-up is not counted. Each process
keeps a pool of prepared sandboxes as a platform worker does (``ARENA_PREPARED_SANDBOXES``,
default 0: none), and Python bots start from their bytecode as on a worker (:mod:`sandbox.bytecode`:
each process compiles a package's at its first match of it, as each worker of the platform's
benchmark does with its own cache).
"""

from __future__ import annotations

import json
import multiprocessing
import multiprocessing.util
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from sandbox import SandboxedAgent, load_bot  # noqa: E402
from sandbox.bytecode import with_bytecode  # noqa: E402
from sandbox.pool import SandboxPool, prepared_capacity  # noqa: E402

POOL_SIZE = prepared_capacity()
BYTECODE_CACHE = Path(tempfile.mkdtemp(prefix="arena-runner-bytecode-"))
_pools: list[SandboxPool] = []  # this process's, made in it (after the fork)


def pool() -> SandboxPool | None:
    if POOL_SIZE <= 0:
        return None
    if not _pools:
        _pools.append(SandboxPool(POOL_SIZE))
        multiprocessing.util.Finalize(None, _pools[0].close, exitpriority=10)
    return _pools[0]


def play(job: dict[str, object]) -> None:
    paths = [str(p) for p in job["seats"]]  # type: ignore[attr-defined]
    packages = {path: load_bot(path) for path in dict.fromkeys(paths)}
    for package in packages.values():
        with_bytecode(package, BYTECODE_CACHE / str(os.getpid()))  # a worker's own cache
    agents = [SandboxedAgent(packages[path], pool=pool()) for path in paths]
    try:
        game = engine.load_game(str(job["game"]), **job["params"])  # type: ignore[arg-type]
        engine.run_match(game, None, agents, int(job["seed"]),  # type: ignore[call-overload]
                         duplicate=bool(job["duplicate"]))  # fmt: skip
    finally:
        for agent in agents:  # as a worker: the rest of the teardown in the background
            agent.close(wait=False)
        for package in packages.values():
            package.close()


def main() -> None:
    jobs = json.loads(Path(sys.argv[1]).read_text())
    processes = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    workers = multiprocessing.get_context("fork").Pool(processes)
    workers.map(abs, range(processes))  # the workers are up before the clock starts
    started = time.perf_counter()
    workers.map(play, jobs, chunksize=1)
    print(f"{time.perf_counter() - started:.3f}")
    workers.close()  # not terminate(): each process tears its prepared sandboxes down
    workers.join()
    shutil.rmtree(BYTECODE_CACHE, ignore_errors=True)


if __name__ == "__main__":
    main()
