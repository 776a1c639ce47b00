"""The clock a bot's decisions are charged on: wall time less the time the host made it wait.

A decision's time used to be wall time from ``act`` to the reply, so a loaded worker host (other
matches, a backup, a noisy neighbour) turned into bots' timeouts. The kernel knows how long a
group's processes were *runnable but waiting for a CPU*: the ``some`` total of the group's
``cpu.pressure`` (pressure stall information; on a cgroup v1 host the bot's twin group in the
cgroup2 hierarchy). That wait is left out of the charge, and the deadline moves out by as much.
A bot that sleeps, blocks or computes is charged as before: only run-queue delay is excluded.

A bot cannot manufacture such wait to think for free: it is capped at the wall time the group
did *not* spend on a CPU (``wall - cpu``), so a bot that runs more threads than there are CPUs
(waiting on its own threads) gets nothing back, and it cannot lower its own priority (the
seccomp filter refuses ``setpriority``, ``sched_setscheduler``). Between its turns it is frozen,
so it cannot load the host for the others either. Without a control group, or without pressure
stall information, the clock is the wall clock (``hello`` says which: ``clock``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .cgroups import BotGroup

#: ``hello``'s ``clock``: how the bot's time is counted
WALL = "wall"
CPU_WAIT_EXCLUDED = "cpu_wait_excluded"


def kind(group: BotGroup | None) -> str:
    """The clock a bot in ``group`` is charged on."""
    if group is not None and group.cpu_wait_seconds() is not None:
        return CPU_WAIT_EXCLUDED
    return WALL


@dataclass
class DecisionClock:
    """One decision's time, from just after the bot's thaw to its reply."""

    group: BotGroup | None
    started: float
    _cpu: float = 0.0
    _wait: float | None = None

    @classmethod
    def start(cls, group: BotGroup | None) -> DecisionClock:
        if group is None:
            return cls(None, time.monotonic())
        wait, cpu = group.cpu_wait_seconds(), group.cpu_seconds()
        return cls(group, time.monotonic(), cpu, wait)

    def excluded(self) -> float:
        """Seconds of this decision so far the host kept the bot waiting for a CPU."""
        if self.group is None or self._wait is None:
            return 0.0
        wall = time.monotonic() - self.started
        now_wait = self.group.cpu_wait_seconds()
        if now_wait is None:
            return 0.0
        waited = now_wait - self._wait
        off_cpu = wall - (self.group.cpu_seconds() - self._cpu)
        return max(0.0, min(waited, off_cpu))

    def charged(self) -> float:
        """The decision's time so far, as charged to the bot."""
        excluded = self.excluded()
        return max(0.0, time.monotonic() - self.started - excluded)
