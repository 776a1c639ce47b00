"""Sandboxes prepared ahead (sandbox.prepared, sandbox.pool), every game's bots started at once
(SandboxedAgent.start_games) and teardown off the next match's path (close(wait=False)): real
bubblewrap, real control groups where the host has them."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import engine
from sandbox import Limits, SandboxedAgent, SandboxUnavailable, cgroups, load_bot
from sandbox.pool import SandboxPool
from sandbox.prepared import PreparedSandbox
from sandbox.runtimes import PYTHON_PRELOADED, ResolvedRuntime, resolve_runtime

GAME, PARAMS = "belote", {"target": 200}

#: on hello, the bot reports what it sees of its sandbox on stderr (one JSON line), leaves a
#: file in each writable place and a child process behind, then plays the first legal action
SPY = """\
import subprocess

def report(message):
    seen = {
        "seat": message["seat"],
        "argv": sys.argv, "file": __file__, "path": sys.path[:2], "cwd": os.getcwd(),
        "bot": sorted(os.listdir("/bot")), "tmp": sorted(os.listdir("/tmp")),
        "shm": sorted(os.listdir("/dev/shm")),
        "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
        "uid": os.getuid(), "main": sorted(k for k in globals() if k.startswith("_")),
        "nice": open("/proc/self/stat").read().rsplit(")", 1)[1].split()[16],
        "modules": sorted(set(sys.modules) & {"json", "random"}),  # the prelude imports json
    }
    sys.stderr.write("SEEN " + json.dumps(seen) + "\\n")
    sys.stderr.flush()
    for place in ("/tmp", "/dev/shm"):
        with open(f"{place}/left-by-{message['seat']}", "w") as f:
            f.write("secret")
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])

serve(lambda m: m["legal"][0], on_hello=report)
"""


def python_runtime() -> ResolvedRuntime:
    return resolve_runtime("python3", for_other_uid=os.geteuid() == 0)


def actions(result: engine.MatchResult) -> list[list[tuple[int, str]]]:
    return [
        [(e["seat"], e["action"]) for deal in game["deals"] for e in deal["events"]]
        for game in result.replay["games"]
    ]


def alive(pid: int) -> bool:
    """The process exists and is not a zombie (which runs nothing and holds nothing)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def seen(agent: SandboxedAgent) -> list[dict[str, object]]:
    return [
        json.loads(line[5:]) for line in agent.stderr_log.splitlines() if line.startswith("SEEN ")
    ]


@pytest.fixture
def frozen() -> None:
    """Skip where bots cannot be frozen (no control group): start_games then does nothing."""
    if cgroups.backend() is None:
        pytest.skip(f"no per-bot control group: {cgroups.unavailable_reason()}")


def play(
    path: Path, limits: Limits, pool: SandboxPool | None
) -> tuple[engine.MatchResult, list[list[dict[str, object]]]]:
    agents = [SandboxedAgent(path, limits, pool=pool) for _ in range(4)]
    try:
        result = engine.run_match(GAME, PARAMS, agents, seed=11, duplicate=True)
        return result, [seen(agent) for agent in agents]
    finally:
        for agent in agents:
            agent.close()


