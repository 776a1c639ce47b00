"""One control group per running bot: a memory and process limit for all of its processes
together, freezing between its turns, CPU accounting, and a teardown that leaves nothing behind.

rlimits are per process: seven children of one bot may each hold the address-space limit, and
kernel memory (tmpfs inodes, dentries) is counted by none of them. A control group counts every
page the bot's processes touch, kernel memory included: on cgroup v1 ``memory.limit_in_bytes``
charges slab memory (inodes, dentries) too, unless the kernel was booted with
``cgroup.memory=nokmem`` (verified on Linux 6.18: about 1 KiB per empty tmpfs file), while
``memory.kmem.limit_in_bytes`` may exist but ignore writes (it does there); on cgroup v2
``memory.max`` covers everything. On v1 the memory groups live under the worker's own memory
group, so a worker's limit still holds over all its bots. Freezing a group stops every process
in it at once, so a bot cannot spin while others decide, and no process can fork away while the
group is being killed.

Two backends behind one interface (:class:`Backend` creates :class:`BotGroup` objects):

* :class:`V2Backend` - the unified hierarchy (``cgroup.freeze``, ``cgroup.kill``,
  ``memory.max``, ``pids.max``, ``cpu.stat``; Documentation/admin-guide/cgroup-v2.rst). Bot
  groups are made directly under a *delegated* group with no processes of its own (v2's "no
  internal processes" rule): ``ARENA_SANDBOX_CGROUP_ROOT``, or the worker's own group when that
  is the hierarchy's root.
* :class:`V1Backend` - the legacy controllers ``memory``, ``pids``, ``freezer``, ``cpuacct``,
  each mounted on its own; bot groups live in ``arena-sandbox/`` under the worker's own group in
  each hierarchy (or under ``ARENA_SANDBOX_CGROUP_ROOT``/<controller>).

A bot's processes enter their group before any of them runs: the worker starts a gate
(``/bin/sh`` waiting for one line on its stdin), moves the gate's pid into the group, then
releases it; the gate ``exec``\\s the sandbox, whose every later process inherits the group.
Group names carry the creating worker's pid namespace, pid and start time: a worker that died
leaves its groups (and, on v1, any bot it had frozen) behind, and the next group made in the same
pid namespace removes them, in every controller: on v1 a dead worker's memory groups sit under
its own memory group, so the sweep looks for them across the memory hierarchy.

Policy (``ARENA_SANDBOX_CGROUPS``): ``required`` (the default) refuses to start an untrusted bot
without its group (:class:`CgroupUnavailable`; a server must never run strangers' bots with
weaker limits silently); ``auto`` falls back to rlimits alone and logs a warning once (the
``arena`` command line uses it); ``off`` never uses control groups.
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import secrets
import signal
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

log = logging.getLogger("sandbox")

POLICIES = ("required", "auto", "off")
V1_CONTROLLERS = ("memory", "pids", "freezer", "cpuacct")
V2_CONTROLLERS = ("memory", "pids")
V1_PARENT = "arena-sandbox"
V1_FREEZER_ANCHOR = "freezer-anchor"
UNIFIED = "unified"  # V1Group.dirs key of the bot's cgroup2 twin (hybrid hosts: CPU pressure)
#: the gate: waits for one line on stdin (the worker sends it once the pid is in the group)
GATE_ARGV = ("/bin/sh", "-c", 'read -r _ && exec "$@"', "arena-gate")
POLL_S = 0.0005  # while waiting for a freeze to complete or a group to empty


class CgroupUnavailable(RuntimeError):
    """No per-bot control group can be made here; the message says why and what to change."""


def policy() -> str:
    """``ARENA_SANDBOX_CGROUPS``: required (default), auto or off."""
    value = os.environ.get("ARENA_SANDBOX_CGROUPS", "required").strip().lower()
    if value not in POLICIES:
        raise CgroupUnavailable(
            f"ARENA_SANDBOX_CGROUPS={value!r}: expected one of {', '.join(POLICIES)}"
        )
    return value


@dataclass(frozen=True)
class GroupLimits:
    memory_bytes: int  # every page of every process of the bot, kernel memory and tmpfs included
    max_pids: int  # processes and threads, the sandbox's own two bubblewrap processes included


class Usage(NamedTuple):
    """A group's CPU time and CPU wait (seconds) at one moment: what a decision's clock and
    the off-turn accounting need, read together at each end of a turn."""

    cpu: float
    wait: float | None  # None: the kernel gives no CPU pressure for the group


class BotGroup(ABC):
    """The control group of one running bot (one game of one seat).

    The files used at every decision (freezing, CPU time, CPU pressure) are opened once, at
    their first use, and their descriptors kept in attributes of their own: a decision costs a
    few ``pread``/``pwrite`` calls on them, not path building and opening (which cost more than
    the kernel's work: 5 us per read, against 0.5 us), nor a lookup by path (0.2 us each).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.frozen = False
        self._fds: dict[tuple[Path, int], int] = {}  # files used at every decision stay open

    def _get(self, path: Path) -> bytes:
        return os.pread(self._fd(path, os.O_RDONLY), 4096, 0)

    def _fd(self, path: Path, flags: int) -> int:
        fd = self._fds.get((path, flags))
        if fd is None:
            fd = self._fds[path, flags] = os.open(path, flags | os.O_CLOEXEC)
        return fd

    @property
    @abstractmethod
    def procs_files(self) -> tuple[Path, ...]:
        """The ``cgroup.procs`` files a process is written into to join the group."""

    def add(self, pid: int) -> None:
        """Move ``pid`` (a process that has not started the bot yet) into the group."""
        for path in self.procs_files:
            _write(path, str(pid))

    def pids(self) -> list[int]:
        return [int(p) for p in _read(self.procs_files[0]).split()]

    @abstractmethod
    def freeze(self, *, wait: bool = True) -> None:
        """Stop every process of the group; ``wait``: return only once all are stopped (else
        they stop within microseconds, the kernel interrupting each wherever it is)."""

    @abstractmethod
    def thaw(self) -> None: ...

    @abstractmethod
    def cpu_seconds(self) -> float:
        """CPU time used by every process that ever ran in the group."""

    @abstractmethod
    def cpu_wait_seconds(self) -> float | None:
        """How long some process of the group was runnable but waiting for a CPU (the
        ``some`` total of the group's ``cpu.pressure``), or None where the kernel does not
        say (no pressure stall information)."""

    def usage(self) -> Usage:
        return Usage(self.cpu_seconds(), self.cpu_wait_seconds())

    def _fd_or_none(self, path: Path) -> int | None:
        """A kept-open descriptor for reading ``path``, or None if it cannot be opened."""
        try:
            return self._fd(path, os.O_RDONLY)
        except OSError:
            return None

    @abstractmethod
    def oom_kills(self) -> int:
        """Processes the kernel killed because the group reached its memory limit."""

    @abstractmethod
    def memory_peak_bytes(self) -> int | None:
        """The group's highest memory use, where the kernel reports it."""

    def kill(self, *, keep: int | None = None, timeout: float = 30.0) -> bool:
        """SIGKILL every process of the group but ``keep`` and wait until they are gone (False:
        some are stuck). The group is frozen while signalled, so none can fork away meanwhile.

        Keeping the sandbox's outer bubblewrap (the worker's child) alive lets it reap its
        child, the sandbox's init, which would otherwise be left to the host's init as a zombie.
        """
        deadline = time.monotonic() + timeout
        while victims := [pid for pid in self.pids() if pid != keep]:
            self.freeze()
            for pid in victims:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.thaw()  # a frozen process acts on SIGKILL only once thawed (cgroup v1)
            if time.monotonic() > deadline:
                return False
            time.sleep(POLL_S)
        if self.frozen:
            self.thaw()  # the kept process must be able to exit (and be killed)
        return True

    def _kill_everything(self) -> None:
        self.kill(timeout=0)

    @abstractmethod
    def _empty(self) -> bool: ...

    @abstractmethod
    def _directories(self) -> tuple[Path, ...]: ...

    def destroy(self, timeout: float = 30.0) -> bool:
        """Kill every process, wait until the group is empty, remove it. False: processes stuck
        (then the group stays and the caller must not reuse what the bot could reach)."""
        deadline = time.monotonic() + timeout
        while not self._empty():
            self._kill_everything()
            if time.monotonic() > deadline:
                log.error("sandbox cgroup %s still has processes %s", self.name, self.pids())
                return False
            time.sleep(POLL_S)
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
        for directory in self._directories():
            while True:
                try:
                    os.rmdir(directory)
                    break
                except FileNotFoundError:
                    break
                except OSError as err:  # EBUSY: the last exiting task is still being released
                    if err.errno != errno.EBUSY or time.monotonic() > deadline:
                        log.error("cannot remove sandbox cgroup %s: %s", directory, err)
                        return False
                    time.sleep(POLL_S)
        return True


class Backend(ABC):
    """Makes bot groups in one cgroup hierarchy layout."""

    name: str

    def create(self, limits: GroupLimits) -> BotGroup:
        """A new, empty group with ``limits``; raises :class:`CgroupUnavailable`.

        First removes the groups a dead worker left: its bots died with it, except those it
        had frozen (on cgroup v1 a frozen process acts on its SIGKILL only once thawed).
        """
        try:
            self.sweep()
            return self._create(f"{_creator_tag()}-{secrets.token_hex(6)}", limits)
        except OSError as err:
            raise CgroupUnavailable(f"cannot create the bot's {self.name} group: {err}") from err

    def sweep(self) -> None:
        """Remove the groups of dead workers; a group that cannot be removed is logged and left
        (it must never stop this worker from making its own)."""
        for name in self._names():
            if _stale(name):
                try:
                    self._group(name).destroy(timeout=5.0)
                except OSError as err:
                    log.error("cannot remove the stale sandbox cgroup %s: %s", name, err)

    @abstractmethod
    def _names(self) -> list[str]:
        """The bot groups that exist now (every worker's)."""

    @abstractmethod
    def _group(self, name: str) -> BotGroup: ...

    @abstractmethod
    def _create(self, name: str, limits: GroupLimits) -> BotGroup: ...

    @abstractmethod
    def describe(self) -> str: ...

    @abstractmethod
    def cpu_seconds(self) -> float:
        """CPU time used so far by every bot group under this backend's parent, those removed
        included (each whole sandbox: bubblewrap, its init and the bot; benchmarks' figures)."""


# -- cgroup v2 ------------------------------------------------------------------------------


class V2Group(BotGroup):
    def __init__(self, name: str, path: Path) -> None:
        super().__init__(name)
        self.path = path

    @functools.cached_property
    def _freeze_fd(self) -> int:
        return self._fd(self.path / "cgroup.freeze", os.O_WRONLY)

    @functools.cached_property
    def _stat_fd(self) -> int:
        return self._fd(self.path / "cpu.stat", os.O_RDONLY)

    @functools.cached_property
    def _pressure_fd(self) -> int | None:
        return self._fd_or_none(self.path / "cpu.pressure")

    @property
    def procs_files(self) -> tuple[Path, ...]:
        return (self.path / "cgroup.procs",)

    def freeze(self, *, wait: bool = True) -> None:
        os.pwrite(self._freeze_fd, b"1", 0)
        self.frozen = True
        if wait:
            _wait_for(lambda: _keyed(self.path / "cgroup.events").get("frozen") == 1)

    def thaw(self) -> None:
        os.pwrite(self._freeze_fd, b"0", 0)
        self.frozen = False

    def cpu_seconds(self) -> float:
        text = os.pread(self._stat_fd, 4096, 0)  # "usage_usec 123\n...": the kernel puts it first
        return int(text[11 : text.index(b"\n")]) / 1e6

    def cpu_wait_seconds(self) -> float | None:
        return _cpu_pressure(self._pressure_fd)

    def oom_kills(self) -> int:
        return _keyed(self.path / "memory.events").get("oom_kill", 0)

    def memory_peak_bytes(self) -> int | None:
        peak = self.path / "memory.peak"  # Linux >= 5.19
        return int(_read(peak)) if peak.exists() else None

    def _kill_everything(self) -> None:
        _write(self.path / "cgroup.kill", "1")  # Linux >= 5.14; frozen processes die too

    def _empty(self) -> bool:
        return _keyed(self.path / "cgroup.events").get("populated") == 0

    def _directories(self) -> tuple[Path, ...]:
        return (self.path,)


class V2Backend(Backend):
    name = "cgroup v2"

    def __init__(self, parent: Path) -> None:
        self.parent = parent

    def _names(self) -> list[str]:
        return [n for n in os.listdir(self.parent) if n.startswith("bot-")]

    def _group(self, name: str) -> BotGroup:
        return V2Group(name, self.parent / name)

    def _create(self, name: str, limits: GroupLimits) -> BotGroup:
        group = V2Group(name, self.parent / name)
        path = group.path
        path.mkdir(mode=0o755)
        try:
            self._limit(path, limits)
        except OSError:
            group.destroy(timeout=1.0)
            raise
        return group

    def _limit(self, path: Path, limits: GroupLimits) -> None:
        _write(path / "memory.max", str(limits.memory_bytes))
        _write(path / "memory.swap.max", "0")
        _write(path / "pids.max", str(limits.max_pids))

    def describe(self) -> str:
        return f"cgroup v2 under {self.parent}"

    def cpu_seconds(self) -> float:
        return _keyed(self.parent / "cpu.stat")["usage_usec"] / 1e6

    @classmethod
    def open(cls, parent: Path) -> V2Backend:
        """Check ``parent`` can hold bot groups with memory and pids limits; enable them."""
        available = set(_read(parent / "cgroup.controllers").split())
        missing = [c for c in V2_CONTROLLERS if c not in available]
        if missing:
            raise CgroupUnavailable(
                f"{parent} lacks the {', '.join(missing)} controller(s) (not delegated)"
            )
        enabled = set(_read(parent / "cgroup.subtree_control").split())
        wanted = [c for c in V2_CONTROLLERS if c not in enabled]
        if wanted:
            try:
                _write(parent / "cgroup.subtree_control", " ".join(f"+{c}" for c in wanted))
            except OSError as err:
                raise CgroupUnavailable(
                    f"cannot enable {', '.join(wanted)} for groups under {parent} ({err}); give "
                    "the worker a delegated group with no processes of its own and name it in "
                    "ARENA_SANDBOX_CGROUP_ROOT"
                ) from err
        return cls(parent)


# -- cgroup v1 ------------------------------------------------------------------------------


class V1Group(BotGroup):
    def __init__(self, name: str, dirs: dict[str, Path]) -> None:
        super().__init__(name)
        self.dirs = dirs  # filled in by V1Backend._create, one controller after the other

    @functools.cached_property
    def _state_fd(self) -> int:
        return self._fd(self.dirs["freezer"] / "freezer.state", os.O_WRONLY)

    @functools.cached_property
    def _usage_fd(self) -> int:
        return self._fd(self.dirs["cpuacct"] / "cpuacct.usage", os.O_RDONLY)

    @functools.cached_property
    def _pressure_fd(self) -> int | None:
        unified = self.dirs.get(UNIFIED)  # the same group in the cgroup2 hierarchy, if mounted
        return None if unified is None else self._fd_or_none(unified / "cpu.pressure")

    @property
    def procs_files(self) -> tuple[Path, ...]:
        return tuple(d / "cgroup.procs" for d in self.dirs.values())

    def pids(self) -> list[int]:  # the freezer's view: what freezing and killing act on
        freezer = self.dirs["freezer"] / "cgroup.procs"
        if not freezer.exists():  # a dead worker's leftover: then it is empty (or never was)
            return sorted(
                {int(p) for f in self.procs_files if f.exists() for p in _read(f).split()}
            )
        return [int(p) for p in _read(freezer).split()]

    def freeze(self, *, wait: bool = True) -> None:
        os.pwrite(self._state_fd, b"FROZEN", 0)
        self.frozen = True
        if wait:  # reading advances FREEZING
            state = self.dirs["freezer"] / "freezer.state"
            _wait_for(lambda: self._get(state).strip() == b"FROZEN")

    def thaw(self) -> None:
        os.pwrite(self._state_fd, b"THAWED", 0)
        self.frozen = False

    def cpu_seconds(self) -> float:
        return int(os.pread(self._usage_fd, 32, 0)) / 1e9  # nanoseconds: at most 20 digits

    def cpu_wait_seconds(self) -> float | None:
        return _cpu_pressure(self._pressure_fd)

    def oom_kills(self) -> int:
        return _keyed(self.dirs["memory"] / "memory.oom_control").get("oom_kill", 0)

    def memory_peak_bytes(self) -> int | None:
        return int(_read(self.dirs["memory"] / "memory.max_usage_in_bytes"))

    def _empty(self) -> bool:
        # a dead worker's memory group may sit in a memory hierarchy this process cannot see
        # (each worker's own memory group is the parent): the visible controllers decide
        return not any(_read(path).strip() for path in self.procs_files if path.exists())

    def _directories(self) -> tuple[Path, ...]:
        return tuple(self.dirs.values())


class V1Backend(Backend):
    """Bot groups in each v1 hierarchy. The memory ones sit under each worker's own memory
    group, which differs between workers (services, containers, jobs): a sweep looks for them
    in every ``arena-sandbox`` folder of the memory hierarchy (:meth:`memory_parents`), or a
    dead worker's memory groups - with their charged pages - would stay forever."""

    name = "cgroup v1"
    RESCAN_S = 60.0  # how old the list of memory parents may get before a sweep walks again

    def __init__(self, parents: dict[str, Path], memory_mount: Path | None = None) -> None:
        self.parents = parents  # controller -> the directory bot groups are made in
        self.memory_mount = memory_mount  # None: every worker shares parents["memory"]
        self._memory_parents: tuple[Path, ...] = (parents["memory"],)
        self._scanned = -float("inf")

    def memory_parents(self, *, rescan: bool = False) -> tuple[Path, ...]:
        """Every ``arena-sandbox`` folder of the memory hierarchy (ours first): walked at most
        once a minute, or now with ``rescan`` (a stale group's memory part is out of sight)."""
        now = time.monotonic()
        if self.memory_mount is not None and (rescan or now - self._scanned > self.RESCAN_S):
            found = [self.parents["memory"]]
            found += [p for p in _find_dirs(self.memory_mount, V1_PARENT) if p not in found]
            self._memory_parents = tuple(found)
            self._scanned = now
        return self._memory_parents

    def _names(self) -> list[str]:
        names: set[str] = set()
        others = [p for c, p in self.parents.items() if c != "memory"]
        for parent in [*others, *self.memory_parents()]:
            try:
                names.update(n for n in os.listdir(parent) if n.startswith("bot-"))
            except FileNotFoundError:
                continue
        return sorted(names)

    def _group(self, name: str) -> BotGroup:
        dirs = {c: parent / name for c, parent in self.parents.items()}
        if not dirs["memory"].exists():  # a dead worker's, under its own memory group
            for rescan in (False, True):
                where = [p / name for p in self.memory_parents(rescan=rescan)]
                found = [d for d in where if d.exists()]
                if found:
                    dirs["memory"] = found[0]
                    break
        return V1Group(name, dirs)

    def _create(self, name: str, limits: GroupLimits) -> BotGroup:
        dirs: dict[str, Path] = {}
        group = V1Group(name, dirs)
        try:
            for controller, parent in self.parents.items():
                dirs[controller] = parent / name
                dirs[controller].mkdir(mode=0o755)
            memory = dirs["memory"]
            _write(memory / "memory.limit_in_bytes", str(limits.memory_bytes))
            memsw = memory / "memory.memsw.limit_in_bytes"  # no swapping out past the limit
            if memsw.exists():
                _write(memsw, str(limits.memory_bytes))
            _write(dirs["pids"] / "pids.max", str(limits.max_pids))
        except OSError:
            group.destroy(timeout=1.0)
            raise
        return group

    def describe(self) -> str:
        return "cgroup v1 (" + ", ".join(str(p) for p in self.parents.values()) + ")"

    def cpu_seconds(self) -> float:
        return int(_read(self.parents["cpuacct"] / "cpuacct.usage")) / 1e9

    @classmethod
    def open(
        cls,
        mounts: dict[str, Path],
        own: dict[str, str],
        root: Path | None,
        unified: Path | None = None,
    ) -> V1Backend:
        """The v1 controllers' parents; ``unified`` (a cgroup2 folder, on a hybrid host) also
        holds each bot's group, without controllers, for its CPU pressure (the clock)."""
        parents = {}
        for controller in V1_CONTROLLERS:
            if controller not in mounts:
                raise CgroupUnavailable(f"the cgroup v1 {controller} controller is not mounted")
            if root is not None:
                parent = root / controller
            else:
                parent = mounts[controller] / own.get(controller, "/").lstrip("/") / V1_PARENT
            try:
                parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            except OSError as err:
                raise CgroupUnavailable(f"cannot create {parent}: {err}") from err
            if not os.access(parent, os.W_OK):
                raise CgroupUnavailable(f"{parent} is not writable")
            parents[controller] = parent
        # An empty group kept frozen, shared by every worker and never removed: while any
        # group is frozen the kernel leaves its freezer switched on; otherwise each first
        # freeze and last thaw patches the kernel's code (a static key), ~150 us each, on
        # every decision of every bot.
        anchor = parents["freezer"] / V1_FREEZER_ANCHOR
        anchor.mkdir(mode=0o755, exist_ok=True)
        _write(anchor / "freezer.state", "FROZEN")
        if unified is not None and root is None:
            parent = unified / V1_PARENT
            try:
                parent.mkdir(mode=0o755, exist_ok=True)
                if (parent / "cpu.pressure").exists() and os.access(parent, os.W_OK):
                    parents[UNIFIED] = parent
            except OSError as err:  # the clock falls back to wall time: not a reason to refuse
                log.info("no cgroup2 group for CPU pressure under %s: %s", unified, err)
        return cls(parents, mounts["memory"] if root is None else None)


# -- detection ------------------------------------------------------------------------------


def parse_mounts(mountinfo: str) -> tuple[Path | None, dict[str, Path]]:
    """(the cgroup2 mount point, {v1 controller: its mount point}) from /proc/self/mountinfo."""
    unified: Path | None = None
    v1: dict[str, Path] = {}
    for line in mountinfo.splitlines():
        fields = line.split()
        if " - " not in line or len(fields) < 10:
            continue
        after = fields[fields.index("-") + 1 :]
        fstype, options = after[0], after[2] if len(after) > 2 else ""
        point = Path(fields[4].replace("\\040", " "))
        if fstype == "cgroup2" and unified is None:
            unified = point
        elif fstype == "cgroup":
            for option in options.split(","):
                if option in V1_CONTROLLERS and option not in v1:
                    v1[option] = point
    return unified, v1


def parse_own(proc_cgroup: str) -> tuple[str | None, dict[str, str]]:
    """(the v2 path, {v1 controller: path}) of a process, from /proc/<pid>/cgroup."""
    v2: str | None = None
    v1: dict[str, str] = {}
    for line in proc_cgroup.splitlines():
        hierarchy, controllers, path = line.split(":", 2)
        if hierarchy == "0" and controllers == "":
            v2 = path
        for controller in controllers.split(","):
            v1[controller] = path
    return v2, v1


def open_backend(
    mountinfo: str, proc_cgroup: str, root: Path | None
) -> tuple[Backend | None, list[str]]:
    """The first usable backend (v2, then v1) and why the others are not usable."""
    unified, v1_mounts = parse_mounts(mountinfo)
    own_v2, own_v1 = parse_own(proc_cgroup)
    reasons: list[str] = []
    if unified is not None:
        parent = root if root is not None else unified / (own_v2 or "/").lstrip("/")
        try:
            return V2Backend.open(parent), reasons
        except (CgroupUnavailable, OSError) as err:
            reasons.append(f"cgroup v2: {err}")
    try:
        twin = unified / (own_v2 or "/").lstrip("/") if unified is not None else None
        return V1Backend.open(v1_mounts, own_v1, root, twin), reasons
    except (CgroupUnavailable, OSError) as err:
        reasons.append(f"cgroup v1: {err}")
    return None, reasons


def backend() -> Backend | None:
    """This machine's backend (found once per process), or None: see :func:`unavailable_reason`."""
    if policy() == "off":
        return None
    return _detect(_root())[0]


def unavailable_reason() -> str:
    if policy() == "off":
        return "ARENA_SANDBOX_CGROUPS=off"
    return _detect(_root())[1]


def _root() -> Path | None:
    root = os.environ.get("ARENA_SANDBOX_CGROUP_ROOT", "").strip()
    return Path(root) if root else None


@functools.cache
def _detect(root: Path | None) -> tuple[Backend | None, str]:
    try:
        mountinfo = Path("/proc/self/mountinfo").read_text()
        proc_cgroup = Path("/proc/self/cgroup").read_text()
    except OSError as err:
        return None, f"cannot read this process's cgroups: {err}"
    found, reasons = open_backend(mountinfo, proc_cgroup, root)
    why = "; ".join(reasons)
    if found is None:
        log.warning(
            "no per-bot control group (%s): each bot is limited per process only (rlimits); "
            "it can use more memory than its limit, spin between its turns, and teardown is "
            "best effort",
            why,
        )
    else:
        log.info("per-bot control groups: %s", found.describe())
    return found, why


def describe_mode() -> str:
    """One line for people: which isolation mode bots get here."""
    found = backend()
    if found is not None:
        return f"per-bot {found.describe()}: memory, processes, freezing between turns"
    return f"rlimits only, no per-bot control group ({unavailable_reason()})"


# -- whose group is it ----------------------------------------------------------------------


def _creator_tag(pid: int | None = None) -> str:
    """``bot-<pid namespace>-<pid>-<start time>``: names the worker process that made a group,
    so another worker can tell, in the same pid namespace, whether it is still alive."""
    pid = pid or os.getpid()
    namespace = os.stat("/proc/self/ns/pid").st_ino
    return f"bot-{namespace}-{pid}-{_start_time(pid)}"


def _start_time(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[19].decode()  # field 22: starttime
    except (OSError, IndexError):
        return "gone"


def _stale(name: str) -> bool:
    """True if the worker that made group ``name`` is dead (only known in our pid namespace)."""
    parts = name.split("-")
    if len(parts) != 5 or not parts[2].isdigit():
        return False  # not ours to judge
    if parts[1] != str(os.stat("/proc/self/ns/pid").st_ino):
        return False
    return _start_time(int(parts[2])) != parts[3]


# -- file helpers ---------------------------------------------------------------------------


def _find_dirs(top: Path, name: str, depth: int = 8) -> list[Path]:
    """Directories called ``name`` under ``top`` (not looking inside them), ``depth`` deep."""
    found: list[Path] = []
    try:
        entries = list(os.scandir(top))
    except OSError:
        return found
    for entry in entries:
        if not entry.is_dir(follow_symlinks=False):
            continue
        if entry.name == name:
            found.append(Path(entry.path))
        elif depth > 1 and not entry.name.startswith("bot-"):
            found += _find_dirs(Path(entry.path), name, depth - 1)
    return found


def _read(path: Path) -> str:
    with open(path, encoding="ascii") as f:
        return f.read()


def _write(path: Path, value: str) -> None:
    with open(path, "w", encoding="ascii") as f:
        f.write(value)


def _cpu_pressure(fd: int | None) -> float | None:
    """The ``some`` total of a ``cpu.pressure`` file open as ``fd``, in seconds (None: no
    such file, or not in the expected form)."""
    if fd is None:
        return None
    try:
        text = os.pread(fd, 256, 0)  # "some avg10=0.00 avg60=0.00 avg300=0.00 total=123\nfull ..."
        end = text.index(b"\n")
        total = text[text.index(b"total=", 0, end) + 6 : end]
    except (OSError, ValueError):
        return None
    return int(total) / 1e6 if text.startswith(b"some ") and total.isdigit() else None


def _keyed(path: Path) -> dict[str, int]:
    """A flat keyed file (``key value`` per line: cgroup.events, cpu.stat, memory.events...)."""
    return _parse_keyed(_read(path))


def _parse_keyed(text: str) -> dict[str, int]:
    found = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if value.strip().lstrip("-").isdigit():
            found[key] = int(value)
    return found


def _wait_for(done: Callable[[], bool], timeout: float = 5.0) -> None:
    """Poll ``done``: yielding at first (a bot blocked in ``read`` freezes in microseconds),
    then sleeping (a busy one needs the scheduler to reach each of its processes)."""
    start = time.monotonic()
    while not done():
        waited = time.monotonic() - start
        if waited > timeout:
            log.warning("sandbox cgroup: a freeze did not complete within %.1f s", timeout)
            return
        if waited < 0.0002:
            os.sched_yield()
        else:
            time.sleep(POLL_S)
