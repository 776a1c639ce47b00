"""The per-bot control groups (:mod:`sandbox.cgroups`).

The cgroup v2 backend is tested against a fake cgroup directory (this machine mounts v2 without
controllers): the tests check the files it writes and reads, with a small stand-in for the
kernel where it must answer (``cgroup.events``). The backend this machine really has (v1 here)
is also exercised with real processes: freezing, the memory and pids limits, teardown.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from sandbox import SandboxedAgent, SandboxUnavailable, cgroups
from sandbox.limits import Limits

MiB = 1024 * 1024

MOUNTINFO_V1 = """\
25 30 0:22 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
26 25 0:23 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
27 25 0:24 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
28 25 0:25 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
29 25 0:26 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer
30 25 0:27 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
31 25 0:28 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
PROC_CGROUP_V1 = """\
8:pids:/
6:freezer:/
4:memory:/process_api/abc
2:cpuacct:/
1:cpu:/
0::/
"""


def test_mounts_and_own_groups_are_parsed() -> None:
    unified, v1 = cgroups.parse_mounts(MOUNTINFO_V1)
    assert unified == Path("/sys/fs/cgroup/unified")
    assert v1["memory"] == Path("/sys/fs/cgroup/memory")
    assert set(v1) == {"memory", "pids", "freezer", "cpuacct"}
    own_v2, own_v1 = cgroups.parse_own(PROC_CGROUP_V1)
    assert own_v2 == "/" and own_v1["memory"] == "/process_api/abc"


# -- cgroup v2 on a fake root -----------------------------------------------------------------


def fake_v2_parent(tmp_path: Path, controllers: str = "cpuset cpu io memory pids") -> Path:
    parent = tmp_path / "delegated"
    parent.mkdir()
    (parent / "cgroup.controllers").write_text(controllers + "\n")
    (parent / "cgroup.subtree_control").write_text("")
    return parent


class FakeKernel:
    """Answers for the files a real cgroup v2 kernel would: marks a new group populated,
    frozen on ``cgroup.freeze``, no longer populated on ``cgroup.kill``."""

    def __init__(self, group: Path) -> None:
        self.group = group
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def events(self, populated: int, frozen: int) -> None:
        (self.group / "cgroup.events").write_text(f"populated {populated}\nfrozen {frozen}\n")

    def run(self) -> None:
        while not self.stop.is_set():
            freeze = self.group / "cgroup.freeze"
            if (self.group / "cgroup.kill").exists():
                self.events(0, 0)
                return
            if freeze.exists():
                self.events(1, int(freeze.read_text() == "1"))
            time.sleep(0.001)

    def __enter__(self) -> FakeKernel:
        self.events(1, 0)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


def test_v2_enables_its_controllers_and_writes_the_limits(tmp_path: Path) -> None:
    parent = fake_v2_parent(tmp_path)
    backend = cgroups.V2Backend.open(parent)
    assert (parent / "cgroup.subtree_control").read_text() == "+memory +pids"
    group = backend.create(cgroups.GroupLimits(memory_bytes=96 * MiB, max_pids=11))
    assert isinstance(group, cgroups.V2Group) and group.path.parent == parent
    assert group.path.name.startswith(cgroups._creator_tag())
    assert (group.path / "memory.max").read_text() == str(96 * MiB)
    assert (group.path / "memory.swap.max").read_text() == "0"
    assert (group.path / "pids.max").read_text() == "11"
    group.add(4242)
    assert (group.path / "cgroup.procs").read_text() == "4242"
    assert group.procs_files == (group.path / "cgroup.procs",)


