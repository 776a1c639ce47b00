"""What one sandbox holds, and its teardown: the bot's process (the outer bubblewrap), its
control group, its uid slot and, for a prepared sandbox (:mod:`sandbox.prepared`), the folder
bound at ``/bot``. Also the long-lived threads sandboxes are opened and stopped in.
"""

from __future__ import annotations

import logging
import os
import select
import shutil
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from . import cgroups
from .bwrap import as_user_argv
from .cgroups import BotGroup
from .limits import Limits
from .process import BotProcess
from .runtimes import ResolvedRuntime
from .slots import Slot, acquire_slot

log = logging.getLogger("sandbox")

TEARDOWN_GRACE_S = 5.0  # for the outer bubblewrap to exit once everything else is killed

_POOLS: dict[str, ThreadPoolExecutor] = {}
os.register_at_fork(after_in_child=_POOLS.clear)  # a forked child has none of these threads


def background(work: str) -> ThreadPoolExecutor:
    """Long-lived threads of this process for ``work`` (opening gates, stopping bots, preparing
    sandboxes), so that none waits for another. They never exit: ``--die-with-parent`` ties a
    sandbox to the thread that started it (``prepare`` starts them)."""
    pool = _POOLS.get(work)
    if pool is None:
        pool = _POOLS[work] = ThreadPoolExecutor(
            max_workers=16, thread_name_prefix=f"sandbox-{work}"
        )
    return pool


