"""The hostile-bot table: each bot misbehaves in one way and must get exactly its verdict.

Every case plays a real (short) Belote match with the hostile bot in seat 0 and in-process random
agents elsewhere, and checks that the match still completes, that the verdict is the expected one
(``None``: the bot must *not* be faulted, because the attack had to fail silently), and that no
process of the bot survives the match. Escape attempts report success by answering an illegal
action ``ESCAPED:...``, which would turn into an ``illegal_action`` fault and fail the case.
"""

from __future__ import annotations

import os
import socket
import textwrap
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import engine
from sandbox import Limits, SandboxedAgent, load_bot

GAME, PARAMS = "belote", {"target": 1}
PROJECT_FILE = Path(__file__).resolve().parents[2] / "pyproject.toml"
SECRET = "s3cr3t-database-password"


@dataclass
class Case:
    name: str
    body: str
    verdict: str | None
    limits: dict[str, Any] = field(default_factory=dict)
    message: str = ""  # a substring the fault message must contain
    detail: dict[str, Any] = field(default_factory=dict)
    log: str = ""  # a substring the owner's stderr log must contain


PLAY = "serve(lambda m: m['legal'][0])\n"

CASES = [
    Case("infinite_loop", "def act(m):\n    while True: pass\nserve(act)\n", "timeout",
         message="no answer within 400 ms"),
    Case("sleep_forever", "serve(lambda m: time.sleep(10**6))\n", "timeout"),
    Case("never_ready", "time.sleep(10**6)\n", "timeout",
         limits={"startup_timeout_ms": 500}, message="start-up"),
    Case("time_bank", "serve(lambda m: (time.sleep(0.15), m['legal'][0])[1])\n", "timeout",
         limits={"match_time_bank_ms": 400}, message="time bank"),
    Case("cpu_limit", "def act(m):\n    while True: pass\nserve(act)\n", "timeout",
         limits={"cpu_seconds": 1, "decision_timeout_ms": 5_000}, message="CPU time limit"),
    Case(
        "fork_bomb",
        """
        def act(m):
            forked = 0
            while True:
                try:
                    if os.fork() == 0:
                        time.sleep(1000)
                        os._exit(0)
                    forked += 1
                except OSError:
                    break
            sys.stderr.write(f"forked {forked}\\n")
            sys.stderr.flush()
            while True:  # and keep hammering
                try:
                    os.fork()
                except OSError:
                    pass
        serve(act)
        """,
        "timeout",
        log="forked ",
    ),
    Case("memory_hog", """
        def act(m):
            hoard = []
            while True:
                hoard.append(bytearray(16 * 1024 * 1024))
        serve(act)
        """, "memory", message="out of memory"),
    Case("huge_line", """
        def act(m):
            sys.stdout.write('{"id": %d, "action": "%s"}\\n' % (m["id"], "x" * 10**6))
            sys.stdout.flush()
            time.sleep(10**6)
        serve(act)
        """, "protocol_error", message="oversize line"),
    Case("stdout_flood", """
        def act(m):
            while True:
                sys.stdout.write("\\n" * 65536)
        serve(act)
        """, "output_limit"),
    Case("stderr_flood", """
        def act(m):
            while True:
                sys.stderr.write("e" * 65536)
        serve(act)
        """, "output_limit"),
    Case("stderr_chatter", """
        def act(m):
            sys.stderr.write("thinking " * 100 + "\\n")
            return m["legal"][0]
        serve(act)
        """, None, log="thinking"),
    Case("malformed_json", "def act(m):\n    print('this is not json', flush=True)\n"
         "    time.sleep(10**6)\nserve(act)\n", "protocol_error", message="not JSON"),
    Case("wrong_id", "def act(m):\n    send({'id': m['id'] + 1, 'action': m['legal'][0]})\n"
         "    time.sleep(10**6)\nserve(act)\n", "protocol_error", message="a reply with id"),
    Case("not_an_object", "def act(m):\n    print('[1, 2]', flush=True)\n    time.sleep(10**6)\n"
         "serve(act)\n", "protocol_error", message="JSON object"),
    Case("illegal_action", "serve(lambda m: 'Zz')\n", "illegal_action", detail={"action": "Zz"}),
    Case("exits_early", "serve(lambda m: sys.exit(0))\n", "crash", detail={"exit_code": 0}),
    Case("raises", "serve(lambda m: 1 / 0)\n", "crash", detail={"exit_code": 1},
         log="ZeroDivisionError"),
    Case("segfault", "import ctypes\nserve(lambda m: ctypes.string_at(0))\n", "crash",
         detail={"signal": "SIGSEGV"}),
    # bubblewrap's init holds the pipe open, so this looks like silence: a timeout
    Case("closes_stdout", "def act(m):\n    os.close(1)\n    time.sleep(10**6)\nserve(act)\n",
         "timeout"),
    Case("ignores_over", """
        import signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        serve(lambda m: m["legal"][0])
        time.sleep(10**6)
        """, None),
    Case("network", """
        import socket
        def act(m):
            for family, address in ((socket.AF_INET, ("127.0.0.1", @@PORT@@)),
                                    (socket.AF_INET, ("10.0.2.2", 80)),
                                    (socket.AF_INET6, ("::1", @@PORT@@))):
                try:
                    with socket.socket(family, socket.SOCK_STREAM) as s:
                        s.settimeout(0.2)
                        s.connect(address)
                    return f"ESCAPED:connect {address}"
                except OSError as err:
                    sys.stderr.write(f"connect {address}: {err}\\n")
            try:
                socket.getaddrinfo("example.com", 80)
                return "ESCAPED:dns"
            except OSError:
                pass
            return m["legal"][0]
        serve(act)
        """, None, log="connect"),
    Case("reads_secrets", """
        def readable(path):
            try:
                if os.path.isdir(path):
                    os.listdir(path)
                else:
                    with open(path, "rb") as f:
                        return f.read()
                return b"(a directory)"
            except OSError as err:
                sys.stderr.write(f"{path}: {err}\\n")
                return None

        def act(m):
            for path in ("@@PROJECT@@", "@@OTHER_BOT@@", "/etc/shadow", "/etc/passwd",
                         "/root/.bashrc", "/work", "/home", "/var", "/run"):
                if readable(path) is not None:
                    return f"ESCAPED:read {path}"
            for pid in os.listdir("/proc"):
                environ = readable(f"/proc/{pid}/environ") if pid.isdigit() else None
                if "@@SECRET@@".encode() in (environ or b""):
                    return f"ESCAPED:/proc/{pid}/environ"
            if any("@@SECRET@@" in v for v in os.environ.values()):
                return "ESCAPED:environment"
            if set(os.environ) - {"PATH", "HOME", "LANG", "TMPDIR", "PWD"}:
                return "ESCAPED:env " + ",".join(sorted(os.environ))
            if len([p for p in os.listdir("/proc") if p.isdigit()]) > 3:
                return "ESCAPED:sees other processes"
            try:
                os.kill(@@WORKER_PID@@, 0)
                return "ESCAPED:can signal the worker"
            except OSError:
                pass
            return m["legal"][0]
        serve(act)
        """, None, log="/etc/shadow"),
    Case("writes_outside_tmp", """
        def act(m):
            for path in ("/bot/evil", "/evil", "/usr/evil", "/etc/evil", "/proc/evil"):
                try:
                    with open(path, "w") as f:
                        f.write("x")
                    return f"ESCAPED:write {path}"
                except OSError as err:
                    sys.stderr.write(f"{path}: {err}\\n")
            with open("/tmp/ok", "w") as f:  # the one writable place
                f.write("fine")
            try:
                with open("/tmp/big", "wb") as f:
                    f.write(b"x" * (8 * 1024 * 1024))
                return "ESCAPED:tmpfs larger than its cap"
            except OSError as err:
                sys.stderr.write(f"/tmp/big: {err}\\n")
            return m["legal"][0]
        serve(act)
        """, None, log="Read-only file system"),
    Case("background_child", """
        def act(m):
            if m["id"] == 1 and os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    os.execv(sys.executable, [sys.executable, "-c",
                             "import time  # @@TOKEN@@\\nwhile True: time.sleep(1)"])
                os._exit(0)
            return m["legal"][0]
        serve(act)
        """, None),
]  # fmt: skip