def test_v2_freezes_accounts_and_tears_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    removed = []
    real_rmdir = os.rmdir

    def rmdir(path: Path) -> None:  # cgroupfs removes a group with its interface files
        removed.append(path)
        for file in path.iterdir():
            file.unlink()
        real_rmdir(path)

    monkeypatch.setattr(cgroups.os, "rmdir", rmdir)
    backend = cgroups.V2Backend.open(fake_v2_parent(tmp_path))
    group = backend.create(cgroups.GroupLimits(memory_bytes=64 * MiB, max_pids=10))
    (group.path / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\n")
    (group.path / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    (group.path / "memory.peak").write_text(str(50 * MiB))
    (group.path / "cgroup.freeze").write_text("0")  # made by the kernel with the group
    with FakeKernel(group.path):
        group.freeze()  # returns once cgroup.events says frozen
        assert (group.path / "cgroup.freeze").read_text() == "1" and group.frozen
        group.thaw()
        assert (group.path / "cgroup.freeze").read_text() == "0" and not group.frozen
        assert group.cpu_seconds() == 2.5
        assert group.oom_kills() == 1
        assert group.memory_peak_bytes() == 50 * MiB
        assert group.destroy(timeout=10)  # cgroup.kill, wait for populated 0, rmdir
    assert removed == [group.path]


def test_v2_without_delegated_controllers_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(cgroups.CgroupUnavailable, match="lacks the memory, pids controller"):
        cgroups.V2Backend.open(fake_v2_parent(tmp_path, controllers="cpu io"))


def test_v2_is_preferred_where_it_works(tmp_path: Path) -> None:
    parent = fake_v2_parent(tmp_path)
    mountinfo = f"31 25 0:28 / {tmp_path} rw,relatime - cgroup2 cgroup2 rw\n"
    found, reasons = cgroups.open_backend(mountinfo, "0::/delegated\n", None)
    assert isinstance(found, cgroups.V2Backend) and found.parent == parent and reasons == []


def test_v1_makes_one_group_per_controller(tmp_path: Path) -> None:
    mountinfo = "".join(
        f"2{i} 25 0:2{i} / {tmp_path / c} rw - cgroup cgroup rw,{c}\n"
        for i, c in enumerate(["memory", "pids", "freezer", "cpuacct"])
    )
    found, reasons = cgroups.open_backend(mountinfo, "4:memory:/job\n0::/\n", None)
    assert isinstance(found, cgroups.V1Backend), reasons
    assert found.parents["memory"] == tmp_path / "memory" / "job" / "arena-sandbox"
    assert found.parents["pids"] == tmp_path / "pids" / "arena-sandbox"
    group = found.create(cgroups.GroupLimits(memory_bytes=64 * MiB, max_pids=9))
    assert isinstance(group, cgroups.V1Group)
    assert (group.dirs["memory"] / "memory.limit_in_bytes").read_text() == str(64 * MiB)
    assert (group.dirs["pids"] / "pids.max").read_text() == "9"
    assert len(group.procs_files) == 4


def test_no_cgroup_anywhere_says_why() -> None:
    found, reasons = cgroups.open_backend("", "0::/\n", None)
    assert found is None
    assert reasons == ["cgroup v1: the cgroup v1 memory controller is not mounted"]


def test_policy_required_refuses_untrusted_bots_without_a_group(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, bwrap_ok: None, limits: Limits
) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print('unused')\n")
    monkeypatch.setattr(cgroups, "_detect", lambda root: (None, "no cgroup on this test host"))
    monkeypatch.setenv("ARENA_SANDBOX_CGROUPS", "required")
    with pytest.raises(SandboxUnavailable, match="no cgroup on this test host.*=auto"):
        SandboxedAgent(bot, limits)
    monkeypatch.setenv("ARENA_SANDBOX_CGROUPS", "auto")  # the arena command line's choice
    with SandboxedAgent(bot, limits) as agent:
        assert not agent.freezes
    monkeypatch.setenv("ARENA_SANDBOX_CGROUPS", "sometimes")
    with pytest.raises(SandboxUnavailable, match="expected one of required, auto, off"):
        SandboxedAgent(bot, limits)


# -- this machine's real backend --------------------------------------------------------------


@pytest.fixture
def real_backend() -> cgroups.Backend:
    found = cgroups.backend()
    if found is None:
        pytest.skip(f"no control group here: {cgroups.unavailable_reason()}")
    return found


def start_in(group: cgroups.BotGroup, code: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [*cgroups.GATE_ARGV, sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None
    group.add(proc.pid)
    proc.stdin.write(b"\n")
    proc.stdin.flush()
    return proc


def test_a_frozen_group_uses_no_cpu_and_teardown_leaves_nothing(
    real_backend: cgroups.Backend,
) -> None:
    group = real_backend.create(cgroups.GroupLimits(memory_bytes=64 * MiB, max_pids=8))
    proc = start_in(group, "import os\nfor _ in range(2): os.fork()\nwhile True: pass")
    while len(group.pids()) < 4 or group.cpu_seconds() < 0.05:  # all four spinning
        time.sleep(0.01)
    group.freeze()
    used = group.cpu_seconds()
    time.sleep(0.2)
    assert group.cpu_seconds() == used  # not a nanosecond while frozen
    group.thaw()
    assert group.kill(keep=proc.pid)
    assert group.pids() == [proc.pid]  # the kept one survives the others
    assert group.destroy()
    proc.wait()
    assert not any(path.exists() for path in group.procs_files)  # removed


def test_the_memory_limit_holds_for_the_whole_group(real_backend: cgroups.Backend) -> None:
    group = real_backend.create(cgroups.GroupLimits(memory_bytes=64 * MiB, max_pids=8))
    # three processes of 30 MB each: only the group's sum is over its limit
    hog = start_in(
        group,
        "import os, time\n"
        "for _ in range(2):\n"
        "    if os.fork() == 0: break\n"
        "hoard = b'x' * (30 * 1024 * 1024)\n"
        "time.sleep(30)",
    )
    deadline = time.monotonic() + 60
    while not group.oom_kills() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert group.oom_kills() >= 1
    peak = group.memory_peak_bytes()
    assert peak is None or peak <= 64 * MiB
    assert group.destroy()
    hog.wait()


def test_the_process_limit_holds_for_the_whole_group(real_backend: cgroups.Backend) -> None:
    group = real_backend.create(cgroups.GroupLimits(memory_bytes=64 * MiB, max_pids=4))
    bomb = start_in(
        group,
        "import os, sys, time\nmade = 0\n"
        "try:\n"
        "    while made < 50:\n"
        "        if os.fork() == 0:\n"
        "            os.close(2)\n"
        "            time.sleep(30)\n"
        "        made += 1\n"
        "except OSError:\n"
        "    pass\n"
        "sys.stderr.write(str(made))\n",
    )
    _, err = bomb.communicate(timeout=60)
    assert int(err) == 3  # four processes in all
    assert group.destroy()


def dead_worker_with_a_frozen_bot(
    backend: cgroups.Backend, memory_group: Path | None = None
) -> tuple[cgroups.BotGroup, int]:
    """Start a worker (in ``memory_group`` if given) that makes a bot group, starts a bot in it
    and freezes it; kill the worker with -9. Its group and the frozen bot's pid."""
    join = f"open({str(memory_group / 'cgroup.procs')!r}, 'w').write('0')" if memory_group else ""
    worker = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
        import subprocess, time
        {join}
        from sandbox import cgroups
        group = cgroups.backend().create(cgroups.GroupLimits(memory_bytes=2**26, max_pids=4))
        bot = subprocess.Popen([*cgroups.GATE_ARGV, "sleep", "1000"], stdin=subprocess.PIPE)
        group.add(bot.pid)
        bot.stdin.write(b"\\n")
        bot.stdin.flush()
        time.sleep(0.2)
        group.freeze()
        print(group.name, bot.pid, flush=True)
        time.sleep(1000)
        """)],
        stdout=subprocess.PIPE, cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert worker.stdout is not None
    name, pid = worker.stdout.readline().split()
    worker.kill()
    worker.wait()
    return backend._group(name.decode()), int(pid)


def test_groups_of_a_dead_worker_are_removed_with_their_frozen_processes(
    real_backend: cgroups.Backend,
) -> None:
    """A worker killed while its bot was frozen leaves the bot behind (on cgroup v1 a frozen
    process does not act on its SIGKILL until thawed): the next group made sweeps it away."""
    stale, pid = dead_worker_with_a_frozen_bot(real_backend)
    assert stale.pids() == [pid]  # frozen, it outlived its worker
    real_backend.create(cgroups.GroupLimits(memory_bytes=64 * MiB, max_pids=4)).destroy()
    assert not any(path.exists() for path in stale.procs_files)


def test_a_dead_workers_group_is_swept_even_if_its_memory_group_is_out_of_sight(
    real_backend: cgroups.Backend,
) -> None:
    """Each worker's bot groups sit under the worker's own memory group: a worker that ran in
    another memory group (another service, another job) left its memory directory there. The
    sweep finds it in the memory hierarchy and removes it with the rest (issue 29: memory
    groups of dead workers used to stay forever)."""
    if not isinstance(real_backend, cgroups.V1Backend):
        pytest.skip("the memory hierarchy differs per worker only on cgroup v1")
    own_memory = real_backend.parents["memory"].parent  # this process's memory group
    elsewhere = own_memory.parent / f"arena-test-elsewhere-{os.getpid()}"
    elsewhere.mkdir()
    try:
        stale, pid = dead_worker_with_a_frozen_bot(real_backend, elsewhere)
        assert isinstance(stale, cgroups.V1Group)
        memory = elsewhere / cgroups.V1_PARENT / stale.name
        assert memory.exists() and stale.dirs["memory"] == memory  # found where it is
        assert stale.pids() == [pid]
        real_backend.create(cgroups.GroupLimits(memory_bytes=64 * MiB, max_pids=4)).destroy()
        assert not stale.dirs["freezer"].exists()
        assert not memory.exists()  # every controller's part is gone, memory included
        deadline = time.monotonic() + 30
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not Path(f"/proc/{pid}").exists()  # the frozen bot was thawed and killed
    finally:
        for leftover in elsewhere.glob("arena-sandbox/bot-*"):
            leftover.rmdir()
        for directory in (
            elsewhere / "arena-sandbox" / "freezer-anchor",
            elsewhere / "arena-sandbox",
        ):
            if directory.exists():
                directory.rmdir()
        elsewhere.rmdir()


def test_a_leaked_memory_group_of_a_dead_worker_is_swept(real_backend: cgroups.Backend) -> None:
    """A memory group left alone (its other parts removed by an older sweep) under another
    worker's memory group is found and removed by the next sweep."""
    if not isinstance(real_backend, cgroups.V1Backend):
        pytest.skip("the memory hierarchy differs per worker only on cgroup v1")
    own_memory = real_backend.parents["memory"].parent
    elsewhere = own_memory.parent / f"arena-test-leak-{os.getpid()}"
    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid that is gone: its "worker" is dead
    namespace = os.stat("/proc/self/ns/pid").st_ino
    leaked = elsewhere / cgroups.V1_PARENT / f"bot-{namespace}-{dead.pid}-1-0123456789ab"
    leaked.mkdir(parents=True)
    try:
        real_backend.memory_parents(rescan=True)
        real_backend.sweep()
        assert not leaked.exists()
    finally:
        if leaked.exists():
            leaked.rmdir()
        (elsewhere / cgroups.V1_PARENT).rmdir()
        elsewhere.rmdir()
