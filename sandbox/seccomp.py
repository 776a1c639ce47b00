"""The seccomp filter bubblewrap installs on every bot (``--seccomp FD``): a default-deny
allowlist, built here in classic BPF.

Namespaces hide files, processes and the network, but the kernel keeps many objects that are
not namespaced: record locks on a device node every sandbox shares (``/dev/null``), the
machine's memory figures (``sysinfo``), the page cache of the runtime files, futexes keyed by
those files' inodes, pseudo-terminals, socket buffers. Two partners in a match can signal each
other through any of them (issue 29: 250 of 250 bits through ``F_SETLK`` on ``/dev/null``,
128 of 128 through ``sysinfo``), and a denylist only ever closes the channels someone has
found. So the filter lists what a card bot needs - the system calls that CPython 3.11 (with
numpy), Node.js, static C/C++ programs and the C++ compiler (:mod:`sandbox.compile`) were
traced making - each with its reason (:data:`ALLOWED`), and refuses the rest:

* a call outside the list gets ``ENOSYS`` ("this kernel does not have it"), the answer runtimes
  are written to expect: glibc falls back from ``clone3`` to ``clone`` (whose flags the filter
  can read), from ``statx``/``faccessat2``/``preadv2`` to the older calls; a program that
  needs the refused call gets an error it can report, never a kill;
* a listed call whose *arguments* ask for something outside a card bot's needs gets ``EPERM``
  (:data:`ARGUMENT_CHECKS`): ``fcntl`` without any lock or lease command, ``socket`` and
  ``socketpair`` for ``AF_UNIX`` only (no inet sockets: their buffers are charged to no memory
  group on cgroup v1, and the TCP memory limit is machine-wide), ``ioctl`` for the terminal and
  non-blocking queries runtimes make, ``prctl`` for thread names and the like, ``madvise``
  without same-page merging (KSM) or reclaim; signals to own processes, but never ``SIGKILL``
  (so a SIGKILL is evidence that someone else killed the bot: :mod:`sandbox.agent`);
* ``futex`` only with ``FUTEX_PRIVATE_FLAG``: a shared futex on a page of a runtime file is
  keyed by the file's inode, so a waiter in one sandbox could be woken from another. A shared
  one gets ``EINVAL``, which glibc's process-shared semaphores (``multiprocessing`` locks)
  survive by polling instead of sleeping; any other errno makes glibc abort the program.

Not in the list, so refused, among others: ``flock``, ``sysinfo``, ``mincore`` and
``preadv2``/``cachestat`` (page-cache probes), ``fadvise64``/``readahead`` (evicting or
loading the shared page cache), System V IPC and ``memfd_create`` (memory outside the limits),
``ptrace``/``process_vm_*`` (the bot's uid owns bubblewrap's init), keyrings, ``inotify``/
``fanotify``, ``io_uring``, ``bpf``, ``perf_event_open``, ``userfaultfd``, ``unshare``,
``setns``, ``mount``, ``mlock``, ``sched_setaffinity``, every set*id call.

Only the native x86-64 system call table is allowed: a 32-bit call (``int 0x80``) or an x32
one gets ``ENOSYS``, so the filter cannot be bypassed through another table's numbers. On other
machines there is no filter (logged); the rest of the sandbox still applies. The program is a
few hundred classic BPF instructions (no libseccomp needed) that the kernel JIT-compiles.
Timing channels (CPU load, the page cache's speed) stay open: docs/security.md.
"""

from __future__ import annotations

import functools
import logging
import os
import platform
import struct
from dataclasses import dataclass

log = logging.getLogger("sandbox")

# linux/audit.h, linux/seccomp.h, linux/filter.h
AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
EPERM, EINVAL, ENOSYS = 1, 22, 38
BPF_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS: A = seccomp_data[k]
BPF_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
BPF_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
BPF_JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
BPF_RET_K = 0x06  # BPF_RET | BPF_K
NR_OFFSET, ARCH_OFFSET = 0, 4  # struct seccomp_data, little-endian


