"""Constant stand-ins for the machine-wide figures in ``/proc`` (the LXCFS idea, made static).

Each sandbox has its own ``/proc``, but many of its files describe the whole machine: a bot that
grows a file in its tmpfs changes ``Shmem`` in ``/proc/meminfo``, a bot that starts threads
changes the thread count in ``/proc/loadavg``, one that opens files changes
``/proc/sys/fs/file-nr``. Its partner, in another sandbox, reads the figure and decodes a bit
per decision (issue 12: 77 of 77 bits through ``Shmem``). So the sandbox binds a fixed file
over each such entry: the same content for the whole life of the worker, whatever any process
does. ``meminfo`` tells the bot its own memory limit; ``stat`` and ``cpuinfo`` keep the CPU
count (runtimes read it there when ``/sys`` is absent), with every counter at zero and no clock
speed. Directories of counters (``/proc/pressure``, ``/proc/fs``) are shown empty.

Every bind costs bubblewrap a parse of the whole mount table (about 0.15 ms of CPU per bind at
each bot start, a third of bubblewrap's work with one bind per entry), so binds are few: a file
no bot can read (mode without read for others: ``slabinfo``, ``timer_list``...; the bot is never
root and has no capabilities) is left as it is, and the ``/proc/sys`` folders that hold counters
are each bound as one folder, a copy of the host's made when the worker starts with the stand-ins
in it (a copy is constant, so it carries nothing either; ``random/uuid``, new at every read,
is left out rather than repeated).
"""

from __future__ import annotations

import atexit
import functools
import os
import re
import shutil
import stat as stat_module
import tempfile
import threading
from pathlib import Path

from .limits import KiB

#: files that only count things machine-wide: shown empty
EMPTY_FILES = (
    "vmstat", "zoneinfo", "buddyinfo", "pagetypeinfo", "slabinfo", "diskstats", "interrupts",
    "softirqs", "schedstat", "vmallocinfo", "timer_list", "key-users", "sched_debug",
)  # fmt: skip
#: files with a fixed content
FIXED_FILES = {
    "loadavg": "0.00 0.00 0.00 1/1 1\n",
    "uptime": "0.00 0.00\n",
    "swaps": "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n",
    "sys/fs/file-nr": "0\t0\t0\n",
    "sys/fs/inode-nr": "0\t0\n",
    "sys/fs/inode-state": "0\t0\t0\t0\t0\t0\t0\n",
    "sys/fs/dentry-state": "0\t0\t45\t0\t0\t0\n",
    "sys/fs/dentry-negative": "0\n",
    "sys/fs/aio-nr": "0\n",
    "sys/kernel/pty/nr": "0\n",
    "sys/kernel/random/entropy_avail": "256\n",
}
#: directories of counters: shown empty
EMPTY_DIRS = ("pressure", "fs", "sys/fs/quota")
#: ``/proc/sys`` folders bound as one copy each, with the stand-ins above inside
COPIED_DIRS = ("sys/fs", "sys/kernel/pty", "sys/kernel/random")
#: left out of the copies: a new value at every read
NOT_COPIED = frozenset({"sys/kernel/random/uuid"})
MEMINFO_KEYS = (
    "Buffers", "Cached", "SwapCached", "Active", "Inactive", "SwapTotal", "SwapFree", "Dirty",
    "Writeback", "AnonPages", "Mapped", "Shmem", "Slab", "SReclaimable", "SUnreclaim",
    "KernelStack", "PageTables", "CommitLimit", "Committed_AS", "VmallocUsed",
)  # fmt: skip


def meminfo(memory_bytes: int) -> str:
    total = memory_bytes // KiB
    lines = [f"{key + ':':<16}{total:>8} kB" for key in ("MemTotal", "MemFree", "MemAvailable")]
    lines += [f"{key + ':':<16}{0:>8} kB" for key in MEMINFO_KEYS]
    return "\n".join(lines) + "\n"


def stat(cpus: int) -> str:
    zeros = " ".join(["0"] * 10)
    lines = [f"cpu  {zeros}"] + [f"cpu{n} {zeros}" for n in range(cpus)]
    lines += ["intr 0", "ctxt 0", "btime 0", "processes 0", "procs_running 1",
              "procs_blocked 0", "softirq " + " ".join(["0"] * 11)]  # fmt: skip
    return "\n".join(lines) + "\n"


