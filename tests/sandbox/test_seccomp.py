"""The default-deny seccomp filter (issue 29): what it allows, what it refuses and how, and that
two partners find no kernel object in common to lock, write or count.

The filter's decisions are checked twice: by running its BPF program here on chosen system
calls (a classic-BPF interpreter of the dozen instructions it uses: fast, every case), and by
bots that make the calls inside the real sandbox.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Callable
from pathlib import Path

import pytest

import engine
from sandbox import Limits, SandboxedAgent, seccomp

ALLOW = seccomp.SECCOMP_RET_ALLOW
EPERM = seccomp.SECCOMP_RET_ERRNO | seccomp.EPERM
EINVAL = seccomp.SECCOMP_RET_ERRNO | seccomp.EINVAL
ENOSYS = seccomp.SECCOMP_RET_ERRNO | seccomp.ENOSYS
UNISTD = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h")


def run_filter(nr: int, *args: int, arch: int = seccomp.AUDIT_ARCH_X86_64) -> int:
    """What the filter returns for system call ``nr`` with ``args`` (classic BPF, as run by
    the kernel on ``struct seccomp_data``)."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, *(list(args) + [0] * (6 - len(args))))
    program = seccomp.build_x86_64()
    insns = [struct.unpack_from("<HBBI", program, i) for i in range(0, len(program), 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = insns[pc]
        pc += 1
        if code == seccomp.BPF_LD_W_ABS:
            acc = struct.unpack_from("<I", data, k)[0]
        elif code == seccomp.BPF_RET_K:
            return k
        elif code in (seccomp.BPF_JEQ_K, seccomp.BPF_JGE_K, seccomp.BPF_JSET_K):
            taken = {
                seccomp.BPF_JEQ_K: acc == k,
                seccomp.BPF_JGE_K: acc >= k,
                seccomp.BPF_JSET_K: bool(acc & k),
            }[code]
            pc += jt if taken else jf
        else:
            raise AssertionError(f"unexpected BPF instruction {code:#x}")


def test_the_numbers_are_the_kernels() -> None:
    """Every call is listed under its x86-64 number (a typo would allow something else)."""
    if not UNISTD.exists():
        pytest.skip(f"{UNISTD} is not installed (linux-libc-dev)")
    table = dict(re.findall(r"#define __NR_(\w+) (\d+)", UNISTD.read_text()))
    named = {**{n: nr for n, (nr, _) in seccomp.ALLOWED.items()}, **seccomp.NOTABLY_REFUSED}
    named |= {n: check.nr for n, check in seccomp.ARGUMENT_CHECKS.items()}
    wrong = {n: nr for n, nr in named.items() if n in table and int(table[n]) != nr}
    assert wrong == {}
    assert not set(seccomp.NOTABLY_REFUSED) & set(seccomp.ALLOWED)


def test_every_allowed_call_has_a_reason_and_is_allowed() -> None:
    for name, (nr, reason) in seccomp.ALLOWED.items():
        assert reason, name
        assert run_filter(nr) == ALLOW, name


@pytest.mark.parametrize("name", sorted(seccomp.NOTABLY_REFUSED))
def test_calls_outside_the_list_get_enosys(name: str) -> None:
    assert run_filter(seccomp.NOTABLY_REFUSED[name]) == ENOSYS


def test_other_tables_and_unknown_numbers_get_enosys() -> None:
    assert run_filter(0, arch=0x40000003) == ENOSYS  # i386
    assert run_filter(seccomp.X32_SYSCALL_BIT + 0) == ENOSYS  # x32 read
    assert run_filter(1000) == ENOSYS


FCNTL, SOCKET, FUTEX, IOCTL, PRCTL, MADVISE = 72, 41, 202, 16, 157, 28


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ((FCNTL, 3, 1), ALLOW),  # F_GETFD
        ((FCNTL, 3, 4), ALLOW),  # F_SETFL
        ((FCNTL, 3, 1030), ALLOW),  # F_DUPFD_CLOEXEC
        ((FCNTL, 3, 5), EPERM),  # F_GETLK
        ((FCNTL, 3, 6), EPERM),  # F_SETLK
        ((FCNTL, 3, 7), EPERM),  # F_SETLKW
        ((FCNTL, 3, 36), EPERM),  # F_OFD_GETLK
        ((FCNTL, 3, 37), EPERM),  # F_OFD_SETLK
        ((FCNTL, 3, 38), EPERM),  # F_OFD_SETLKW
        ((FCNTL, 3, 1024), EPERM),  # F_SETLEASE
        ((FCNTL, 3, 1026), EPERM),  # F_NOTIFY
        ((FCNTL, 3, (1 << 32) | 6), EPERM),  # the kernel ignores the upper half: so do we
        ((SOCKET, 1, 1, 0), ALLOW),  # AF_UNIX
        ((SOCKET, 2, 1, 0), EPERM),  # AF_INET
        ((SOCKET, 10, 2, 0), EPERM),  # AF_INET6
        ((SOCKET, 16, 3, 0), EPERM),  # AF_NETLINK
        ((SOCKET, 17, 3, 0), EPERM),  # AF_PACKET
        ((53, 1, 1, 0), ALLOW),  # socketpair AF_UNIX
        ((53, 2, 1, 0), EPERM),  # socketpair AF_INET
        ((FUTEX, 0x1000, 128 | 0), ALLOW),  # FUTEX_WAIT_PRIVATE
        ((FUTEX, 0x1000, 128 | 9), ALLOW),  # FUTEX_WAIT_BITSET_PRIVATE
        ((FUTEX, 0x1000, 0), EINVAL),  # FUTEX_WAIT (shared: keyed by inode)
        ((FUTEX, 0x1000, 1), EINVAL),  # FUTEX_WAKE (shared)
        ((IOCTL, 0, 0x5401), ALLOW),  # TCGETS: isatty
        ((IOCTL, 0, 0x5421), ALLOW),  # FIONBIO
        ((IOCTL, 0, 0x5412), EPERM),  # TIOCSTI
        ((PRCTL, 15), ALLOW),  # PR_SET_NAME
        ((PRCTL, 1, 9), ALLOW),  # PR_SET_PDEATHSIG (bubblewrap's init)
        ((PRCTL, 22, 2), EPERM),  # PR_SET_SECCOMP
        ((PRCTL, 35), EPERM),  # PR_SET_MM
        ((MADVISE, 0, 4096, 4), ALLOW),  # MADV_DONTNEED
        ((MADVISE, 0, 4096, 8), ALLOW),  # MADV_FREE
        ((MADVISE, 0, 4096, 12), EPERM),  # MADV_MERGEABLE
        ((MADVISE, 0, 4096, 21), EPERM),  # MADV_PAGEOUT
    ],
)
def test_dual_use_calls_are_checked_by_argument(call: tuple[int, ...], expected: int) -> None:
    assert run_filter(*call) == expected


