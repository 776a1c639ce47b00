"""The seccomp filter bubblewrap installs on every bot (``--seccomp FD``), built here in BPF.

Namespaces hide files, processes and the network, but a few kernel objects are not namespaced or
not accounted, and a bot could use them to hurt the worker or to talk to the other bots of its
match. The filter refuses, with ``EPERM``:

* memory outside every rlimit: System V shared memory, message queues and semaphores
  (``shmget``/``msgget``/``semget``: a segment stays allocated after ``shmdt``, not counted
  in ``RLIMIT_AS``), and ``memfd_create``/``memfd_secret`` (RAM-backed files outside the
  size-capped tmpfs);
* channels between bots running at the same time (partners could share their hands): whole-file
  locks (``flock``) and lock queries (``fcntl`` ``F_GETLK``/``F_OFD_GETLK``) on the read-only
  runtime files every sandbox shares, access notifications on them (``inotify``,
  ``fanotify``, ``fcntl`` ``F_NOTIFY``), and the kernel keyrings (``add_key``,
  ``request_key``, ``keyctl``: a kernel store, by uid, outside the mount namespace);
* kernel attack surface a card bot never needs: ``io_uring``, ``bpf``, ``perf_event_open``,
  ``userfaultfd``;
* ``ptrace`` and ``process_vm_readv``/``writev``: the bot's uid also owns bubblewrap's init
  (pid 1 of the sandbox), which holds the event fd through which bubblewrap outside learns the
  bot's exit status; a bot must not take it over.

Only the native x86-64 system call table is allowed: a 32-bit call (``int 0x80``, which a
64-bit process can make) or an x32 one gets ``ENOSYS``, so the filter cannot be bypassed
through another table's numbers. On other machines there is no filter (logged); the rest of
the sandbox still applies.

The program is tiny classic BPF, so libseccomp is not needed, and the kernel runs it (JIT
compiled) in nanoseconds per system call. Timing channels (CPU load, page cache) stay open.
"""

from __future__ import annotations

import functools
import logging
import os
import platform
import struct

log = logging.getLogger("sandbox")

# linux/audit.h, linux/seccomp.h, linux/filter.h
AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
EPERM, ENOSYS = 1, 38
BPF_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS: A = seccomp_data[k]
BPF_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
BPF_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
BPF_RET_K = 0x06  # BPF_RET | BPF_K
NR_OFFSET, ARCH_OFFSET, ARG1_LOW_OFFSET = 0, 4, 24  # struct seccomp_data, little-endian

#: x86-64 system call numbers refused outright (arch/x86/entry/syscalls/syscall_64.tbl)
DENIED_X86_64 = {
    "shmget": 29,
    "semget": 64,
    "msgget": 68,
    "flock": 73,
    "ptrace": 101,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "inotify_init": 253,
    "inotify_init1": 294,
    "perf_event_open": 298,
    "fanotify_init": 300,
    "memfd_create": 319,
    "bpf": 321,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "memfd_secret": 447,
}
FCNTL_X86_64 = 72
#: fcntl commands refused (the lock queries and directory notifications; setting locks is fine:
#: nobody can hold a conflicting write lock on the read-only shared files)
DENIED_FCNTL = {"F_GETLK": 5, "F_NOTIFY": 1026, "F_OFD_GETLK": 36}


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k & 0xFFFFFFFF)


def build_x86_64() -> bytes:
    """The filter program (an array of ``struct sock_filter``) for x86-64."""
    denied = sorted(DENIED_X86_64.values())
    fcntl_cmds = sorted(DENIED_FCNTL.values())
    # Layout, with jumps relative to the next instruction:
    #   0  A = arch
    #   1  if A != x86-64 goto ENOSYS
    #   2  A = nr
    #   3  if A >= x32 bit goto ENOSYS
    #   4.. if A == denied[i] goto EPERM               (one per denied call)
    #   f  if A != fcntl goto ALLOW
    #   .  A = args[1] (low 32 bits: the command)
    #   .. if A == cmd[j] goto EPERM                   (one per denied command)
    #      ALLOW / EPERM / ENOSYS
    n_denied, n_cmds = len(denied), len(fcntl_cmds)
    allow = 4 + n_denied + 2 + n_cmds  # index of the ALLOW return
    eperm, enosys = allow + 1, allow + 2
    program = [
        _insn(BPF_LD_W_ABS, 0, 0, ARCH_OFFSET),
        _insn(BPF_JEQ_K, 0, enosys - 2, AUDIT_ARCH_X86_64),
        _insn(BPF_LD_W_ABS, 0, 0, NR_OFFSET),
        _insn(BPF_JGE_K, enosys - 4, 0, X32_SYSCALL_BIT),
    ]
    for i, nr in enumerate(denied):
        here = 4 + i
        program.append(_insn(BPF_JEQ_K, eperm - here - 1, 0, nr))
    here = 4 + n_denied
    program.append(_insn(BPF_JEQ_K, 0, allow - here - 1, FCNTL_X86_64))
    program.append(_insn(BPF_LD_W_ABS, 0, 0, ARG1_LOW_OFFSET))
    for j, cmd in enumerate(fcntl_cmds):
        here = 4 + n_denied + 2 + j
        program.append(_insn(BPF_JEQ_K, eperm - here - 1, 0, cmd))
    program += [
        _insn(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW),
        _insn(BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM),
        _insn(BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS),
    ]
    assert len(program) == enosys + 1
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

    bubblewrap reads the fd to its end, so every sandbox needs its own; a pipe costs a few
    microseconds and the program (~200 bytes) fits its buffer, so the write never blocks.
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
