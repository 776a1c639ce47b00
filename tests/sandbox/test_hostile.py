"""The hostile-bot table: each bot misbehaves in one way and must get exactly its verdict.

Every case plays a real (short) Belote match with the hostile bot in seat 0 and in-process random
agents elsewhere, and checks that the match still completes, that the verdict is the expected one
(``None``: the bot must *not* be faulted, because the attack had to fail silently), and that no
process of the bot survives the match. Escape attempts report success by answering an illegal
action ``ESCAPED:...``, which would turn into an ``illegal_action`` fault and fail the case.
"""

from __future__ import annotations

import dataclasses
import json
import os
import select
import shutil
import socket
import tempfile
import textwrap
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import engine
from sandbox import Limits, SandboxedAgent, load_bot, pysci
from sandbox.runtimes import PYTHON3, RUNTIMES, _python_site_dirs, resolve_runtime

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

#: for bots that never answer (they sleep or spin forever): a short decision limit is still a
#: deterministic timeout, and keeps the table fast. Every other case keeps the generous
#: TEST_LIMITS, so a slow machine cannot turn its verdict into a timeout (issue 16).
NEVER_ANSWERS = {"decision_timeout_ms": 400}

#: for the system call probes: ``syscall(name, nr, *args)`` is True if the call succeeded
SYSCALL = """
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)

def syscall(name, nr, *args):
    result = libc.syscall(nr, *args)
    code = errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno())
    sys.stderr.write(f"{name}: {result} {code}\\n")
    return result >= 0

def refused(*calls):
    \"\"\"None if every (name, nr, *args) call fails, else ESCAPED:<first that worked>.\"\"\"
    for name, nr, *args in calls:
        if syscall(name, nr, *args):
            return f"ESCAPED:{name}"
    return None
"""