# -- in the sandbox --------------------------------------------------------------------------

#: each probe: (name, expression) run in the bot; the result is "ok" or the errno's name
PROBES = """
import ctypes, errno, fcntl, socket, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def raw(nr, *args):
    result = libc.syscall(nr, *args)
    return "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]

def attempt(call):
    try:
        call()
        return "ok"
    except OSError as err:
        return errno.errorcode.get(err.errno, str(err.errno))

def lock(path, command):
    fd = os.open(path, os.O_RDWR if path.startswith("/dev") else os.O_RDONLY)
    try:
        kind = fcntl.F_WRLCK if path.startswith("/dev") else fcntl.F_RDLCK
        return attempt(lambda: fcntl.fcntl(fd, command, struct.pack("hhqqi", kind, 0, 0, 0, 0)))
    finally:
        os.close(fd)

def probes():
    word = ctypes.c_void_p.from_buffer(bytearray(8))  # a word of the bot's own memory
    address = ctypes.addressof(word)
    found = {
        "F_SETLK /dev/null": lock("/dev/null", fcntl.F_SETLK),
        "F_SETLKW /dev/null": lock("/dev/null", fcntl.F_SETLKW),
        "F_GETLK /dev/null": lock("/dev/null", fcntl.F_GETLK),
        "F_OFD_SETLK /dev/null": lock("/dev/null", 37),
        "F_SETLK runtime file": lock(os.__file__, fcntl.F_SETLK),
        "flock": attempt(lambda: fcntl.flock(os.open("/dev/null", os.O_RDONLY), fcntl.LOCK_EX)),
        "sysinfo": raw(99, ctypes.create_string_buffer(128)),
        "socket AF_INET": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
        "socket AF_INET6": attempt(lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)),
        "socket AF_NETLINK": attempt(lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW)),
        "socketpair AF_UNIX": attempt(socket.socketpair),
        "mincore": raw(27, ctypes.c_void_p(address & ~4095), 4096, ctypes.create_string_buffer(1)),
        "fadvise DONTNEED": raw(221, os.open(os.__file__, os.O_RDONLY), 0, 0, 4),
        "open /dev/ptmx": attempt(lambda: os.open("/dev/ptmx", os.O_RDWR)),
        "futex wake shared": raw(202, ctypes.c_void_p(address), 1, 1),
        "futex wake private": raw(202, ctypes.c_void_p(address), 129, 1),
        "fcntl F_GETFL": attempt(lambda: fcntl.fcntl(0, fcntl.F_GETFL)),
    }
    return found
"""

EXPECTED = {
    "F_SETLK /dev/null": "EPERM", "F_SETLKW /dev/null": "EPERM", "F_GETLK /dev/null": "EPERM",
    "F_OFD_SETLK /dev/null": "EPERM", "F_SETLK runtime file": "EPERM", "flock": "ENOSYS",
    "sysinfo": "ENOSYS", "socket AF_INET": "EPERM", "socket AF_INET6": "EPERM",
    "socket AF_NETLINK": "EPERM", "socketpair AF_UNIX": "ok", "mincore": "ENOSYS",
    "fadvise DONTNEED": "ENOSYS", "open /dev/ptmx": "ENOENT", "futex wake shared": "EINVAL",
    "futex wake private": "ok", "fcntl F_GETFL": "ok",
}  # fmt: skip