def cpuinfo(host: str) -> str:
    """The host's cpuinfo without what changes (clock speed, bogomips per boot are constant)."""
    return re.sub(r"(?m)^cpu MHz\s*:.*\n", "", host)


@functools.cache
def _directory() -> Path:
    path = Path(tempfile.mkdtemp(prefix="arena-proc-"))
    atexit.register(shutil.rmtree, path, True)
    path.chmod(0o755)  # the sandbox's uid must reach the files
    (path / "empty").mkdir(mode=0o555)
    return path


_lock = threading.Lock()  # bots of a match start from several threads


def bwrap_args(memory_bytes: int, proc: str = "/proc") -> tuple[str, ...]:
    """``--ro-bind`` arguments (after ``--proc /proc``) masking every entry this kernel has."""
    with _lock:
        return _bwrap_args(memory_bytes, proc)


@functools.cache
def _bwrap_args(memory_bytes: int, proc: str) -> tuple[str, ...]:
    directory = _directory()
    cpus = os.cpu_count() or 1
    try:
        host_cpuinfo = Path(proc, "cpuinfo").read_text()
    except OSError:
        host_cpuinfo = ""
    contents = {
        **dict.fromkeys(EMPTY_FILES, ""),
        **FIXED_FILES,
        "meminfo": meminfo(memory_bytes),
        "stat": stat(cpus),
        "cpuinfo": cpuinfo(host_cpuinfo),
    }
    args: list[str] = []
    for name in COPIED_DIRS:
        if os.path.isdir(os.path.join(proc, name)):
            args += ["--ro-bind", str(_copied_dir(proc, name)), f"/proc/{name}"]
    for name, text in sorted(contents.items()):
        if _in_copied_dir(name) or not _readable(proc, name):
            continue  # in a copied folder; or absent, or unreadable to any bot: nothing to mask
        source = directory / f"{name.replace('/', '.')}-{memory_bytes}"
        if not source.exists():
            source.write_text(text, encoding="utf-8")
            source.chmod(0o444)
        args += ["--ro-bind", str(source), f"/proc/{name}"]
    for name in EMPTY_DIRS:
        if os.path.isdir(os.path.join(proc, name)) and not _in_copied_dir(name):
            args += ["--ro-bind", str(directory / "empty"), f"/proc/{name}"]
    return tuple(args)


def _readable(proc: str, name: str) -> bool:
    """A regular file of the host's ``/proc`` that others may read (bubblewrap can only bind
    over what this kernel's ``/proc`` has; what only root reads, no bot reads)."""
    try:
        mode = os.stat(os.path.join(proc, name)).st_mode
    except OSError:
        return False
    return stat_module.S_ISREG(mode) and bool(mode & stat_module.S_IROTH)


def _in_copied_dir(name: str) -> bool:
    return any(name.startswith(d + "/") for d in COPIED_DIRS)


def _copied_dir(proc: str, name: str) -> Path:
    """A copy of the host's ``/proc/<name>`` folder: its files others may read (not the
    folders mounted inside it, such as ``binfmt_misc``), then the stand-ins and empty folders
    of this module over them."""
    final = _directory() / name.replace("/", ".")
    if final.exists():
        return final
    target = final.parent / (final.name + ".part")
    shutil.rmtree(target, ignore_errors=True)
    source = Path(proc, name)
    for folder, subfolders, files in os.walk(source):
        here = Path(folder)
        relative = here.relative_to(proc).as_posix()
        subfolders[:] = [s for s in subfolders if not os.path.ismount(here / s)]
        (target / here.relative_to(source)).mkdir(mode=0o755, exist_ok=True)
        for file in files:
            entry = f"{relative}/{file}"
            if entry in NOT_COPIED or not _readable(proc, entry):
                continue
            try:
                content = (here / file).read_bytes()
            except OSError:
                continue
            (target / here.relative_to(source) / file).write_bytes(content)
    inside = name + "/"
    for entry, text in FIXED_FILES.items():
        if entry.startswith(inside) and _readable(proc, entry):
            (target / entry.removeprefix(inside)).write_text(text, encoding="utf-8")
    for entry in EMPTY_DIRS:
        emptied = target / entry.removeprefix(inside)
        if entry.startswith(inside) and emptied.is_dir():
            shutil.rmtree(emptied)
            emptied.mkdir(mode=0o755)
    for path in sorted(target.rglob("*"), reverse=True):  # read-only for the sandbox's uid
        path.chmod(0o555 if path.is_dir() else 0o444)
    target.chmod(0o555)
    target.rename(final)
    return final
