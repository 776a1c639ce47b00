"""The bubblewrap command line that confines one bot.

Threat model
------------
A bot is arbitrary code written by a stranger who wants to win, cheat, or break things. It must
not be able to: reach the network (including loopback and the worker's own services); read
anything but its own files and the runtime it runs on (not the project tree, the database, media,
other bots, ``/etc/shadow``, the worker's environment and its secrets); write anywhere but a small
private tmpfs; see or signal other processes; outlive its match; or exhaust the worker's memory,
processes, file descriptors, disk or time. bubblewrap is only as safe as its arguments, so this
module builds them in one place:

* ``--unshare-all`` (user, pid, net, ipc, uts, cgroup namespaces) and never ``--share-net``: the
  bot's network namespace holds only its own loopback interface, nothing routes out of it, and
  the host's loopback services are unreachable. ``--disable-userns``: no nested user namespaces.
* A fresh, empty root (made read-only at the end) holding only read-only binds of the runtime's
  files — the interpreter, its standard library directories, and the directories of the shared
  libraries those load (found with the loader's ``--list`` on trusted system files; see
  :func:`runtime_mounts`; installed packages inside those, such as a ``site-packages`` in the
  standard library directory, are hidden under an empty read-only tmpfs) — plus ``/bot`` (the
  staged bot, read-only), a size-capped ``/tmp`` tmpfs (the only writable place besides
  ``/dev/shm``), ``--proc`` (the sandbox's own processes), a minimal ``--dev`` made read-only
  (bubblewrap makes it an *uncapped* tmpfs the bot could fill: host memory) with a size-capped
  tmpfs on ``/dev/shm`` (POSIX semaphores, for ``multiprocessing``) and an empty one over
  ``/dev/pts``: no pseudo-terminals, which the kernel counts and caps machine-wide.
* ``--clearenv`` then only ``PATH``, ``HOME``, ``LANG``, ``TMPDIR`` and the numeric libraries'
  one-thread settings (``OPENBLAS_NUM_THREADS=1``...): no secrets, no DB URL.
* Libraries offered to bots (the curated Python set) are bound read-only at fixed sandbox paths
  (``/opt/arena/...``), not at their host paths, which would show the project's folders.
* ``--new-session`` (no terminal injection), ``--die-with-parent`` (the bot dies with the worker;
  the kernel then kills everything in its pid namespace; note that the "parent" is the *thread*
  that started bubblewrap, so start bots from a long-lived thread), no capabilities inside.
* ``--seccomp``: a default-deny allowlist (:mod:`sandbox.seccomp`) of the system calls the
  runtimes need, with argument checks on dual-use ones: no locks on the files every sandbox
  shares, no machine-wide figures (``sysinfo``), no page-cache probes, no inet sockets, no
  shared futexes, no System V IPC or ``memfd_create``, no ``ptrace`` (the bot's uid owns
  bubblewrap's init too); bubblewrap's init runs under it as well. 32-bit and x32 system calls
  cannot bypass it.
* Resource limits are set *inside* the namespaces by ``prlimit`` just before the bot's program
  starts, so bubblewrap itself is unaffected and ``RLIMIT_NPROC`` is counted per user namespace:
  one bot's fork bomb cannot starve another. Root ignores ``RLIMIT_NPROC``, so a root worker
  starts bubblewrap as an unprivileged slot uid (:mod:`sandbox.slots`).

* ``/proc`` entries that count things machine-wide (``meminfo``, ``loadavg``, ``stat``,
  ``/proc/sys/fs/file-nr``...) are covered by constant files (:mod:`sandbox.procmask`): through
  them two partners could talk.
* The agent puts every process of the bot into one control group (:mod:`sandbox.cgroups`): one
  memory limit for all of them (tmpfs and kernel memory included), a pids limit, freezing
  between its turns, and a teardown that waits until the group is empty.

Not covered (see docs/security.md): kernel vulnerabilities in what the filter allows; the
channels that remain between the bots of a match (page cache, CPU caches, global inode
numbers of pipes and sockets); the bot can read the host paths of its own mounts
(``/proc/self/mountinfo``, bubblewrap's argv in ``/proc/1/cmdline``), which name the staging
directory and the worker's pid but give no access. Without a control group (``auto`` policy on a
machine without one) memory is capped per *process* only and a bot may run between its turns.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

from . import procmask, pysci, seccomp
from .elf import NotElf, elf_interpreter
from .limits import Limits
from .runtimes import BOT_MOUNT, ResolvedRuntime

PRLIMIT = "/usr/bin/prlimit"
SETPRIV = "/usr/bin/setpriv"
SANDBOX_ENV = {
    "PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "TMPDIR": "/tmp",
    **pysci.THREAD_ENV,  # numeric libraries' thread pools: one thread
}  # fmt: skip
OUTPUT_MOUNT = "/out"  # a compiler's writable output folder (sandbox.compile)
_MERGED_USR_LINKS = ("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")


class SandboxUnavailable(RuntimeError):
    """bubblewrap cannot confine bots on this machine; untrusted bots must not run."""


def bwrap_executable() -> str:
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is not installed; install it (apt-get install bubblewrap) or run "
            "only your own bots with --trusted"
        )
    if not os.path.exists(PRLIMIT):
        raise SandboxUnavailable(f"{PRLIMIT} (util-linux) is missing; it applies the rlimits")
    return path


@functools.cache
def check_bwrap(uid: int | None) -> None:
    """Try a throw-away sandbox as ``uid`` once per process; raise a clear error if it fails."""
    argv = [
        bwrap_executable(), "--unshare-all", "--unshare-user", "--disable-userns",
        "--die-with-parent", "--ro-bind", "/", "/", "--", PRLIMIT, "--nproc=4", "--", "true",
    ]  # fmt: skip
    try:
        done = subprocess.run(as_user_argv(uid) + argv, capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise SandboxUnavailable(f"cannot run bubblewrap: {err}") from None
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip()
        raise SandboxUnavailable(
            f"bubblewrap does not work here ({why or f'exit {done.returncode}'}). It needs "
            "unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
            "user.max_user_namespaces > 0; on Ubuntu also an AppArmor profile for bwrap)"
        )


def as_user_argv(uid: int | None) -> list[str]:
    """The prefix that runs a command as ``uid`` (and its group, no supplementary groups).

    ``setpriv`` (util-linux) changes the ids and then executes the command in the same process,
    so bubblewrap keeps the worker as its parent (``--die-with-parent``). Letting ``Popen``
    switch the uid instead would make it fork the whole worker, copying its page tables, where
    it can otherwise use vfork: 5-15 ms more per bot start in a 100-300 MB Celery worker.
    """
    if uid is None:
        return []
    if not os.path.exists(SETPRIV):
        raise SandboxUnavailable(f"{SETPRIV} (util-linux) is missing; it drops to the bot's uid")
    return [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]


@functools.cache
def shared_libraries(files: tuple[str, ...]) -> tuple[str, ...]:
    """Shared libraries (and loaders) the given *trusted* ELF files need.

    Asks each file's own loader (``ld.so --list``, what ``ldd`` does) in parallel: one ``ldd``
    over Python's ~50 extension modules takes 400 ms, this takes 50 ms.
    """
    jobs = []
    for path in files:
        try:
            loader = elf_interpreter(path) or _default_loader()
        except (NotElf, OSError):
            continue
        jobs.append(
            subprocess.Popen(
                [loader, "--list", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
        )
    found: set[str] = set()
    for job in jobs:
        out = job.communicate(timeout=30)[0].decode(errors="replace")
        for line in out.splitlines():
            line = line.strip()
            if "=>" in line:
                line = line.split("=>", 1)[1].strip()
            path = line.split(" (", 1)[0].strip()
            if path.startswith("/") and os.path.exists(path):
                found.add(path)
    return tuple(sorted(found))


@functools.cache
def _default_loader() -> str:
    """The system's loader (the one ``prlimit`` uses), for shared libraries without PT_INTERP."""
    loader = elf_interpreter(PRLIMIT)
    if loader is None:
        raise SandboxUnavailable(f"{PRLIMIT} is static; cannot find the dynamic loader")
    return loader