def test_probes_in_the_sandbox_get_errors_not_kills(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    """The refused calls fail with an errno the bot can handle; the bot plays on."""
    body = (
        PROBES
        + """
def act(m):
    sys.stderr.write("PROBES " + json.dumps(probes()) + "\\n")
    return m["legal"][0]
serve(act)
"""
    )
    with SandboxedAgent(write_bot(body, name="probe"), limits) as bot:
        agents: list[engine.Agent] = [bot, engine.RandomAgent(1)]
        result = engine.run_match("badugi", {"hands": 1}, agents, seed=1)
        log = bot.stderr_log
    assert result.faults == [], log
    reports = [json.loads(line[7:]) for line in log.splitlines() if line.startswith("PROBES ")]
    assert reports, log
    assert reports[0] == EXPECTED


#: A sender and a receiver, Belote partners (seats 0 and 2), try each channel the issue found:
#: the sender sets (bit 1) or clears (bit 0) the shared state at its decision, the receiver
#: reads it at its own next decision. Before issue 29 the lock carried 250 of 250 bits and
#: sysinfo 128 of 128.
CHANNEL_SENDER = (
    PROBES
    + """
import itertools
held = []
bits = itertools.cycle((0, 1, 1, 0, 1, 0, 0, 0, 1))  # both values from the second decision on
def act(m):
    bit = next(bits)
    for fd in held:
        os.close(fd)
    held.clear()
    results = []
    if bit:
        fd = os.open("/dev/null", os.O_RDWR)
        held.append(fd)
        results.append(attempt(lambda: fcntl.fcntl(
            fd, fcntl.F_SETLK, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))))
        results.append(attempt(lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)))
        with open("/tmp/grow", "wb") as f:  # Shmem in sysinfo's sharedram
            f.write(b"x" * (1 << 20))
    elif os.path.exists("/tmp/grow"):
        os.unlink("/tmp/grow")
    sys.stderr.write(f"S {bit} {' '.join(results)}\\n")
    return m["legal"][0]
serve(act)
"""
)
CHANNEL_RECEIVER = (
    PROBES
    + """
def act(m):
    fd = os.open("/dev/null", os.O_RDWR)
    seen = [
        attempt(lambda: fcntl.fcntl(fd, fcntl.F_SETLK,
                                    struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))),
        attempt(lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)),
        raw(99, ctypes.create_string_buffer(128)),
    ]
    os.close(fd)
    sys.stderr.write("R " + " ".join(seen) + "\\n")
    return m["legal"][0]
serve(act)
"""
)


def test_partners_have_no_lock_or_machine_figure_in_common(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    """Whatever the sender does, the receiver reads the same refusal at every decision: 0 bits."""
    limits = limits.replace(max_stderr_bytes=16 * 1024)
    sender = SandboxedAgent(write_bot(CHANNEL_SENDER, name="sender"), limits)
    receiver = SandboxedAgent(write_bot(CHANNEL_RECEIVER, name="receiver"), limits)
    agents: list[engine.Agent] = [sender, engine.RandomAgent(1), receiver, engine.RandomAgent(3)]
    try:
        result = engine.run_match("belote", {"target": 1}, agents, seed=7)
        sent = [line.split()[1:] for line in sender.stderr_log.splitlines() if line[:2] == "S "]
        seen = [line.split()[1:] for line in receiver.stderr_log.splitlines() if line[:2] == "R "]
    finally:
        sender.close()
        receiver.close()
    assert result.faults == []
    assert {s[0] for s in sent} == {"0", "1"} and len(seen) >= 4
    assert all(s[1:] == ["EPERM", "ENOSYS"] for s in sent if s[0] == "1")
    assert {tuple(s) for s in seen} == {("EPERM", "ENOSYS", "ENOSYS")}


WRITABLE_SCAN = """
import stat
def writable():
    found = []
    for top, dirs, files in os.walk("/"):
        if top in ("/proc", "/sys", "/tmp", "/dev/shm"):
            dirs[:] = []
            continue
        for name in dirs + files:
            path = os.path.join(top, name)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
            except OSError:
                continue
            os.close(fd)
            found.append(path)
    return sorted(found)

def act(m):
    sys.stderr.write("W " + json.dumps(writable()) + "\\n")
    return m["legal"][0]
serve(act)
"""


def test_nothing_writable_is_shared_but_the_stateless_devices(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    """Outside its own /tmp and /dev/shm a bot can write only to devices that keep nothing a
    partner could read back (and /dev/null can no longer be locked)."""
    with SandboxedAgent(write_bot(WRITABLE_SCAN, name="scan"), limits) as bot:
        agents: list[engine.Agent] = [bot, engine.RandomAgent(1)]
        result = engine.run_match("badugi", {"hands": 1}, agents, seed=1)
        log = bot.stderr_log
    assert result.faults == [], log
    found = [json.loads(line[2:]) for line in log.splitlines() if line.startswith("W ")]
    assert found, log
    assert set(found[0]) <= {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}