def arg_offset(index: int) -> int:
    """Offset of the low 32 bits of argument ``index`` in ``struct seccomp_data``: every
    argument checked here is an ``int`` or ``unsigned int`` in the kernel, which ignores the
    upper half of the register."""
    return 16 + 8 * index


#: x86-64 system calls allowed unconditionally: number and why (arch/x86/entry/syscalls/
#: syscall_64.tbl). Ordered roughly by how often runtimes make them (the filter tests in order).
ALLOWED: dict[str, tuple[int, str]] = {
    # the protocol: stdin, stdout, stderr; files in /bot, the runtime, /tmp
    "read": (0, "read stdin and files"),
    "write": (1, "write stdout/stderr and files in /tmp"),
    "close": (3, "close descriptors"),
    "lseek": (8, "seek in files (Python's I/O stack seeks at every open)"),
    "newfstatat": (262, "stat a path or descriptor (glibc's stat, fstat)"),
    "fstat": (5, "stat a descriptor"),
    "stat": (4, "stat a path (older binaries)"),
    "lstat": (6, "lstat a path (older binaries)"),
    "statx": (332, "stat a path (newer glibc, Node.js)"),
    "openat": (257, "open files (only the sandbox's own are visible)"),
    "open": (2, "open files (static binaries built against old libcs)"),
    "epoll_wait": (232, "Node.js's event loop"),
    "epoll_pwait": (281, "Node.js's event loop"),
    "epoll_pwait2": (441, "event loops with a fine timeout"),
    "epoll_ctl": (233, "Node.js's event loop"),
    "epoll_create1": (291, "Node.js's event loop"),
    "epoll_create": (213, "event loops (older libraries)"),
    "poll": (7, "wait for input"),
    "ppoll": (271, "wait for input"),
    "select": (23, "wait for input (Python's select)"),
    "pselect6": (270, "wait for input"),
    "readv": (19, "vectored reads"),
    "writev": (20, "vectored writes"),
    "pread64": (17, "positioned reads (the dynamic loader, zip imports)"),
    "pwrite64": (18, "positioned writes in /tmp"),
    "preadv": (295, "vectored positioned reads"),
    "pwritev": (296, "vectored positioned writes"),
    "sendfile": (40, "file copies (shutil.copyfile, the compiler driver)"),
    "dup": (32, "duplicate descriptors"),
    "dup2": (33, "duplicate descriptors (redirection before exec)"),
    "dup3": (292, "duplicate descriptors"),
    "pipe": (22, "pipes to own children"),
    "pipe2": (293, "pipes to own children, the compiler's passes, libuv's wake-ups"),
    "close_range": (436, "close inherited descriptors before exec"),
    "getdents64": (217, "list directories (imports)"),
    "getdents": (78, "list directories (older binaries)"),
    "access": (21, "check paths (the dynamic loader, PATH lookups)"),
    "faccessat": (269, "check paths"),
    "faccessat2": (439, "check paths (glibc >= 2.33)"),
    "readlink": (89, "resolve /proc/self/exe and symbolic links"),
    "readlinkat": (267, "resolve symbolic links"),
    "getcwd": (79, "the working directory"),
    "chdir": (80, "change directory"),
    "fchdir": (81, "change directory"),
    # files in the bot's own, size-capped tmpfs (/tmp, /dev/shm; the compiler's /out)
    "mkdir": (83, "make directories in /tmp"),
    "mkdirat": (258, "make directories in /tmp"),
    "rmdir": (84, "remove directories in /tmp"),
    "unlink": (87, "remove files in /tmp (the compiler's temporary files)"),
    "unlinkat": (263, "remove files in /tmp"),
    "rename": (82, "rename files in /tmp"),
    "renameat": (264, "rename files in /tmp"),
    "renameat2": (316, "rename files in /tmp"),
    "link": (86, "hard links in /tmp"),
    "linkat": (265, "hard links in /tmp"),
    "symlink": (88, "symbolic links in /tmp"),
    "symlinkat": (266, "symbolic links in /tmp"),
    "chmod": (90, "file modes in /tmp (the compiler marks its output executable)"),
    "fchmod": (91, "file modes in /tmp"),
    "fchmodat": (268, "file modes in /tmp"),
    "truncate": (76, "resize files in /tmp"),
    "ftruncate": (77, "resize files in /tmp, POSIX shared memory in /dev/shm"),
    "fallocate": (285, "reserve space in /tmp (charged to the bot's memory group)"),
    "fsync": (74, "flush a file in /tmp (a no-op on tmpfs)"),
    "fdatasync": (75, "flush a file in /tmp (a no-op on tmpfs)"),
    "umask": (95, "the file creation mask"),
    "utimensat": (280, "file times in /tmp"),
    "statfs": (137, "file system sizes (glibc's shm_open looks for /dev/shm)"),
    "fstatfs": (138, "file system sizes"),
    # memory (the bot's own address space; its group counts every page)
    "mmap": (9, "memory and file mappings"),
    "munmap": (11, "memory"),
    "mprotect": (10, "memory protection (the loader, JIT compilers)"),
    "mremap": (25, "growing allocations (realloc)"),
    "brk": (12, "the heap"),
    "msync": (26, "flush shared mappings of own files"),
    "mbind": (237, "NUMA policy of own memory (V8)"),
    "get_mempolicy": (239, "NUMA policy of own memory"),
    "set_mempolicy": (238, "NUMA policy of own memory"),
    "membarrier": (324, "memory barriers across own threads (JIT compilers)"),
    "pkey_alloc": (330, "memory protection keys (V8 probes them)"),
    "pkey_free": (331, "memory protection keys"),
    "pkey_mprotect": (329, "memory protection keys"),
    # processes and threads (the pid namespace holds only the bot's; the cgroup counts them)
    "clone": (56, "threads and child processes (glibc falls back to it from clone3)"),
    "fork": (57, "child processes"),
    "vfork": (58, "child processes (posix_spawn, the compiler driver)"),
    "execve": (59, "start a program (prlimit starts the bot; the compiler's passes)"),
    "exit": (60, "end a thread"),
    "exit_group": (231, "end the process"),
    "wait4": (61, "reap own children"),
    "waitid": (247, "reap own children"),
    "getpid": (39, "identity"),
    "getppid": (110, "identity"),
    "gettid": (186, "identity"),
    "getuid": (102, "identity"),
    "geteuid": (107, "identity"),
    "getgid": (104, "identity"),
    "getegid": (108, "identity"),
    "getresuid": (118, "identity"),
    "getresgid": (120, "identity"),
    "getgroups": (115, "identity"),
    "getpgrp": (111, "process groups of own processes"),
    "getpgid": (121, "process groups of own processes"),
    "setpgid": (109, "process groups of own processes"),
    "getsid": (124, "sessions"),
    "setsid": (112, "sessions (a child that detaches)"),
    "set_tid_address": (218, "thread start-up (glibc)"),
    "set_robust_list": (273, "thread start-up (glibc)"),
    "rseq": (334, "restartable sequences (glibc >= 2.35 registers every thread)"),
    "arch_prctl": (158, "thread-local storage (glibc start-up)"),
    "getrlimit": (97, "read own limits"),
    "setrlimit": (160, "lower own limits"),
    "prlimit64": (302, "set the bot's limits (prlimit) and read them"),
    "getrusage": (98, "own CPU time"),
    "times": (100, "own CPU time"),
    "sched_yield": (24, "spin locks (V8, OpenBLAS)"),
    "sched_getaffinity": (204, "CPU count (os.cpu_count, libuv, OpenBLAS)"),
    "sched_getparam": (143, "scheduling queries (pthread attributes)"),
    "sched_getscheduler": (145, "scheduling queries (pthread attributes)"),
    "sched_get_priority_max": (146, "scheduling queries"),
    "sched_get_priority_min": (147, "scheduling queries"),
    "getpriority": (140, "scheduling queries"),
    "capget": (125, "prlimit (libcap-ng) reads the capabilities it does not have"),
    "uname": (63, "kernel version (runtimes check features)"),
    "getcpu": (309, "which CPU runs the thread (allocators)"),
    # time
    "clock_gettime": (228, "clocks (usually answered by the vDSO)"),
    "clock_getres": (229, "clocks"),
    "gettimeofday": (96, "clocks"),
    "time": (201, "clocks"),
    "clock_nanosleep": (230, "sleep"),
    "nanosleep": (35, "sleep"),
    "timer_create": (222, "POSIX timers of own processes"),
    "timer_settime": (223, "POSIX timers"),
    "timer_gettime": (224, "POSIX timers"),
    "timer_getoverrun": (225, "POSIX timers"),
    "timer_delete": (226, "POSIX timers"),
    "timerfd_create": (283, "timers for event loops"),
    "timerfd_settime": (286, "timers for event loops"),
    "timerfd_gettime": (287, "timers for event loops"),
    "getitimer": (36, "interval timers"),
    "setitimer": (38, "interval timers (signal.setitimer)"),
    "alarm": (37, "alarm()"),
    # signals (own processes only)
    "rt_sigaction": (13, "signal handlers"),
    "rt_sigprocmask": (14, "signal masks"),
    "rt_sigreturn": (15, "return from a signal handler"),
    "rt_sigsuspend": (130, "wait for a signal"),
    "rt_sigpending": (127, "pending signals"),
    "rt_sigtimedwait": (128, "wait for a signal"),
    "sigaltstack": (131, "alternate signal stacks (Python's faulthandler, V8)"),
    "signalfd": (282, "signals as descriptors"),
    "signalfd4": (289, "signals as descriptors"),
    "pause": (34, "wait for a signal"),
    "restart_syscall": (219, "the kernel restarts an interrupted call"),
    "eventfd": (284, "wake-ups (libuv)"),
    "eventfd2": (290, "wake-ups (libuv)"),
    # sockets: only AF_UNIX ones can be made (ARGUMENT_CHECKS), and only within the sandbox
    "bind": (49, "Unix sockets between own processes"),
    "listen": (50, "Unix sockets between own processes"),
    "accept": (43, "Unix sockets between own processes"),
    "accept4": (288, "Unix sockets between own processes"),
    "connect": (42, "Unix sockets between own processes"),
    "getsockname": (51, "Unix sockets"),
    "getpeername": (52, "Unix sockets"),
    "sendto": (44, "Unix sockets"),
    "recvfrom": (45, "Unix sockets"),
    "sendmsg": (46, "Unix sockets (multiprocessing passes descriptors)"),
    "recvmsg": (47, "Unix sockets"),
    "sendmmsg": (307, "Unix sockets"),
    "recvmmsg": (299, "Unix sockets"),
    "shutdown": (48, "Unix sockets"),
    "setsockopt": (54, "Unix sockets"),
    "getsockopt": (55, "Unix sockets"),
    "getrandom": (318, "randomness (hash seeds, random, crypto)"),
}