class SandboxResources:
    """One sandbox's process, control group, uid slot and (a prepared sandbox's) bot folder:
    what must be released even if its owner is dropped without closing it."""

    def __init__(self) -> None:
        self.process: BotProcess | None = None
        self.group: BotGroup | None = None
        self.wrapped = False  # the process is bubblewrap, with the bot inside (not trusted)
        self.slot: Slot | None = None
        self.init_fd: int | None = None  # a pidfd on the sandbox's init (watch_init)
        self.opening: Future[None] | None = None  # the gate being opened in the background
        #: a prepared sandbox's own folder, bound at /bot and filled when its bot is assigned
        self.directory: Path | None = None

    def claim(
        self,
        runtime: ResolvedRuntime,
        limits: Limits,
        *,
        switch_uid: bool,
        backend: cgroups.Backend | None,
    ) -> None:
        """A uid slot (``switch_uid``: the worker is root) and, with a ``backend``, a control
        group for a new sandbox of ``runtime`` under ``limits``."""
        if switch_uid:
            self.slot = acquire_slot()
        if backend is not None:
            self.group = backend.create(
                cgroups.GroupLimits(
                    memory_bytes=limits.memory_bytes,
                    # + the two bubblewrap processes outside the bot's rlimit count
                    max_pids=runtime.max_processes(limits) + 2,
                )
            )

    def spawn(
        self,
        command: list[str],
        limits: Limits,
        *,
        cwd: str | None = "/",
        env: dict[str, str] | None = None,
        seccomp_fd: int | None = None,
    ) -> BotProcess:
        """Start ``command`` (bubblewrap's, or a trusted bot's) as the slot's uid, gated: a
        background thread admits it to the group and opens its gate (:meth:`gate_opened`), so
        the sandboxes started together are admitted side by side and share the kernel's wait
        for an RCU grace period (4-12 ms each when one after another)."""
        slot = self.slot
        self.process = process = BotProcess(
            as_user_argv(slot.uid if slot is not None else None) + command,
            cwd=cwd,
            env=env if env is not None else {},
            max_line_bytes=limits.max_line_bytes,
            max_output_bytes=limits.max_output_bytes,
            max_stderr_bytes=limits.max_stderr_bytes,
            pass_fds=() if seccomp_fd is None else (seccomp_fd,),
            admit=self.group.add if self.group is not None else None,
            open_gate=False,
        )
        self.opening = background("gate").submit(process.open_gate)
        return process

    def watch_init(self) -> None:
        """Keep a pidfd on the sandbox's init, the outer bubblewrap's only child: its exit
        means every process of the sandbox is gone (the kernel reaps a pid namespace before
        its init has exited), so a sandbox that ended by itself is waited for with one
        ``poll`` where each wait scanned every process of the host for the slot's uid (7 ms
        of CPU per bot with 135 processes). Without it (no such ``/proc`` file), the scan."""
        if self.process is None or not self.wrapped or self.init_fd is not None:
            return
        pid = self.process.pid
        try:
            with open(f"/proc/{pid}/task/{pid}/children", "rb") as f:
                children = f.read().split()
            if len(children) == 1:
                self.init_fd = os.pidfd_open(int(children[0]))
        except OSError:
            pass

    def _sandbox_gone(self, slot: Slot) -> bool:
        """Wait until no process of a sandbox that ended by itself is left (True)."""
        if self.init_fd is None:
            return slot.wait_gone(timeout=TEARDOWN_GRACE_S)
        poll = select.poll()  # not select(): a busy worker's descriptors pass 1024
        poll.register(self.init_fd, select.POLLIN)
        return bool(poll.poll(TEARDOWN_GRACE_S * 1000))

    def end_process(self) -> None:
        """Kill every process of the bot and return only once all are gone; then free the slot
        (a slot whose processes could not be made to go is never reused: logged)."""
        try:
            self.gate_opened()
        except Exception:  # noqa: BLE001 - opening it failed and killed the process
            pass
        gone = True
        outer = self.process.pid if self.process is not None and self.wrapped else None
        # a sandbox that ended by itself: its init may still be exiting (out of the group, no
        # longer the outer bubblewrap's child) when the outer one has already gone
        ended_alone = self.process is not None and self.wrapped and self.process.exited
        # first every process but the outer bubblewrap, which then reaps the sandbox's init
        # (else the host's init inherits it) and exits
        if self.group is not None:
            gone = self.group.kill(keep=outer)
        elif self.slot is not None:  # no group: the slot's uid is the bot's alone
            gone = self.slot.sweep(keep=outer)
        if self.process is not None:
            if outer is not None and (self.group is not None or self.slot is not None):
                self.process.wait_exit(TEARDOWN_GRACE_S)
            self.process.kill()  # then the one we started, and reap it
            self.process = None
        if self.group is not None:
            gone = self.group.destroy() and gone
            self.group = None
        elif self.slot is not None:
            gone = self.slot.sweep() and gone
        if self.slot is not None and ended_alone:
            gone = self._sandbox_gone(self.slot) and gone
        if self.init_fd is not None:
            os.close(self.init_fd)
            self.init_fd = None
        if self.slot is not None:
            if gone:
                self.slot.release()
            else:
                log.error("sandbox uid %s is not reused: its processes did not end", self.slot.uid)
            self.slot = None
        if self.directory is not None:  # its processes are gone (or it is logged above)
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None

    def gate_opened(self) -> None:
        """Wait until the gate is open (or failed to: it killed the process then); raises
        what opening it raised, once."""
        opening, self.opening = self.opening, None
        if opening is not None:
            opening.result()

    def detach(self) -> SandboxResources:
        """The sandbox, moved to a holder of its own (this one is left empty)."""
        moved = SandboxResources()
        moved.adopt(self)
        return moved

    def adopt(self, other: SandboxResources) -> None:
        """Take over ``other``'s sandbox (this holder must hold none; ``other`` is emptied)."""
        assert self.process is None and self.group is None and self.slot is None
        self.process, self.group, self.wrapped, self.slot, self.init_fd = (
            other.process, other.group, other.wrapped, other.slot, other.init_fd
        )  # fmt: skip
        self.opening, self.directory = other.opening, other.directory
        other.process, other.group, other.wrapped, other.slot, other.init_fd = (
            None, None, False, None, None
        )  # fmt: skip
        other.opening, other.directory = None, None
