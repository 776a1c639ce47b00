"""Issue 12: what one bot must not do to the others of its match, each through a real 4-seat match
of sandboxed bots: talk to its partner through machine-wide ``/proc`` figures, take CPU while
others decide, and leave processes behind when its agent is closed.

No assertion is on wall-clock time: the spinner's CPU time between its turns is read from its
control group's accounting, and teardown is checked right when ``close()`` returns.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import engine
from sandbox import Limits, SandboxedAgent, cgroups, procmask
from tests.sandbox.conftest import processes_matching, use_backend

GAME, PARAMS = "belote", {"target": 1}

PLAY = "serve(lambda m: m['legal'][-1])\n"  # 'take' rather than 'pass': a short game

#: seat 0 sends one bit per decision through what the issue found open (a 1 MB file in its
#: tmpfs: ``Shmem``; four more threads: the thread count in ``loadavg``; 20 more open files:
#: ``file-nr``); it logs the bits it sent
SENDER = """
import random, threading
rng, held = random.Random(12), []
def act(m):
    bit = rng.randrange(2)
    sys.stderr.write(f"S{bit}\\n")
    while held:
        held.pop()()
    if bit:
        with open("/tmp/channel", "wb") as f:
            f.write(b"x" * 1_000_000)
        files = [open("/bot/" + os.listdir("/bot")[0], "rb") for _ in range(20)]
        stop = threading.Event()
        threads = [threading.Thread(target=stop.wait) for _ in range(4)]
        for t in threads:
            t.start()
        def undo():
            os.unlink("/tmp/channel")
            for f in files:
                f.close()
            stop.set()
            for t in threads:
                t.join()
        held.append(undo)
    return m["legal"][-1]
serve(act)
"""

#: what the receiver (seat 2) reads at each decision: a digest of each, logged
WATCHED = ["meminfo", "loadavg", "stat", "vmstat", "uptime", "sys/fs/file-nr",
           "sys/fs/inode-nr", "sys/fs/dentry-state", "sys/fs/aio-nr", "sys/kernel/pty/nr",
           "interrupts", "softirqs", "cpuinfo", "pressure"]  # fmt: skip
RECEIVER = """
import zlib
WATCHED = @@WATCHED@@
def read(name):
    path = "/proc/" + name
    if os.path.isdir(path):
        return ",".join(sorted(os.listdir(path))).encode()
    with open(path, "rb") as f:
        return f.read()
def act(m):
    digests = " ".join(f"{zlib.crc32(read(name)):08x}" for name in WATCHED)
    sys.stderr.write(f"R {digests}\\n")
    return m["legal"][-1]