@dataclass(frozen=True)
class ArgumentCheck:
    """A dual-use call: allowed only when argument ``arg`` (its low 32 bits) is in ``values``
    (or, with ``mask``, has every bit of ``mask`` set; with ``refused``, is none of those);
    otherwise ``errno``."""

    nr: int
    arg: int
    values: tuple[int, ...] = ()
    mask: int = 0
    refused: tuple[int, ...] = ()  # instead of values: everything but these
    errno: int = EPERM
    reason: str = ""


#: fcntl commands allowed: descriptor flags, status flags, pipe sizes, seals. Not the record
#: locks (F_SETLK 6, F_SETLKW 7, F_GETLK 5, F_OFD_* 36-38), leases (1024-1025) or directory
#: notifications (F_NOTIFY 1026): every sandbox sees the same /dev/null and runtime files.
FCNTL_COMMANDS = {
    "F_DUPFD": 0, "F_GETFD": 1, "F_SETFD": 2, "F_GETFL": 3, "F_SETFL": 4, "F_GETOWN": 9,
    "F_GETSIG": 11, "F_GETOWN_EX": 16, "F_DUPFD_CLOEXEC": 1030, "F_SETPIPE_SZ": 1031,
    "F_GETPIPE_SZ": 1032, "F_ADD_SEALS": 1033, "F_GET_SEALS": 1034,
}  # fmt: skip
#: the ioctls runtimes make on their standard streams: "is it a terminal?", non-blocking mode,
#: close-on-exec, bytes waiting
IOCTL_REQUESTS = {
    "TCGETS": 0x5401, "TIOCGPGRP": 0x540F, "TIOCGWINSZ": 0x5413, "FIONREAD": 0x541B,
    "FIONBIO": 0x5421, "FIONCLEX": 0x5450, "FIOCLEX": 0x5451,
}  # fmt: skip
#: prctl options: thread names, death signal, dumpable, capability and secure-bit queries
#: (prlimit), no_new_privs, transparent huge pages, timer slack, anonymous mapping names
PRCTL_OPTIONS = {
    "PR_SET_PDEATHSIG": 1, "PR_GET_PDEATHSIG": 2, "PR_GET_DUMPABLE": 3, "PR_SET_DUMPABLE": 4,
    "PR_SET_NAME": 15, "PR_GET_NAME": 16, "PR_CAPBSET_READ": 23, "PR_GET_SECUREBITS": 27,
    "PR_SET_TIMERSLACK": 29, "PR_GET_TIMERSLACK": 30, "PR_SET_NO_NEW_PRIVS": 38,
    "PR_GET_NO_NEW_PRIVS": 39, "PR_SET_THP_DISABLE": 41, "PR_GET_THP_DISABLE": 42,
    "PR_SET_VMA": 0x53564D41,
}  # fmt: skip
#: madvise advice: not MADV_MERGEABLE/UNMERGEABLE (12, 13: same-page merging across
#: processes, a known channel), MADV_COLD/PAGEOUT (20, 21: reclaim), MADV_COLLAPSE (25),
#: MADV_HWPOISON/SOFT_OFFLINE (100, 101)
MADVISE_ADVICE = (0, 1, 2, 3, 4, 8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 22, 23, 24)
AF_UNIX = 1
FUTEX_PRIVATE_FLAG = 128
SIGKILL = 9

