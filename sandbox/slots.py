"""Unprivileged uids for sandboxed bots, one per concurrently running bot.

Root is exempt from ``RLIMIT_NPROC`` (and holds every capability), so a worker running as root
must drop to an unprivileged uid before it starts bubblewrap. Each running bot gets its own uid
from a pool (``ARENA_SANDBOX_UID_BASE``, default 60000, ``ARENA_SANDBOX_UID_COUNT`` uids), so
bots can never signal, trace or out-count each other even if a namespace were escaped. Slots are
claimed with ``flock`` on one lock file per uid, which works across worker processes and is
released by the kernel if a worker dies.

uids are host-wide, so their locks must be too: one folder for every worker of every deployment
on the host (``ARENA_SANDBOX_LOCK_DIR``, default ``/run/arena-sandbox``; containers bind the
host's). Locks in each worker's ``$TMPDIR`` let two deployments hand out the same uid, and a
slot swept by uid then killed the other deployment's bot (issue 29). With a control group the
teardown kills the group alone (:mod:`sandbox.agent`); :meth:`Slot.sweep` by uid is only for
workers without one.

A worker that is not root cannot change uid: its bots run under its own uid (still inside their
own user namespace, where the process limit is counted per namespace).
"""

from __future__ import annotations

import fcntl
import logging
import os
import random
import signal
import stat
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("sandbox")


class NoFreeSlot(RuntimeError):
    """All sandbox uids are busy: more concurrent bots than ``ARENA_SANDBOX_UID_COUNT``."""


class SandboxSettingError(ValueError):
    """An ``ARENA_SANDBOX_*`` environment variable holds a value the sandbox cannot use."""


def _env_uint(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip() or str(default)
    if not raw.isdigit():
        raise SandboxSettingError(f"{name}={raw!r}: expected a whole number such as {default}")
    return int(raw)


def uid_pool() -> range:
    """The uids bots run as, from ``ARENA_SANDBOX_UID_BASE`` and ``ARENA_SANDBOX_UID_COUNT``
    (read when first needed, so a bad value is reported as an error, not at import)."""
    base = _env_uint("ARENA_SANDBOX_UID_BASE", 60000)
    count = _env_uint("ARENA_SANDBOX_UID_COUNT", 256)
    if count < 1:
        raise SandboxSettingError("ARENA_SANDBOX_UID_COUNT=0: at least one uid is needed")
    return range(base, base + count)


@dataclass
class Slot:
    uid: int | None  # None: run as ourselves (not root)
    _fd: int | None = None

    def sweep(self, *, keep: int | None = None, timeout: float = 30.0) -> bool:
        """Kill every process of the slot's uid but ``keep`` and wait until they are gone
        (True), for where no control group does it: the uid is this slot's alone, so they are
        all the bot's."""
        if self.uid is None:
            return True  # our own uid: nothing to tell the bot's processes by
        deadline = time.monotonic() + timeout
        while pids := [pid for pid in uid_processes(self.uid) if pid != keep]:
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if time.monotonic() > deadline:
                return False
            time.sleep(0.001)
        return True

    def wait_gone(self, *, timeout: float) -> bool:
        """Wait, killing nothing, until no live process of the slot's uid is left (True): the
        exiting rest of a sandbox that ended by itself."""
        if self.uid is None:
            return True
        deadline = time.monotonic() + timeout
        while uid_processes(self.uid):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.001)
        return True

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None


_local_lock = threading.Lock()


def uid_processes(uid: int) -> list[int]:
    """Pids of the live (not zombie) processes whose real uid is ``uid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", "rb") as f:
                status = f.read()
        except OSError:
            continue
        fields = dict(line.split(b":", 1) for line in status.splitlines() if b":" in line)
        if fields.get(b"State", b"").strip().startswith(b"Z"):
            continue
        if int(fields.get(b"Uid", b"-1").split()[0]) == uid:
            found.append(int(entry))
    return found


DEFAULT_LOCK_DIR = Path("/run/arena-sandbox")


def lock_dir_setting() -> Path:
    """``ARENA_SANDBOX_LOCK_DIR`` (``ARENA_SANDBOX_LOCKS``, its older name), else
    ``/run/arena-sandbox`` where ``/run`` is writable, else the temporary folder (logged: two
    deployments on one host could then hand out the same uid)."""
    configured = os.environ.get("ARENA_SANDBOX_LOCK_DIR") or os.environ.get("ARENA_SANDBOX_LOCKS")
    if configured:
        return Path(configured)
    if os.access(DEFAULT_LOCK_DIR.parent, os.W_OK):
        return DEFAULT_LOCK_DIR
    fallback = Path(tempfile.gettempdir()) / "arena-uids"
    log.warning(
        "%s is not writable: sandbox uid locks in %s are not shared with other deployments on "
        "this host (set ARENA_SANDBOX_LOCK_DIR to a host-wide folder)",
        DEFAULT_LOCK_DIR.parent,
        fallback,
    )
    return fallback


def _lock_dir() -> Path:
    """The lock files' directory: ours alone (in a shared ``/tmp`` anybody could have made it
    first, to hold every slot's lock or to plant symbolic links for root to follow)."""
    path = lock_dir_setting()
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise NoFreeSlot(f"sandbox lock directory {path} is not a directory owned by us")
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(path, 0o700)
    return path


def acquire_slot() -> Slot:
    """Claim a free uid (root) or the no-op slot (not root)."""
    if os.geteuid() != 0:
        return Slot(uid=None)
    pool = uid_pool()
    directory = _lock_dir()
    start = random.randrange(len(pool))  # spread claims so workers rarely probe the same files
    with _local_lock:
        for i in range(len(pool)):
            uid = pool[(start + i) % len(pool)]
            flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(directory / f"{uid}.lock", flags, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return Slot(uid=uid, _fd=fd)
    raise NoFreeSlot(f"all {len(pool)} sandbox uids from {pool.start} are in use")