def _elf_files(runtime: ResolvedRuntime) -> tuple[str, ...]:
    files = [PRLIMIT, *runtime.programs]
    if runtime.interpreter:
        files.append(runtime.interpreter)
    for directory in runtime.library_dirs:
        for path in Path(directory).iterdir():  # extension modules (lib-dynload)
            if path.suffix == ".so" and path.is_file():
                files.append(str(path))
    for host, _inside in runtime.mounts:  # extension modules of offered libraries (numpy)
        files += (str(p) for p in sorted(Path(host).rglob("*.so")) if p.is_file())
    return tuple(files)


@functools.cache
def runtime_mounts(runtime: ResolvedRuntime, *, whole_library_dirs: bool = True) -> tuple[str, ...]:
    """The bwrap arguments that make ``runtime`` (and prlimit) runnable; cached per runtime.

    Shared libraries are bound by directory (``/usr/lib/x86_64-linux-gnu``) by default: each
    extra bind costs bubblewrap ~75 µs, per-file binds of Python's ~50 libraries add ~4 ms to
    every start, and those directories hold only public, read-only system libraries (nothing a
    bot with ``ctypes`` could not reach anyway). ``whole_library_dirs=False`` binds file by file.
    """
    links: dict[str, str] = {}
    files: set[str] = set()
    for top in _MERGED_USR_LINKS:  # /lib -> usr/lib on merged-/usr systems
        if os.path.islink(top):
            links[top] = os.readlink(top)
    programs = [PRLIMIT, *runtime.programs] + ([runtime.interpreter] if runtime.interpreter else [])
    offered = tuple(os.path.realpath(host) + "/" for host, _inside in runtime.mounts)
    for path in shared_libraries(_elf_files(runtime)):
        if not os.path.realpath(path).startswith(offered):  # else visible in its mount
            _resolve_into(path, links, files)
    if whole_library_dirs:
        files = {os.path.dirname(f) for f in files}
    for path in programs:
        _resolve_into(path, links, files)
    binds = _outermost(tuple(files | set(runtime.library_dirs) | set(runtime.data_dirs)))
    args: list[str] = []
    for link, target in sorted(links.items(), key=lambda kv: kv[0].count("/")):
        if not any(link.startswith(b + "/") for b in binds):  # else it is visible already
            args += ["--symlink", target, link]
    for path in binds:
        args += ["--ro-bind", path, path]
    for path in runtime.hidden_dirs:  # an empty read-only tmpfs over installed packages
        args += ["--size", "4096", "--tmpfs", path, "--remount-ro", path]
    for host, inside in runtime.mounts:
        args += ["--ro-bind", host, inside]
    return tuple(args)