ARGUMENT_CHECKS: dict[str, ArgumentCheck] = {
    "futex": ArgumentCheck(
        202, 1, mask=FUTEX_PRIVATE_FLAG, errno=EINVAL,
        reason="thread synchronisation; private futexes only (a shared one on a runtime file's "
        "page is keyed by the inode every sandbox maps)",
    ),
    "fcntl": ArgumentCheck(
        72, 1, tuple(FCNTL_COMMANDS.values()),
        reason="descriptor flags (every runtime); no locks, leases or notifications",
    ),
    "ioctl": ArgumentCheck(16, 1, tuple(IOCTL_REQUESTS.values()), reason="isatty and FIONBIO"),
    "prctl": ArgumentCheck(157, 0, tuple(PRCTL_OPTIONS.values()), reason="thread names..."),
    "madvise": ArgumentCheck(
        28, 2, MADVISE_ADVICE, reason="allocators return memory; no merging or reclaim"
    ),
    "socket": ArgumentCheck(
        41, 0, (AF_UNIX,), reason="AF_UNIX only: no inet socket (kernel memory outside the "
        "group), no netlink"
    ),
    "socketpair": ArgumentCheck(53, 0, (AF_UNIX,), reason="AF_UNIX only (multiprocessing)"),
    # signals to own processes (the pid namespace holds nothing else), but never SIGKILL: a
    # SIGKILL is then always from outside the bot, the kernel's or the platform's, never
    # the bot's own alibi (sandbox.agent blames the bot only on its group's OOM counter)
    **{
        name: ArgumentCheck(nr, arg, refused=(SIGKILL,), reason="signal own processes")
        for name, nr, arg in (
            ("kill", 62, 1), ("tkill", 200, 1), ("tgkill", 234, 2),
            ("rt_sigqueueinfo", 129, 1), ("rt_tgsigqueueinfo", 297, 2),
        )
    },
}  # fmt: skip

