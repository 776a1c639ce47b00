"""Unprivileged uids for sandboxed bots, one per concurrently running bot.

Root is exempt from ``RLIMIT_NPROC`` (and holds every capability), so a worker running as root
must drop to an unprivileged uid before it starts bubblewrap. Each running bot gets its own uid
from a pool (``ARENA_SANDBOX_UID_BASE``, default 60000, ``ARENA_SANDBOX_UID_COUNT`` uids), so
bots can never signal, trace or out-count each other even if a namespace were escaped. Slots are
claimed with ``flock`` on one lock file per uid, which works across worker processes and is
released by the kernel if a worker dies.

A worker that is not root cannot change uid: its bots run under its own uid (still inside their
own user namespace, where the process limit is counted per namespace).
"""

from __future__ import annotations

import fcntl
import os
import random
import stat
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

UID_BASE = int(os.environ.get("ARENA_SANDBOX_UID_BASE", "60000"))
UID_COUNT = int(os.environ.get("ARENA_SANDBOX_UID_COUNT", "256"))


class NoFreeSlot(RuntimeError):
    """All sandbox uids are busy: more concurrent bots than ``ARENA_SANDBOX_UID_COUNT``."""


@dataclass
class Slot:
    uid: int | None  # None: run as ourselves (not root)
    _fd: int | None = None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None


_local_lock = threading.Lock()


def _lock_dir() -> Path:
    """The lock files' directory: ours alone (in a shared ``/tmp`` anybody could have made it
    first, to hold every slot's lock or to plant symbolic links for root to follow)."""
    path = Path(os.environ.get("ARENA_SANDBOX_LOCKS") or Path(tempfile.gettempdir()) / "arena-uids")
    path.mkdir(mode=0o700, exist_ok=True)
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
    directory = _lock_dir()
    start = random.randrange(UID_COUNT)  # spread claims so workers rarely probe the same files
    with _local_lock:
        for i in range(UID_COUNT):
            uid = UID_BASE + (start + i) % UID_COUNT
            flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(directory / f"{uid}.lock", flags, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return Slot(uid=uid, _fd=fd)
    raise NoFreeSlot(f"all {UID_COUNT} sandbox uids from {UID_BASE} are in use")