def _outermost(paths: tuple[str, ...]) -> list[str]:
    """Drop paths inside another path of the list (lib-dynload inside the stdlib)."""
    return [p for p in sorted(set(paths)) if not any(p.startswith(o + "/") for o in paths)]


def _resolve_into(path: str, links: dict[str, str], binds: set[str]) -> None:
    """Bind the real file behind ``path``; recreate each file-level symlink met on the way."""
    for _ in range(16):
        real_dir = os.path.realpath(os.path.dirname(path))
        path = os.path.join(real_dir, os.path.basename(path))
        if not os.path.islink(path):
            binds.add(path)
            return
        target = os.readlink(path)
        links[path] = target
        path = os.path.normpath(os.path.join(real_dir, target))
    raise SandboxUnavailable(f"too many symbolic links resolving {path}")


def rlimit_argv(runtime: ResolvedRuntime, limits: Limits, *, nproc: bool = True) -> list[str]:
    """``prlimit`` options for the bot (``nproc=False`` outside a user namespace, where the
    count would include every process of the user)."""
    cpu = limits.cpu_seconds
    argv = [
        PRLIMIT,
        f"--as={runtime.address_space_bytes(limits)}",
        f"--cpu={cpu}:{cpu + 1}",
        f"--nofile={limits.max_open_files}",
        f"--fsize={limits.max_file_size_bytes}",
        "--core=0",
    ]
    if nproc:  # + bubblewrap's init (pid 1 of the namespace) counts too
        argv.append(f"--nproc={runtime.max_processes(limits) + 1}")
    return [*argv, "--"]