#: refused with ENOSYS like every unlisted call, named here for the tests and the docs
NOTABLY_REFUSED = {
    "flock": 73, "sysinfo": 99, "mincore": 27, "clone3": 435, "preadv2": 327,
    "cachestat": 451, "fadvise64": 221, "readahead": 187, "shmget": 29, "memfd_create": 319,
    "ptrace": 101, "io_uring_setup": 425, "bpf": 321, "perf_event_open": 298, "keyctl": 250,
    "inotify_init1": 294, "userfaultfd": 323, "unshare": 272, "futex_waitv": 449,
}  # fmt: skip


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _ret(value: int) -> bytes:
    return _insn(BPF_RET_K, 0, 0, value)


def _checked_call(check: ArgumentCheck) -> list[bytes]:
    """``if nr == check.nr: <argument test>`` (jumps over it, with the number still loaded,
    otherwise). The block is at most a few dozen instructions: every jump fits BPF's 8 bits.
    """
    body = [_insn(BPF_LD_W_ABS, 0, 0, arg_offset(check.arg))]
    if check.refused:
        for value in check.refused:
            body.append(_insn(BPF_JEQ_K, 0, 1, value))
            body.append(_ret(SECCOMP_RET_ERRNO | check.errno))
        body.append(_ret(SECCOMP_RET_ALLOW))
        assert len(body) < 256
        return [_insn(BPF_JEQ_K, 0, len(body), check.nr), *body]
    if check.mask:
        body.append(_insn(BPF_JSET_K, 0, 1, check.mask))  # all of mask set: allow
        body.append(_ret(SECCOMP_RET_ALLOW))
    else:
        for value in check.values:
            body.append(_insn(BPF_JEQ_K, 0, 1, value))
            body.append(_ret(SECCOMP_RET_ALLOW))
    body.append(_ret(SECCOMP_RET_ERRNO | check.errno))  # every path of the body returns
    assert len(body) < 256
    return [_insn(BPF_JEQ_K, 0, len(body), check.nr), *body]