CASES = [
    Case("infinite_loop", "def act(m):\n    while True: pass\nserve(act)\n", "timeout",
         limits=NEVER_ANSWERS, message="no answer within 400 ms"),
    Case("sleep_forever", "serve(lambda m: time.sleep(10**6))\n", "timeout", limits=NEVER_ANSWERS),
    Case("never_ready", "time.sleep(10**6)\n", "timeout",
         limits={"startup_timeout_ms": 500}, message="start-up"),
    # each decision (0.25 s) is far within the 10 s decision limit: only the 1 s bank can run
    # out, after at most 5 of seat 0's decisions (it has more: 8 tricks alone), sooner if slow
    Case("time_bank", "serve(lambda m: (time.sleep(0.25), m['legal'][0])[1])\n", "timeout",
         limits={"match_time_bank_ms": 1_000}, message="time bank"),
    # 1 s of CPU takes a few seconds on a loaded machine: the decision limit is far above that
    Case("cpu_limit", "def act(m):\n    while True: pass\nserve(act)\n", "timeout",
         limits={"cpu_seconds": 1, "decision_timeout_ms": 30_000}, message="CPU time limit"),
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
        limits={"decision_timeout_ms": 2_000},  # it never answers; forking 7 takes milliseconds
        log="forked ",
    ),
    # a small limit (touching it takes milliseconds) and a decision limit far above that: the
    # verdict cannot become a timeout on a slow machine (issue 16). Without a working limit the
    # bot stops at 1 GiB and says so (an illegal action) instead of eating the host's memory.
    Case("memory_hog", """
        def act(m):
            hoard = []
            for _ in range(64):
                hoard.append(bytearray(16 * 1024 * 1024))
                sys.stderr.write(f"hoarded {16 * len(hoard)} MiB\\n")
            return "ESCAPED:1 GiB without running out of memory"
        serve(act)
        """, "memory", limits={"address_space_bytes": 96 * 1024 * 1024},
         message="ran out of memory before answering act 1 (limit 96 MiB)",
         log="hoarded 16 MiB"),
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
         "timeout", limits=NEVER_ANSWERS),
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
            for port in (5432, 6379):  # PostgreSQL, Redis on the worker
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    return f"ESCAPED:connect {port}"
                except OSError as err:
                    sys.stderr.write(f"connect {port}: {err}\\n")
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                    s.connect("\\0arena-hostile-@@PORT@@")  # abstract: no file to hide
                return "ESCAPED:abstract unix socket"
            except OSError as err:
                sys.stderr.write(f"abstract unix socket: {err}\\n")
            try:  # no inet socket can even be made (seccomp): the test checks no receipt
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                    s.sendto(b"hello worker", ("127.0.0.1", @@PORT@@))
            except OSError:
                pass
            try:
                socket.getaddrinfo("example.com", 80)
                return "ESCAPED:dns"
            except OSError:
                pass
            return m["legal"][0]
        serve(act)
        """, None, log="abstract unix socket: [Errno 111]"),
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
            if set(os.environ) - {"PATH", "HOME", "LANG", "TMPDIR", "PWD", *@@THREAD_ENV@@}:
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
    # a reply the worker's JSON parser cannot take: must be the bot's fault, not the match's
    Case("deep_json", """
        def act(m):
            sys.stdout.write('{"id": %d, "action": %s}\\n' % (m["id"], "[" * 5000 + "]" * 5000))
            sys.stdout.flush()
            time.sleep(10**6)
        serve(act)
        """, "protocol_error", message="nested too deeply"),
    Case("huge_number", """
        def act(m):
            sys.stdout.write('{"id": %s, "action": "7h"}\\n' % ("1" * 5000))
            sys.stdout.flush()
            time.sleep(10**6)
        serve(act)
        """, "protocol_error", message="not JSON"),
    Case("slow_drip", """
        def act(m):
            sys.stdout.write('{"id": %d, "action": ' % m["id"])
            while True:
                sys.stdout.write(" ")
                sys.stdout.flush()
                time.sleep(0.02)
        serve(act)
        """, "timeout", limits=NEVER_ANSWERS, message="no answer within 400 ms"),
    # the illegal action goes into results and replays (UTF-8 JSON, databases): made printable
    Case("unprintable_action", "serve(lambda m: '\\ud800\\x00\\x1b[2J!')\n", "illegal_action",
         detail={"action": "\\ud800\\x00\\x1b[2J!"}),
    # /dev (and /dev/shm in it) was an uncapped tmpfs writable by the bot: host memory
    Case("dev_memory", """
        def act(m):
            try:
                with open("/dev/evil", "w") as f:
                    f.write("x")
                return "ESCAPED:write /dev"
            except OSError as err:
                sys.stderr.write(f"/dev/evil: {err}\\n")
            written = 0
            try:
                for i in range(8):  # 1 MiB each: the file size limit; /dev/shm is 2 MiB
                    with open(f"/dev/shm/f{i}", "wb") as f:
                        f.write(b"x" * (1024 * 1024 - 1))
                    written += 1
            except OSError as err:
                sys.stderr.write(f"/dev/shm: {err}\\n")
            if written > 2:
                return f"ESCAPED:{written} MiB in /dev/shm"
            return m["legal"][0]
        serve(act)
        """, None, log="No space left on device"),
    # memory that no rlimit counts: SysV IPC (stays after shmdt), memfd (RAM files, uncapped)
    Case("unaccounted_memory", SYSCALL + textwrap.dedent("""
        def act(m):
            return refused(("shmget", 29, 0, 64 << 20, 0o1600), ("msgget", 68, 0, 0o1600),
                           ("semget", 64, 0, 1, 0o1600), ("memfd_create", 319, b"x", 0),
                           ("memfd_secret", 447, 0)) or m["legal"][0]
        serve(act)
        """), None, log="memfd_create: -1"),
    # channels between the bots of a match (partners could share their hands): locks on and
    # access events from the runtime files every sandbox shares, the per-uid kernel keyrings
    Case("covert_channels", SYSCALL + textwrap.dedent("""
        import fcntl, struct
        def act(m):
            fd = os.open(os.__file__, os.O_RDONLY)
            query = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0)
            for name, call in (("flock", lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)),
                               ("F_GETLK", lambda: fcntl.fcntl(fd, fcntl.F_GETLK, query)),
                               ("F_OFD_GETLK", lambda: fcntl.fcntl(fd, 36, query)),
                               ("F_NOTIFY", lambda: fcntl.fcntl(
                                   os.open(os.path.dirname(os.__file__), os.O_RDONLY),
                                   fcntl.F_NOTIFY, fcntl.DN_ACCESS))):
                try:
                    call()
                    return f"ESCAPED:{name}"
                except OSError as err:
                    sys.stderr.write(f"{name}: {err}\\n")
            return refused(("inotify_init1", 294, 0), ("inotify_init", 253),
                           ("fanotify_init", 300, 0, 0),
                           ("add_key", 248, b"user", b"channel", b"As Ks", 5, -3),
                           ("keyctl", 250, 0, -3, 0)) or m["legal"][0]
        serve(act)
        """), None, log="flock: [Errno 38]"),
    Case("kernel_attack_surface", SYSCALL + textwrap.dedent("""
        def act(m):
            params = ctypes.create_string_buffer(120)
            return refused(("io_uring_setup", 425, 4, params), ("bpf", 321, 0, params, 72),
                           ("userfaultfd", 323, 0), ("perf_event_open", 298, params, 0, -1, -1, 0),
                           ("x32 keyctl", 0x40000000 + 250, 0, -3, 0)) or m["legal"][0]
        serve(act)
        """), None, log="io_uring_setup: -1"),
    # pid 1 of the sandbox is bubblewrap's init, with the bot's uid: it must not be taken over
    Case("ptrace_init", SYSCALL + textwrap.dedent("""
        def act(m):
            return refused(("ptrace attach 1", 101, 16, 1, 0, 0),
                           ("process_vm_readv", 310, 1, 0, 0, 0, 0, 0)) or m["legal"][0]
        serve(act)
        """), None, log="ptrace attach 1: -1 ENOSYS"),
    # a 64-bit process may make 32-bit system calls (int 0x80): the filter must not be bypassed
    Case("int80_abi", """
        import ctypes, mmap
        def act(m):
            # push rbx; mov eax, 288 (i386 keyctl); xor ebx, ebx (GET_KEYRING_ID);
            # mov ecx, -3 (session keyring); xor edx, edx; int 0x80; pop rbx; ret
            code = bytes.fromhex("53b82001000031dbb9fdffffff31d2cd805bc3")
            page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
            page.write(code)
            call = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
            result = call()
            sys.stderr.write(f"int 0x80 keyctl: {result}\\n")
            return "ESCAPED:int 0x80" if result >= 0 else m["legal"][0]
        serve(act)
        """, None, log="int 0x80 keyctl: -"),
    # what the filter and the read-only /dev must not break: POSIX semaphores, ctypes callbacks
    Case("multiprocessing_and_ctypes", """
        import ctypes, multiprocessing
        def act(m):
            if m["id"] == 1:
                queue, lock = multiprocessing.Queue(), multiprocessing.Lock()
                child = multiprocessing.Process(target=queue.put, args=("from child",))
                child.start()
                with lock:
                    got = queue.get(timeout=5)
                child.join()
                values = (ctypes.c_int * 3)(3, 1, 2)
                compare = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int),
                                           ctypes.POINTER(ctypes.c_int))(
                    lambda a, b: a[0] - b[0])
                ctypes.CDLL(None).qsort(values, 3, ctypes.sizeof(ctypes.c_int), compare)
                sys.stderr.write(f"{got}, sorted {list(values)}\\n")
            return m["legal"][0]
        serve(act)
        """, None, log="from child, sorted [1, 2, 3]"),
    # issue 12, finding 3: six children of 40 MB each; the address-space limit is per process,
    # so only a limit on the whole bot (its control group) stops them together
    Case("memory_all_processes", """
        import select
        def act(m):
            read, write = os.pipe()
            for _ in range(6):
                if os.fork() == 0:
                    hoard = b"x" * (40 * 1024 * 1024)  # touched, so really held
                    os.write(write, b"+")
                    time.sleep(10**6)
            got = 0
            while got < 6 and os.waitpid(-1, os.WNOHANG) == (0, 0):  # none was killed
                if select.select([read], [], [], 0.05)[0]:
                    got += len(os.read(read, 6))
            sys.stderr.write(f"children holding 40 MB: {got}\\n")
            if got == 6:
                return "ESCAPED:240 MB in six processes"
            os._exit(3)  # a child was killed
        serve(act)
        """, "memory", limits={"memory_bytes": 128 * 1024 * 1024},
         message="together reached the memory limit of 128 MiB"),
    # issue 12, finding 2: empty files in both tmpfs cost only kernel memory (inodes); seven
    # processes made 4.3 million of them. The bot's memory limit counts them.
    Case("tmpfs_inode_flood", """
        def act(m):
            pids = []
            for n in range(6):
                pid = os.fork()
                if pid == 0:
                    made = 0
                    try:
                        for i in range(150_000):
                            open(f"{('/tmp', '/dev/shm')[n % 2]}/{n}-{i}", "w").close()
                            made += 1
                    finally:
                        os._exit(0 if made == 150_000 else 1)
                pids.append(pid)
            statuses = [os.waitpid(pid, 0)[1] for pid in pids]
            sys.stderr.write(f"children: {statuses}\\n")
            if all(status == 0 for status in statuses):
                return "ESCAPED:900000 inodes"
            os._exit(3)
        serve(act)
        """, "memory", limits={"memory_bytes": 96 * 1024 * 1024},
         message="together reached the memory limit of 96 MiB"),
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
    """Loopback servers the bots must not reach: TCP and UDP on 127.0.0.1:port and the abstract
    unix socket ``@arena-hostile-<port>``; yields (port, peers that got through)."""
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen()
    port = tcp.getsockname()[1]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", port))
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(f"\0arena-hostile-{port}")
    unix.listen()
    peers: list[str] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            readable, _, _ = select.select([tcp, udp, unix], [], [], 0.1)
            for server in readable:
                if server is udp:
                    peers.append(f"udp {server.recvfrom(100)}")
                else:
                    conn, peer = server.accept()
                    peers.append(f"{server.family.name} {peer!r}")
                    conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield port, peers
    stop.set()
    thread.join()
    for server in (tcp, udp, unix):
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
        .replace("@@THREAD_ENV@@", repr(sorted(pysci.THREAD_ENV)))
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
    stored = json.dumps(result.to_dict(), ensure_ascii=False)
    stored.encode("utf-8")  # what the platform stores: UTF-8 JSON, no lone surrogates ...
    assert "\x00" not in stored  # ... and no NUL (PostgreSQL text refuses it)
    # nothing of the bot survives the match, nothing reached the listener
    assert gone(path.stem) == []
    assert peers == []
    other.close()


def test_fork_bomb_is_contained(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    """The bomb's own count of successful forks stays within the process limit."""
    case = CASES[[c.name for c in CASES].index("fork_bomb")]
    path = write_bot(case.body)
    with SandboxedAgent(path, limits.replace(**case.limits)) as bot:
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
        .replace("@@THREAD_ENV@@", repr(sorted(pysci.THREAD_ENV)))
    )
    with SandboxedAgent(write_bot(body), limits, trusted=True) as bot:
        bot.start({"game": GAME, "seat": 0, "params": PARAMS})
        with pytest.raises(engine.AgentFault) as fault:
            bot.act({}, ["7h"])
    assert fault.value.verdict == "illegal_action"
    assert fault.value.detail["action"].startswith("ESCAPED:")