serve(act)
"""


def play(agents: list[engine.Agent]) -> engine.MatchResult:
    try:
        return engine.run_match(GAME, PARAMS, agents, seed=5)
    finally:
        for agent in agents:
            if isinstance(agent, SandboxedAgent):
                agent.close()


def test_partners_cannot_talk_through_machine_wide_proc_figures(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    """Every machine-wide figure the receiver reads is the same at each of its decisions,
    whatever the sender does: it decodes nothing (today ``Shmem`` carried 77 of 77 bits)."""
    limits = limits.replace(max_stderr_bytes=16 * 1024)
    sender = SandboxedAgent(write_bot(SENDER, name="sender"), limits)
    receiver = SandboxedAgent(
        write_bot(RECEIVER.replace("@@WATCHED@@", repr(WATCHED)), name="receiver"), limits
    )
    others = [SandboxedAgent(write_bot(PLAY), limits) for _ in range(2)]
    result = play([sender, others[0], receiver, others[1]])
    assert result.faults == [], sender.stderr_log + receiver.stderr_log
    sent = [line[1] for line in sender.stderr_log.splitlines() if line[:1] == "S"]
    readings = [line.split()[1:] for line in receiver.stderr_log.splitlines() if line[:2] == "R "]
    assert "0" in sent and "1" in sent and len(readings) >= 4
    for index, name in enumerate(WATCHED):
        seen = {reading[index] for reading in readings}
        assert len(seen) == 1, f"/proc/{name} changed between the receiver's decisions"


@pytest.mark.parametrize("frozen", [True, False], ids=["frozen", "run_between_turns"])
def test_a_spinning_bot_gets_no_cpu_between_its_turns(
    frozen: bool,
    any_backend: cgroups.Backend,
    bwrap_ok: None,
    limits: Limits,
    write_bot: Callable[..., Path],
) -> None:
    """Seat 0 starts six spinning processes and answers at once; the others think for 20 ms a
    decision. Frozen between its turns, the spinners get no CPU while others decide (today
    they took 40 % of the machine). The control run, which lets it run between turns, shows
    the measurement sees the spinning. On each backend this host has (v1 and v2 here)."""
    spinner = write_bot(
        """
        def act(m):
            if m["id"] == 1:
                for _ in range(6):
                    if os.fork() == 0:
                        while True:
                            pass
            return m["legal"][-1]
        serve(act)
        """,
        name="spinner",
    )
    thinker = write_bot("serve(lambda m: (time.sleep(0.02), m['legal'][-1])[1])\n")
    hostile = SandboxedAgent(spinner, limits, run_between_turns=not frozen)
    result = play([hostile, *(SandboxedAgent(thinker, limits) for _ in range(3))])
    assert result.faults == []
    assert hostile.decisions >= 4
    if frozen:
        assert hostile.off_turn_cpu_seconds < 0.005, hostile.off_turn_cpu_seconds
    else:  # at least 3 x 3 x 20 ms of others' thinking passed between its turns
        assert hostile.off_turn_cpu_seconds > 0.05, hostile.off_turn_cpu_seconds


TEARDOWN = {
    "plain": PLAY,
    "background_child": """
        def act(m):
            if m["id"] == 1 and os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    while True:
                        time.sleep(1)
                os._exit(0)
            return m["legal"][-1]
        serve(act)
        """,
    "tmpfs_full": """
        def act(m):
            if m["id"] == 1:
                for n in range(64):
                    with open(f"/dev/shm/f{n}", "wb") as f:
                        f.write(b"x" * 1024 * 1024)
            return m["legal"][-1]
        serve(act)
        """,
    "many_inodes": """
        def act(m):
            if m["id"] == 1:
                for n in range(30_000):
                    open(f"/tmp/{n}", "wb").close()
            return m["legal"][-1]
        serve(act)
        """,
}


def alive(pid: int) -> bool:
    """``pid`` exists and has not exited. A zombie has: it holds no memory, files, mounts or
    namespaces any more, only its exit status for its parent (the host's init, for the
    sandbox's init when bubblewrap outside exits first)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


@pytest.mark.parametrize("mode", ["cgroup", "cgroup v2", "uid_sweep"])
@pytest.mark.parametrize("name", TEARDOWN)
def test_no_process_of_the_bot_outlives_close(
    name: str,
    mode: str,
    bwrap_ok: None,
    limits: Limits,
    write_bot: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    """When the agent's ``close`` returns, none of the bot's processes is alive any more (not
    the bot, not its children, not either bubblewrap): checked once, without waiting. Today the
    inner bubblewrap and the bot often lived on for milliseconds, longer after filling a
    tmpfs (the kernel frees it as the last of them exits). A finished game's bot is stopped in
    the background (the next game does not wait), and ``close`` waits for that."""
    if mode == "uid_sweep":  # no control group: a root worker kills by the slot's uid
        if os.geteuid() != 0:
            pytest.skip("only a root worker has a uid per bot")
        monkeypatch.setenv("ARENA_SANDBOX_CGROUPS", "off")
    elif mode == "cgroup v2":  # this host's, or one without limits (the conftest's fixture)
        use_backend(monkeypatch, request.getfixturevalue("v2_backend"))
    elif cgroups.backend() is None:
        pytest.skip(f"no per-bot control group here: {cgroups.unavailable_reason()}")
    running: dict[int, list[int]] = {}

    class Checked(SandboxedAgent):
        def finish(self, result: dict[str, Any]) -> None:
            token = Path(self.bot.entry).stem
            pids = processes_matching(token)  # while the bot still runs
            assert len(pids) >= 3, pids  # bubblewrap outside, bubblewrap's init, the bot
            running[result["seat"]] = pids
            super().finish(result)

    limits = limits.replace(tmpfs_size_bytes=64 * 1024 * 1024)
    result = play([Checked(write_bot(TEARDOWN[name], name=name), limits) for _ in range(4)])
    assert result.faults == []  # play() closed every agent
    survivors = {seat: [p for p in pids if alive(p)] for seat, pids in running.items()}
    assert survivors == {0: [], 1: [], 2: [], 3: []}


def test_proc_shows_constants_and_hides_what_only_root_reads(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    """``/proc`` as a bot sees it (sandbox.procmask): the counters of ``/proc/sys`` are the
    stand-ins, the rest of those folders the host's values, ``random/uuid`` absent, the
    quota counters an empty folder; the files only root may read (left unmasked, to spare
    bubblewrap a bind each) cannot be opened."""
    root_only = sorted(
        name
        for name in procmask.EMPTY_FILES
        if os.path.isfile(f"/proc/{name}") and not os.stat(f"/proc/{name}").st_mode & 0o004
    )
    copied = Path("/proc/sys/fs/nr_open").read_text()
    body = """
        import json
        def look():
            seen = {}
            for name in @@ROOT_ONLY@@:
                try:
                    open("/proc/" + name, "rb").read()
                    seen[name] = "read"
                except OSError as err:
                    seen[name] = type(err).__name__
            seen["file-nr"] = open("/proc/sys/fs/file-nr").read()
            seen["nr_open"] = open("/proc/sys/fs/nr_open").read()
            seen["entropy"] = open("/proc/sys/kernel/random/entropy_avail").read()
            seen["pty"] = open("/proc/sys/kernel/pty/nr").read()
            seen["uuid"] = os.path.exists("/proc/sys/kernel/random/uuid")
            seen["quota"] = os.listdir("/proc/sys/fs/quota")
            return seen
        sys.stderr.write("SEEN " + json.dumps(look()) + "\\n")
        serve(lambda m: m["legal"][0])
        """
    path = write_bot(body.replace("@@ROOT_ONLY@@", repr(root_only)))
    with SandboxedAgent(path, limits) as bot:
        bot.start({"game": GAME, "seat": 0, "params": PARAMS})
        bot.act({}, ["7h"])
        line = next(x for x in bot.stderr_log.splitlines() if x.startswith("SEEN "))
    seen = json.loads(line[5:])
    assert {name: seen[name] for name in root_only} == dict.fromkeys(root_only, "PermissionError")
    assert seen["file-nr"] == procmask.FIXED_FILES["sys/fs/file-nr"]
    assert seen["entropy"] == procmask.FIXED_FILES["sys/kernel/random/entropy_avail"]
    assert seen["pty"] == procmask.FIXED_FILES["sys/kernel/pty/nr"]
    assert seen["nr_open"] == copied
    assert seen["uuid"] is False
    assert seen["quota"] == []