def build_x86_64() -> bytes:
    """The filter program (an array of ``struct sock_filter``) for x86-64.

    Layout: check the architecture and the x32 bit (``ENOSYS``), load the call's number, then
    per allowed call ``if nr == N: return ALLOW`` (two instructions, so no jump is longer than
    one), per checked call its argument test, and finally ``return ENOSYS``.
    """
    program = [
        _insn(BPF_LD_W_ABS, 0, 0, ARCH_OFFSET),
        _insn(BPF_JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        _ret(SECCOMP_RET_ERRNO | ENOSYS),
        _insn(BPF_LD_W_ABS, 0, 0, NR_OFFSET),
        _insn(BPF_JGE_K, 0, 1, X32_SYSCALL_BIT),
        _ret(SECCOMP_RET_ERRNO | ENOSYS),
    ]
    checked = list(ARGUMENT_CHECKS.values())
    for check in checked[:1]:  # futex is among the most frequent calls: test it early
        program += _checked_call(check)
    for nr, _reason in ALLOWED.values():
        program.append(_insn(BPF_JEQ_K, 0, 1, nr))
        program.append(_ret(SECCOMP_RET_ALLOW))
    for check in checked[1:]:
        program += _checked_call(check)
    program.append(_ret(SECCOMP_RET_ERRNO | ENOSYS))
    assert len(program) < 4096  # BPF_MAXINSNS
    return b"".join(program)


@functools.cache
def program() -> bytes | None:
    """This machine's filter, or None where there is none (not x86-64; logged once)."""
    if platform.machine() in ("x86_64", "AMD64", "amd64"):
        return build_x86_64()
    log.warning(
        "no seccomp filter for %s: bots run without it (namespaces and rlimits still apply)",
        platform.machine(),
    )
    return None


def program_fd() -> int | None:
    """A fresh pipe holding the filter, for ``bwrap --seccomp FD`` (close it after the spawn).

    bubblewrap reads the fd to its end, so every sandbox needs its own. The program (a few
    kilobytes) fits a pipe's buffer, so the write never blocks.
    """
    data = program()
    if data is None:
        return None
    read_end, write_end = os.pipe2(os.O_CLOEXEC)
    try:
        os.write(write_end, data)
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    return read_end
