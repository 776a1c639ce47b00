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

from .cgroups import BotGroup, Usage

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
    at_start: Usage | None = None  # the group's usage when the decision began
    _stopped: tuple[float, Usage] | None = None  # the time and the group's usage at the reply

    @classmethod
    def start(cls, group: BotGroup | None, usage: Usage | None = None) -> DecisionClock:
        """``usage``: the group's, read just before (a frozen group's does not move)."""
        if group is None:
            return cls(None, time.monotonic())
        return cls(group, time.monotonic(), usage if usage is not None else group.usage())

    def stop(self, usage: Usage) -> None:
        """The reply is in and ``usage`` is the group's since: the decision's time ends here."""
        self._stopped = (time.monotonic(), usage)

    def excluded(self) -> float:
        """Seconds of this decision so far the host kept the bot waiting for a CPU."""
        if self.group is None or self.at_start is None or self.at_start.wait is None:
            return 0.0
        now, usage = self._stopped or (time.monotonic(), self.group.usage())
        if usage.wait is None:
            return 0.0
        waited = usage.wait - self.at_start.wait
        if waited <= 0:
            return 0.0
        off_cpu = now - self.started - (usage.cpu - self.at_start.cpu)
        return max(0.0, min(waited, off_cpu))

    def charged(self) -> float:
        """The decision's time so far (or until :meth:`stop`), as charged to the bot."""
        excluded = self.excluded()
        end = self._stopped[0] if self._stopped is not None else time.monotonic()
        return max(0.0, end - self.started - excluded)
