"""A process's pool of prepared sandboxes (:mod:`sandbox.prepared`), bounded, torn down on close.

A runner (a platform worker, the ``arena`` command, a benchmark) keeps one :class:`SandboxPool`
and gives it to its :class:`~sandbox.agent.SandboxedAgent`\\ s. An agent starting a game's bot
:meth:`~SandboxPool.take`\\ s a prepared sandbox of its runtime and limits if one waits, and
starts a fresh one otherwise; either way the pool notes the demand, and :meth:`~SandboxPool.refill`
(the agents call it once their bots are ready, so preparing never slows their start) prepares
as many again in the background: the next match's sandboxes are prepared while this one plays.
So the pool holds sandboxes for what the process has just used, never more than ``capacity``
(ready and being prepared), the runtimes used least recently giving way first.

Prepared sandboxes are local to the process that made them: nothing is shared between
processes or machines, a forked child starts with no pool, and :meth:`~SandboxPool.close` (at
the runner's exit) tears down every sandbox still waiting. One that died while waiting is
dropped when met. Sandboxes handed out are their agents' to tear down.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import Counter

from .limits import Limits
from .prepared import PreparedSandbox, prepare_at_low_priority
from .resources import background
from .runtimes import ResolvedRuntime
from .slots import SandboxSettingError

log = logging.getLogger("sandbox")

Key = tuple[ResolvedRuntime, Limits]


def prepared_capacity() -> int:
    """``ARENA_PREPARED_SANDBOXES`` (default 0: no pool), for runners outside the platform
    (the ``arena`` command, benchmarks); the platform reads it with its settings."""
    raw = os.environ.get("ARENA_PREPARED_SANDBOXES", "").strip() or "0"
    if not raw.isdigit():
        raise SandboxSettingError(f"ARENA_PREPARED_SANDBOXES={raw!r}: expected a whole number")
    return int(raw)


class SandboxPool:
    """Prepared sandboxes by (runtime, limits); at most ``capacity`` at a time."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._lock = threading.Condition()
        self._ready: dict[Key, list[PreparedSandbox]] = {}  # oldest first; keys by last use
        self._demand: Counter[Key] = Counter()  # asked for since the last refill
        self._preparing: Counter[Key] = Counter()  # being prepared now
        self._closed = False
        self.hits = self.misses = 0

    def take(self, runtime: ResolvedRuntime, limits: Limits) -> PreparedSandbox | None:
        """A prepared sandbox waiting at its gate for a bot of ``runtime`` under ``limits``,
        or None (the caller starts a fresh one); notes the demand for :meth:`refill`."""
        key = (runtime, limits)
        if not runtime.gated or self.capacity <= 0:
            return None
        found: PreparedSandbox | None = None
        dead: list[PreparedSandbox] = []
        with self._lock:
            if self._closed:
                return None
            self._demand[key] += 1
            waiting = self._ready.pop(key, [])
            while waiting and found is None:
                candidate = waiting.pop(0)
                if candidate.alive:
                    found = candidate
                else:
                    dead.append(candidate)
            self._ready[key] = waiting  # the key moves to the most recently used end
            if found is None:
                self.misses += 1
            else:
                self.hits += 1
        for sandbox in dead:
            log.warning("sandbox: a prepared sandbox ended while it waited; dropped")
            sandbox.close()
        return found

    def prepare(self, runtime: ResolvedRuntime, limits: Limits, count: int) -> None:
        """Have ``count`` sandboxes of this kind ready or being prepared (a runner that knows
        what comes next; capacity permitting)."""
        key = (runtime, limits)
        if not runtime.gated:
            return
        with self._lock:
            have = len(self._ready.get(key, [])) + self._preparing[key] + self._demand[key]
            self._demand[key] += max(0, count - have)
        self.refill()

    def refill(self) -> None:
        """Prepare, in the background, as many sandboxes of each kind as were taken (or asked
        for in vain) since the last refill, as far as the capacity allows."""
        with self._lock:
            demand, self._demand = self._demand, Counter()
            if self._closed:
                return
            wanted: list[Key] = []
            for key, count in demand.items():
                for _ in range(count):
                    if self._count() + len(wanted) >= self.capacity and not self._evict(key):
                        break
                    wanted.append(key)
            if not wanted:
                return
            self._preparing.update(wanted)
        background("prepare").submit(self._prepare, wanted)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until no sandbox is being prepared (True; False on timeout)."""
        with self._lock:
            return self._lock.wait_for(lambda: not +self._preparing, timeout)

    def ready_count(self) -> int:
        with self._lock:
            return sum(len(v) for v in self._ready.values())

    def close(self) -> None:
        """Tear down every sandbox still waiting (after those being prepared are done);
        take() then finds none and refill() prepares none. Idempotent."""
        with self._lock:
            self._closed = True
            self._lock.wait_for(lambda: not +self._preparing)
            waiting = [s for kind in self._ready.values() for s in kind]
            self._ready.clear()
        for sandbox in waiting:
            sandbox.close()

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals ----------------------------------------------------------------------------

    def _count(self) -> int:
        return self._preparing.total() + sum(len(v) for v in self._ready.values())

    def _evict(self, key: Key) -> bool:
        """Make room for one ``key``: tear down the oldest waiting sandbox of the kind used
        least recently (not ``key``'s own). Under the lock; False if there is none."""
        for other, waiting in self._ready.items():
            if other != key and waiting:
                background("stop").submit(waiting.pop(0).close)
                return True
        return False

    def _prepare(self, keys: list[Key]) -> None:
        """Start every sandbox asked for (side by side), then wait for each to reach its gate
        and offer it; in the ``prepare`` thread, which outlives them."""
        prepare_at_low_priority()
        started: list[PreparedSandbox] = []
        for runtime, limits in keys:
            try:
                started.append(PreparedSandbox(runtime, limits))
            except (OSError, RuntimeError) as err:  # no slot, group, sandbox: logged
                log.warning("sandbox: cannot prepare a sandbox ahead: %s", err)
                self._prepared((runtime, limits), None)
        for sandbox in started:
            self._prepared(sandbox.key, sandbox if sandbox.wait_gate() else None)

    def _prepared(self, key: Key, sandbox: PreparedSandbox | None) -> None:
        """One preparation of ``key`` is over: offer ``sandbox`` (None: it failed)."""
        with self._lock:
            self._preparing[key] -= 1
            if sandbox is not None and not self._closed:
                self._ready.setdefault(key, []).append(sandbox)
                sandbox = None  # offered: another thread's to take from now on
            self._lock.notify_all()
        if sandbox is not None:
            sandbox.close()
