"""A sandbox prepared before its bot is known, which then receives exactly one bot.

Starting a bot costs a bubblewrap start (namespaces, mounts, the seccomp filter), its uid slot
and control group, its rlimits and, for an interpreted runtime, the interpreter's own start: all
of it the same for every bot of a runtime under the same limits. A :class:`PreparedSandbox`
does that work ahead: an empty folder of its own is bound read-only at ``/bot``, and the
runtime's trusted gate (:data:`~sandbox.runtimes.PYTHON_GATE`) starts inside the sandbox, says
``arena-gate`` and waits on its stdin. :meth:`PreparedSandbox.assign` then fills the folder
with the bot's files (hard links to its staged copy, or a copy across file systems) and sends
the gate the line that names the bot's entry; the bot's own start is only its own import,
without the standard modules the gate loaded ahead (:data:`~sandbox.runtimes.PYTHON_PRELOADED`).

Every isolation property of a fresh sandbox holds: the bubblewrap arguments, uid, group, rlimits
and seccomp filter are those of :func:`sandbox.bwrap.bwrap_argv` for the same runtime and limits;
the folder is new and empty until its one bot is assigned; a prepared sandbox is handed out once
(:meth:`assign` empties it, a second call raises) and torn down as a fresh one is
(:meth:`SandboxResources.end_process`), its folder removed last. What ran before the bot is the
interpreter's start-up and the gate, trusted code that reads nothing of any bot. Runtimes
without a gate (their command line names the entry: node, native) are never prepared.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

from . import cgroups, seccomp
from .bwrap import SandboxUnavailable, bwrap_argv
from .limits import Limits
from .package import BotPackage, staging_base
from .process import Closed, LineTooLong, OutputLimit, Timeout
from .resources import SandboxResources
from .runtimes import GATE_WAITING, ResolvedRuntime

#: how long a prepared sandbox may take to reach its gate (a loaded machine: seconds)
GATE_TIMEOUT_S = 10.0
#: the niceness the pool's thread prepares sandboxes at (they inherit it), where the worker may
#: set it back (root): preparing yields the CPU to the match being played; each bot runs at the
#: niceness of the thread that assigns it, as a fresh one would
PREPARE_NICE = 10


def prepare_at_low_priority() -> None:
    """Make the calling thread (one that only prepares sandboxes) start them at
    :data:`PREPARE_NICE`; nothing where the niceness could not be set back (not root)."""
    if os.geteuid() == 0:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), PREPARE_NICE)


class PreparedSandbox:
    """An empty, gated sandbox for one bot of ``runtime`` under ``limits`` (:attr:`key`).

    Made in a thread that outlives it (``--die-with-parent``: :mod:`sandbox.pool` uses a
    long-lived one); :meth:`wait_gate` and :meth:`assign` may run in another, one at a time.
    """

    def __init__(self, runtime: ResolvedRuntime, limits: Limits) -> None:
        if not runtime.gated:
            raise SandboxUnavailable(f"runtime {runtime.runtime.name} cannot be prepared ahead")
        self.key = (runtime, limits)
        self.res = SandboxResources()
        self._waiting = False  # the gate said it waits
        try:
            self.res.claim(runtime, limits, switch_uid=os.geteuid() == 0, backend=cgroups.backend())
            folder = tempfile.mkdtemp(prefix=f"bot-{os.getpid()}-prepared-", dir=staging_base())
            self.res.directory = Path(folder)
            os.chmod(folder, 0o755)  # the sandbox uid reads its bot's files there
            self.res.wrapped = True
            seccomp_fd = seccomp.program_fd()
            try:
                command = bwrap_argv(
                    runtime, Path(folder), runtime.gated_command(), limits, seccomp_fd
                )
                self.res.spawn(command, limits, seccomp_fd=seccomp_fd)
            finally:
                if seccomp_fd is not None:
                    os.close(seccomp_fd)
        except BaseException:
            self.res.end_process()
            raise

    def wait_gate(self, timeout: float = GATE_TIMEOUT_S) -> bool:
        """Wait until the sandbox's gate waits for its bot (True); False if it failed to (it
        is torn down then) or was handed out already."""
        if self._waiting:
            return True
        process = self.res.process
        if process is None:
            return False
        try:
            self.res.gate_opened()
            line = process.read_line(time.monotonic() + timeout)
        except (OSError, Closed, Timeout, LineTooLong, OutputLimit):
            line = b""
        if line != GATE_WAITING:
            self.close()
            return False
        self._waiting = True
        return True

    @property
    def alive(self) -> bool:
        """Its gate waits and it has not been handed out or ended."""
        process = self.res.process
        return self._waiting and process is not None and not process.exited

    def assign(self, bot: BotPackage, assignment: bytes) -> SandboxResources:
        """Hand the sandbox to ``bot``, once: its files into the folder bound at ``/bot``,
        ``assignment`` (:meth:`ResolvedRuntime.assignment`) to the gate. The sandbox's
        resources move to the caller, who tears them down; its start-up limit counts from now.
        Raises :class:`SandboxUnavailable` (the sandbox torn down) if it is not usable."""
        if not self.wait_gate():
            raise SandboxUnavailable("a prepared sandbox did not reach its gate")
        res, self.res = self.res, SandboxResources()  # never handed out twice
        self._waiting = False
        process, folder = res.process, res.directory
        assert process is not None and folder is not None
        try:
            _fill(folder, bot.root)
            if os.geteuid() == 0:  # the worker's own priority, before any of the bot runs
                _renice(process.pid, os.getpriority(os.PRIO_PROCESS, 0))
            process.send(assignment, time.monotonic() + GATE_TIMEOUT_S)
        except (OSError, Closed, Timeout, OutputLimit) as err:
            res.end_process()
            raise SandboxUnavailable(f"cannot hand a prepared sandbox its bot: {err}") from err
        process.restart_clock()
        return res

    def close(self) -> None:
        """Tear the sandbox down (nothing if it was handed out)."""
        self._waiting = False
        self.res.end_process()


def _renice(pid: int, nice: int) -> None:
    """Give ``pid`` and every descendant (bubblewrap's two processes and the waiting gate:
    nothing else runs before the bot's line is sent) the niceness ``nice``."""
    todo = [pid]
    while todo:
        current = todo.pop()
        try:
            os.setpriority(os.PRIO_PROCESS, current, nice)
            with open(f"/proc/{current}/task/{current}/children", "rb") as f:
                todo += [int(child) for child in f.read().split()]
        except (ProcessLookupError, FileNotFoundError):
            continue


def _fill(folder: Path, root: Path) -> None:
    """Put the staged bot at ``root`` into ``folder`` (empty): hard links (its staged files are
    never written again), a copy where they are on another file system."""
    shutil.copytree(root, folder, symlinks=True, dirs_exist_ok=True, copy_function=_link)


def _link(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