def bwrap_argv(
    runtime: ResolvedRuntime,
    bot_root: Path,
    command: list[str],
    limits: Limits,
    seccomp_fd: int | None = None,
    *,
    output_dir: Path | None = None,
) -> list[str]:
    """The full argv: bubblewrap, then prlimit, then the bot's ``command``.

    ``seccomp_fd`` is a :func:`sandbox.seccomp.program_fd` the child must inherit (``pass_fds``).
    ``output_dir`` (a compiler's) is bound writable at :data:`OUTPUT_MOUNT`: the only writable
    place besides the size-capped tmpfs, an empty folder of its own, read once it has exited.
    """
    tmpfs_size = str(limits.tmpfs_size_bytes)
    return [
        bwrap_executable(),
        *(["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []),
        "--unshare-all",
        "--unshare-user",  # --unshare-all only *tries*; we require it
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        *[arg for key, value in SANDBOX_ENV.items() for arg in ("--setenv", key, value)],
        "--hostname", "bot",
        # first: each bind makes bubblewrap parse the mount table, longer with every mount
        "--proc", "/proc",
        *procmask.bwrap_args(limits.memory_bytes),  # machine-wide counters: partners' channels
        *runtime_mounts(runtime),
        "--ro-bind", str(bot_root), BOT_MOUNT,
        *(["--bind", str(output_dir), OUTPUT_MOUNT] if output_dir is not None else []),
        "--dev", "/dev",
        # --dev is an uncapped tmpfs (and /dev/shm a directory in it) writable by the bot:
        # capped tmpfs for /tmp and /dev/shm (POSIX semaphores: multiprocessing), the rest
        # read-only (device nodes stay usable)
        "--perms", "1777", "--size", tmpfs_size, "--tmpfs", "/dev/shm",
        # --dev's devpts is a private instance, but pseudo-terminals are counted and capped
        # machine-wide (kernel.pty.max): an empty read-only tmpfs hides it, so /dev/ptmx (a
        # link to pts/ptmx) leads nowhere and a bot can open no terminal
        "--size", "4096", "--tmpfs", "/dev/pts", "--remount-ro", "/dev/pts",
        "--remount-ro", "/dev",
        "--perms", "1777", "--size", tmpfs_size, "--tmpfs", "/tmp",
        "--remount-ro", "/",
        "--chdir", BOT_MOUNT,
        "--",
        *rlimit_argv(runtime, limits),
        *command,
    ]  # fmt: skip


def canary(runtime: ResolvedRuntime, bot_root: Path, limits: Limits, uid: int | None) -> str | None:
    """Run a trusted no-op in the same sandbox; return bubblewrap's complaint if it fails.

    Used when a bot dies before saying ``ready``: if the canary fails too, the sandbox is broken
    (the platform's fault); if it works, the bot failed. The bot cannot influence the canary,
    so it cannot blame the platform to get its matches aborted.
    """
    command = [runtime.interpreter or PRLIMIT, "--version"]
    try:
        seccomp_fd = seccomp.program_fd()
    except OSError as err:
        return f"cannot pass the seccomp filter: {err}"
    try:
        done = subprocess.run(
            as_user_argv(uid) + bwrap_argv(runtime, bot_root, command, limits, seccomp_fd),
            capture_output=True,
            timeout=10,
            env={},
            pass_fds=() if seccomp_fd is None else (seccomp_fd,),
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"cannot run bubblewrap: {err}"
    finally:
        if seccomp_fd is not None:
            os.close(seccomp_fd)
    if done.returncode != 0:
        return done.stderr.decode(errors="replace").strip()[:500] or f"exit {done.returncode}"
    return None