def test_parallel_matches_never_share_a_uid(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path], gone: Callable[..., list[int]]
) -> None:
    """Two matches in two threads, eight bots alive at once: eight distinct uids (a root worker),
    both matches complete, nothing survives."""
    path = write_bot(
        "serve(lambda m: m['legal'][0], on_hello=lambda m: sys.stderr.write(f'uid={os.getuid()}'))"
    )
    together = threading.Barrier(2, timeout=60)  # a match takes seconds, even on a loaded machine

    class Held(SandboxedAgent):
        """Seat 0 finishes only when the other match got there too: all 8 bots still run."""

        def finish(self, result: dict[str, Any]) -> None:
            together.wait()
            super().finish(result)

    results: dict[int, engine.MatchResult] = {}
    logs: dict[int, list[str]] = {}

    def play(index: int) -> None:
        agents = [Held(path, limits), *(SandboxedAgent(path, limits) for _ in range(3))]
        try:
            results[index] = engine.run_match(GAME, PARAMS, agents, seed=index)
        finally:
            for agent in agents:
                agent.close()
            logs[index] = [agent.stderr_log for agent in agents]

    threads = [threading.Thread(target=play, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(90)
    assert sorted(results) == [0, 1]
    assert all(result.faults == [] for result in results.values())
    uids = [log.split("uid=")[1].split()[0] for match in logs.values() for log in match]
    assert len(uids) == 8
    if os.geteuid() == 0:
        assert len(set(uids)) == 8, uids
    assert gone(path.stem) == []


def test_a_flood_while_over_is_sent_does_not_escape(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path], gone: Callable[..., list[int]]
) -> None:
    """``over`` may have to wait for room in a bot's stdin (a bot that left input unread and
    shrank its pipe), draining the bot's output meanwhile: a flood then must not escape
    ``finish`` as an exception, which would end the whole match."""
    path = write_bot(
        """
        import fcntl
        fcntl.fcntl(0, fcntl.F_SETPIPE_SZ, 4096)
        def act(m):
            send({"id": m["id"], "action": m["legal"][0]})
            while True:  # stop reading stdin, flood stderr
                sys.stderr.write("e" * 65536)
        serve(act)
        """
    )
    with SandboxedAgent(path, limits) as bot:
        bot.start({"game": GAME, "seat": 0, "params": PARAMS})
        assert bot.act({}, ["7h"]) == "7h"
        bot.finish({"scores": [0, 0, 0, 0], "padding": "x" * 100_000})  # must not raise
    assert gone(path.stem) == []


def test_installed_packages_inside_the_standard_library_are_hidden(
    bwrap_ok: None,
    limits: Limits,
    write_bot: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The python:3.11 image installs packages (Django, this project) into
    /usr/local/lib/python3.11/site-packages, inside the standard library directory the sandbox
    binds: the bot sees the standard library, and an empty, read-only site-packages."""
    lib = Path(tempfile.mkdtemp(dir="/var/tmp"))  # reachable by the sandbox uid, not under /tmp
    try:
        lib.chmod(0o755)
        (lib / "site-packages").mkdir(mode=0o755)
        (lib / "site-packages" / "installed.py").write_text("SECRET = 1\n")
        (lib / "stdlib_module.py").write_text("X = 1\n")
        os.chmod(lib / "site-packages", 0o755)
        stdlib = PYTHON3.library_dirs
        assert stdlib is not None
        fake = dataclasses.replace(  # what such an interpreter answers
            PYTHON3,
            name="python3-with-site",
            library_dirs=lambda interpreter: [*stdlib(interpreter), str(lib)],
            hidden_dirs=lambda interpreter: [str(lib / "site-packages"), "/nowhere/else"],
        )
        monkeypatch.setitem(RUNTIMES, fake.name, fake)
        resolved = resolve_runtime(fake.name, for_other_uid=os.geteuid() == 0)
        assert resolved.hidden_dirs == (str(lib / "site-packages"),)
        monkeypatch.setattr("sandbox.agent.resolve_runtime", lambda *a, **k: resolved)
        body = """
            def act(m):
                if "stdlib_module.py" not in os.listdir("@@LIB@@"):
                    return "ESCAPED:the test is broken: the library is not visible"
                if os.listdir("@@LIB@@/site-packages"):
                    return "ESCAPED:site-packages is visible"
                try:
                    open("@@LIB@@/site-packages/x.py", "w").close()
                    return "ESCAPED:site-packages is writable"
                except OSError as err:
                    sys.stderr.write(f"site-packages: {err}\\n")
                return m["legal"][0]
            serve(act)
            """
        path = write_bot(body.replace("@@LIB@@", str(lib)))
        with SandboxedAgent(path, limits) as bot:
            bot.start({"game": GAME, "seat": 0, "params": PARAMS})
            try:
                action = bot.act({}, ["7h"])
            except engine.AgentFault as fault:
                raise AssertionError(f"{fault}; bot log:\n{bot.stderr_log}") from None
            assert action == "7h"
            assert "Read-only file system" in bot.stderr_log
    finally:
        shutil.rmtree(lib)


def test_no_site_directory_of_the_real_interpreter_is_visible() -> None:
    """Where this interpreter installs packages is neither bound nor left visible in a bind."""
    resolved = resolve_runtime("python3", for_other_uid=os.geteuid() == 0)
    assert resolved.interpreter is not None
    for site_dir in _python_site_dirs(resolved.interpreter):
        real = os.path.realpath(site_dir)
        bound_in = [d for d in resolved.library_dirs if real == d or real.startswith(d + "/")]
        assert not bound_in or real in resolved.hidden_dirs, (real, resolved)