@pytest.fixture(scope="module")
def listener() -> Iterator[tuple[int, list[str]]]:
    """A loopback TCP server the bots must not reach; yields (port, peers that connected)."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.1)
    peers: list[str] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, peer = server.accept()
            except OSError:
                continue
            peers.append(str(peer))
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], peers
    stop.set()
    thread.join()
    server.close()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_bot(
    case: Case,
    bwrap_ok: None,
    limits: Limits,
    write_bot: Callable[..., Path],
    gone: Callable[..., list[int]],
    listener: tuple[int, list[str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_TEST_SECRET", SECRET)  # the worker's environment holds a secret
    port, peers = listener
    other = load_bot(write_bot(PLAY, name="victim"))
    path = write_bot("", name=case.name)  # first, to learn the token in the file name
    body = (
        case.body.replace("@@PORT@@", str(port))
        .replace("@@PROJECT@@", str(PROJECT_FILE))
        .replace("@@OTHER_BOT@@", str(other.root / other.entry))
        .replace("@@SECRET@@", SECRET)
        .replace("@@WORKER_PID@@", str(os.getpid()))
        .replace("@@TOKEN@@", path.stem)
    )
    path.write_text(path.read_text() + textwrap.dedent(body))

    agents: list[engine.Agent] = [engine.RandomAgent(seed) for seed in range(4)]
    with SandboxedAgent(path, limits.replace(**case.limits)) as hostile:
        agents[0] = hostile
        result = engine.run_match(GAME, PARAMS, agents, seed=11)
        log = hostile.stderr_log

    # the match completed for everybody
    assert all(play.state.is_terminal() for play in result.games)
    assert len(result.scores) == 4
    faults = [(f.verdict, f.message, f.detail) for f in result.faults]
    if case.verdict is None:
        assert faults == [], f"unexpected fault; bot log:\n{log}"
    else:
        assert [f[0] for f in faults] == [case.verdict], f"got {faults}; bot log:\n{log}"
        assert result.placings[0] == 4  # a faulted entrant places last
        assert case.message in faults[0][1]
        for key, value in case.detail.items():
            assert faults[0][2].get(key) == value, faults[0]
    assert case.log in log
    assert len(log) <= limits.max_stderr_bytes + 200  # capped (plus the game header)
    assert SECRET not in str(result.to_dict())
    # nothing of the bot survives the match, nothing reached the listener
    assert gone(path.stem) == []
    assert peers == []
    other.close()


def test_fork_bomb_is_contained(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    """The bomb's own count of successful forks stays within the process limit."""
    path = write_bot(CASES[[c.name for c in CASES].index("fork_bomb")].body)
    with SandboxedAgent(path, limits) as bot:
        bot.start({"game": GAME, "seat": 0, "params": PARAMS})
        with pytest.raises(engine.AgentFault):
            bot.act({}, ["a"])
        log = bot.stderr_log
    forked = int(log.split("forked ")[1].split()[0])
    assert 0 < forked < limits.max_processes


@pytest.mark.parametrize("name", ["network", "reads_secrets"])
def test_escape_probes_detect_escapes_without_the_sandbox(
    name: str,
    limits: Limits,
    write_bot: Callable[..., Path],
    listener: tuple[int, list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Control experiment: unconfined (trusted mode), the same probes do escape and say so."""
    monkeypatch.setenv("ARENA_TEST_SECRET", SECRET)
    port, _ = listener
    case = CASES[[c.name for c in CASES].index(name)]
    body = (
        case.body.replace("@@PORT@@", str(port))
        .replace("@@PROJECT@@", str(PROJECT_FILE))
        .replace("@@OTHER_BOT@@", str(PROJECT_FILE))
        .replace("@@SECRET@@", SECRET)
        .replace("@@WORKER_PID@@", str(os.getpid()))
    )
    with SandboxedAgent(write_bot(body), limits, trusted=True) as bot:
        bot.start({"game": GAME, "seat": 0, "params": PARAMS})
        with pytest.raises(engine.AgentFault) as fault:
            bot.act({}, ["7h"])
    assert fault.value.verdict == "illegal_action"
    assert fault.value.detail["action"].startswith("ESCAPED:")
