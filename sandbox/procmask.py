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
"""

from __future__ import annotations

import atexit
import functools
import os
import re
import shutil
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
    for name, text in sorted(contents.items()):
        if not os.path.isfile(os.path.join(proc, name)):
            continue  # bubblewrap can only bind over what this kernel's /proc has
        source = directory / f"{name.replace('/', '.')}-{memory_bytes}"
        if not source.exists():
            source.write_text(text, encoding="utf-8")
            source.chmod(0o444)
        args += ["--ro-bind", str(source), f"/proc/{name}"]
    for name in EMPTY_DIRS:
        if os.path.isdir(os.path.join(proc, name)):
            args += ["--ro-bind", str(directory / "empty"), f"/proc/{name}"]
    return tuple(args)