def test_a_prepared_sandbox_plays_exactly_like_a_fresh_one(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    path = write_bot(SPY)
    fresh, fresh_seen = play(path, limits, None)
    with SandboxPool(8) as pool:
        pool.prepare(python_runtime(), limits, 8)
        assert pool.wait(60) and pool.ready_count() == 8
        prepared, prepared_seen = play(path, limits, pool)
        assert pool.hits == 8 and pool.misses == 0
    assert prepared.faults == fresh.faults == []
    assert prepared.scores == fresh.scores
    assert actions(prepared) == actions(fresh)
    for mine, theirs in zip(prepared_seen, fresh_seen, strict=True):
        assert len(mine) == len(theirs) == 2  # one process per game
        for a, b in zip(mine, theirs, strict=True):
            # the same view: argv, __file__, sys.path, cwd, files, an empty /tmp and /dev/shm,
            # the sandbox's own processes only, the same globals in __main__
            # (the uid is each sandbox's own slot: any of the pool's); the modules the gate
            # imported ahead of its bot (PYTHON_PRELOADED) are the only difference
            same = {k: v for k, v in a.items() if k not in ("pids", "uid", "modules")}
            assert same == {k: v for k, v in b.items() if k not in ("pids", "uid", "modules")}
            assert a["modules"] == sorted(PYTHON_PRELOADED) and b["modules"] == ["json"]
            assert a["tmp"] == a["shm"] == []
            assert len(a["pids"]) == len(b["pids"])
            assert a["uid"] == b["uid"] or os.geteuid() == 0


def test_a_prepared_sandbox_is_handed_out_once(bwrap_ok: None, limits: Limits) -> None:
    sandbox = PreparedSandbox(python_runtime(), limits)
    assert sandbox.wait_gate()
    runtime = python_runtime()
    with load_bot(Path(__file__).parents[2] / "examples" / "random") as bot:
        line = runtime.assignment(bot.entry, bot.pythonpath)
        res = sandbox.assign(bot, line)
        try:
            assert res.process is not None and not res.process.exited
            assert not sandbox.alive
            with pytest.raises(SandboxUnavailable):
                sandbox.assign(bot, line)
        finally:
            folder = res.directory
            res.end_process()
    assert folder is not None and not folder.exists()


def test_nothing_of_a_previous_bot_is_seen_by_the_next(
    bwrap_ok: None, frozen: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    path = write_bot(SPY)
    with SandboxPool(8) as pool:
        first = SandboxedAgent(path, limits, pool=pool)
        pool.prepare(first.runtime, limits, 2)
        assert pool.wait(60)
        with first:
            first.start({"game": GAME, "seat": 0, "params": PARAMS})
            first.wait_ready()  # it left files and a process behind
            assert first._res.group is not None
            first_pids = first._res.group.pids()
            uid = first._res.slot.uid if first._res.slot is not None else None
            with SandboxedAgent(path, limits, pool=pool) as second:  # side by side
                second.start({"game": GAME, "seat": 1, "params": PARAMS})
                second.wait_ready()
                assert second._res.group is not None
                assert second._res.group.name != first._res.group.name
                assert second._res.directory != first._res.directory
                if uid is not None:
                    assert second._res.slot is not None and second._res.slot.uid != uid
        assert len(first_pids) >= 2  # the bot and its sleeper (bubblewrap's may be set aside)
        assert [pid for pid in first_pids if alive(pid)] == []  # gone with the first bot
        assert pool.wait(60) and pool.ready_count() == 2  # what the two took, prepared again
        with SandboxedAgent(path, limits, pool=pool) as third:  # after it, same pool
            third.start({"game": GAME, "seat": 2, "params": PARAMS})
            third.wait_ready()
            assert third._res.directory is not None
            assert sorted(os.listdir(third._res.directory)) == [path.name]
        assert pool.hits == 3
    views = seen(first) + seen(second) + seen(third)
    for view in views:
        assert view["bot"] == [path.name]
        assert view["tmp"] == view["shm"] == []  # nobody's left-by-* files
        assert len(view["pids"]) <= 3  # bubblewrap's init and the bot (no earlier sleeper)


def test_later_games_bots_wait_frozen_until_their_game(
    bwrap_ok: None, frozen: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    spinner = write_bot(
        """
        import threading

        def spin():
            while True:
                pass

        def start_spinning(message):
            threading.Thread(target=spin, daemon=True).start()

        serve(lambda m: m["legal"][0], on_hello=start_spinning)
        """
    )
    infos = [{"game": GAME, "seat": seat, "params": PARAMS} for seat in (0, 1)]
    with SandboxedAgent(spinner, limits) as agent:
        agent.start_games(infos)
        agent.wait_games_ready()
        assert agent.startup_seconds == []  # both started, neither taken by its game yet
        agent.start(infos[0])
        time.sleep(0.5)  # the first game "plays" without this seat's turn
        agent.finish({"scores": [0, 0], "terminal": True, "seat": 0})
        agent.start(infos[1])
        assert len(agent.startup_seconds) == 2
        agent.act({}, ["a", "b"])
        # the second game's bot spins from its hello on: frozen since its ready, it used no CPU
        # during the first game (it would have used about 0.5 s)
        assert agent.off_turn_cpu_seconds < 0.1


def test_a_later_games_start_up_fault_is_reported_in_that_game(
    bwrap_ok: None, frozen: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    crasher = write_bot(
        """
        def maybe_crash(message):
            if message["seat"] == 1:
                sys.stderr.write("no seat 1 for me\\n")
                raise SystemExit(3)

        serve(lambda m: m["legal"][0], on_hello=maybe_crash)
        """
    )
    agents = [SandboxedAgent(crasher, limits) for _ in range(4)]
    try:
        result = engine.run_match(GAME, PARAMS, agents, seed=3, duplicate=True)
    finally:
        for agent in agents:
            agent.close()
    by_game = {(f.game_index, f.entrant): f for f in result.faults}
    # game 0: entrant 1 sits in seat 1; game 1 (seats rotated): entrant 2
    assert sorted(by_game) == [(0, 1), (1, 2)]
    assert all(f.decision == -1 and f.verdict == "crash" for f in result.faults)
    assert "no seat 1 for me" in agents[2].stderr_log
    assert "--- game 2 ---" in agents[2].stderr_log


def test_the_pool_is_bounded_and_torn_down_on_close(bwrap_ok: None, limits: Limits) -> None:
    runtime = python_runtime()
    pool = SandboxPool(3)
    pool.prepare(runtime, limits, 10)
    assert pool.wait(60)
    assert pool.ready_count() == 3
    waiting = [s for kind in pool._ready.values() for s in kind]
    pids = [s.res.process.pid for s in waiting if s.res.process is not None]
    folders = [s.res.directory for s in waiting]
    assert len(pids) == 3 and all(f is not None and f.is_dir() for f in folders)
    pool.close()
    assert pool.ready_count() == 0
    assert pool.take(runtime, limits) is None
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reaped: gone
    assert not any(f is not None and f.exists() for f in folders)


def test_close_without_waiting_keeps_the_log_complete_and_tears_down_later(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    path = write_bot(
        """
        def on_over():
            sys.stderr.write("my last words\\n")
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])

        import subprocess
        serve(lambda m: m["legal"][0])
        on_over()
        """
    )
    agents = [SandboxedAgent(path, limits) for _ in range(4)]
    try:
        result = engine.run_match(GAME, PARAMS, agents, seed=2, duplicate=True)
    finally:
        for agent in agents:
            agent.close(wait=False)
    assert result.faults == []
    for agent in agents:  # every game's last stderr is in, though teardown may go on
        assert agent.stderr_log.count("my last words") == 2
    groups = [g for a in agents for g in a._res.stopped]
    for agent in agents:
        agent.close()  # waits for the teardown begun in the background
    assert all(stopping.done.done() for stopping in groups)
    assert all(stopping.res.process is None and stopping.res.slot is None for stopping in groups)
