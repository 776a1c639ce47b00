"""Compile a C++ bot's sources into a static executable, in the sandbox.

A ``cpp`` package holds sources; what plays is the executable built from them with one fixed
compiler and set of flags (:data:`FLAGS`: ``g++ -O2 -std=c++20 -static``). The build runs under
the same bubblewrap confinement as a bot (no network, seccomp, a uid slot, a control group where
there is one), with the compiler's own files bound read-only: its programs and the shared
libraries they load, the system headers (``/usr/include``, which holds Debian's
``nlohmann-json3-dev``), GCC's folder and the static C library. A source that ``#include``\\s
any other host file finds nothing there. Limits (:class:`CompileLimits`): wall-clock and CPU
time, memory for all the compiler's processes together, the size of every file it writes (the
executable) and of its ``/tmp``, and the messages kept.

**Static linking** (decided here, documented in docs/runtimes.md): the executable needs no
shared library at run time, so it runs exactly like a ``native`` upload, with nothing bound for
it, and it behaves the same on every worker whatever that worker's libraries are.

The platform compiles once per source package and stores the executable (content-addressed) with
the version; the ``arena`` command keeps built executables in a local cache keyed by a hash of
the sources and the toolchain (:func:`built`), so the same sources never compile twice.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from . import cgroups, seccomp
from .agent import _Resources
from .bwrap import (
    OUTPUT_MOUNT,
    SandboxUnavailable,
    as_user_argv,
    bwrap_argv,
    check_bwrap,
)
from .elf import NotElf, elf_interpreter
from .limits import KiB, Limits, MiB
from .package import BotPackage, BotPackageError, load_bot, staging_base
from .process import BotProcess, Closed, LineTooLong, OutputLimit, Timeout
from .runtimes import BOT_MOUNT, CPP, RUNTIMES, ResolvedRuntime, RuntimeUnavailable
from .slots import NoFreeSlot, acquire_slot, uid_pool

COMPILER = "g++"
FLAGS = ("-O2", "-std=c++20", "-static", "-pipe", "-fmax-errors=20", "-fdiagnostics-color=never")
BINARY = "bot"  # the executable's name, in the build folder and in the staged package
JSON_VERSION_HEADERS = (  # where nlohmann/json defines its version (3.11 moved it)
    "/usr/include/nlohmann/detail/abi_macros.hpp",
    "/usr/include/nlohmann/json.hpp",
)


class CompileError(BotPackageError):
    """The sources did not build. ``reason`` is short and quotes nothing of the bot (it may be
    shown to anyone); ``log`` holds the compiler's messages, for the bot's owner only."""

    def __init__(self, reason: str, log: str = "") -> None:
        super().__init__(f"{reason}:\n{log.rstrip()}" if log.strip() else reason)
        self.reason = reason
        self.log = log


@dataclass(frozen=True, kw_only=True)
class CompileLimits:
    """What one build may use (the compiler's processes together, where there is a group)."""

    wall_seconds: int = 120
    cpu_seconds: int = 90  # per process (cc1plus does the work)
    memory_bytes: int = 1024 * MiB  # all processes together (control group)
    address_space_bytes: int = 2048 * MiB  # per process (cc1plus reserves more than it uses)
    max_processes: int = 16
    binary_bytes: int = 64 * MiB  # every file written (RLIMIT_FSIZE): the executable too
    tmpfs_bytes: int = 256 * MiB  # /tmp (the linker's temporary files)
    log_bytes: int = 64 * KiB  # the compiler's messages kept (the last bytes)

    def sandbox(self) -> Limits:
        return Limits(
            address_space_bytes=self.address_space_bytes,
            memory_bytes=self.memory_bytes,
            cpu_seconds=self.cpu_seconds,
            max_processes=self.max_processes,
            max_open_files=256,
            max_file_size_bytes=self.binary_bytes,
            tmpfs_size_bytes=self.tmpfs_bytes,
            max_line_bytes=self.log_bytes,
            max_output_bytes=64 * MiB,
            max_stderr_bytes=self.log_bytes,
        )


DEFAULT_COMPILE_LIMITS = CompileLimits()


@dataclass(frozen=True)
class Toolchain:
    """The compiler on this machine and everything the build sandbox binds for it."""

    compiler: str  # real path of the g++ driver
    version: str  # e.g. 12.2.0
    json_version: str | None  # nlohmann/json, e.g. 3.11.2; None when the headers are missing
    programs: tuple[str, ...]  # the driver's passes: cc1plus, collect2, as, ld, ...
    data_dirs: tuple[str, ...]  # headers, GCC's folder, the static C library's folder

    @property
    def identity(self) -> str:
        """What a build depends on besides the sources: part of every cache key."""
        return f"g++ {self.version} {' '.join(FLAGS)}; nlohmann/json {self.json_version}"

    def runtime(self) -> ResolvedRuntime:
        return ResolvedRuntime(
            CPP, self.compiler, (), programs=self.programs, data_dirs=self.data_dirs
        )


@functools.cache
def toolchain() -> Toolchain:
    """Find g++ and its parts (cached); raises :class:`RuntimeUnavailable` if it is missing."""
    found = shutil.which(COMPILER, path="/usr/bin:/bin")
    if found is None:
        raise RuntimeUnavailable(
            "no C++ compiler: install g++ and nlohmann-json3-dev (apt-get install g++ "
            "nlohmann-json3-dev)"
        )
    compiler = os.path.realpath(found)

    def ask(*args: str) -> str:
        return subprocess.run(
            [compiler, *args], capture_output=True, text=True, timeout=30, check=True
        ).stdout.strip()

    programs = []
    for name in ("cc1plus", "collect2", "lto-wrapper", "as", "ld"):
        path = ask(f"-print-prog-name={name}")
        path = path if os.path.isabs(path) else (shutil.which(path, path="/usr/bin:/bin") or "")
        if path:
            programs.append(path)
    gcc_dir = os.path.dirname(ask("-print-libgcc-file-name"))
    libc_dir = os.path.dirname(os.path.realpath(ask("-print-file-name=libc.a")))
    data_dirs = sorted({os.path.realpath(d) for d in (gcc_dir, libc_dir, "/usr/include")})
    return Toolchain(
        compiler, ask("-dumpfullversion"), _json_version(), tuple(programs), tuple(data_dirs)
    )


def _json_version() -> str | None:
    for header in JSON_VERSION_HEADERS:
        try:
            text = Path(header).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        parts = [
            re.search(rf"#define NLOHMANN_JSON_VERSION_{part} (\d+)", text)
            for part in ("MAJOR", "MINOR", "PATCH")
        ]
        if all(parts):
            return ".".join(m.group(1) for m in parts if m)
    return None


@dataclass(frozen=True)
class Compiled:
    binary: bytes  # the static executable
    log: str  # the compiler's warnings (empty when it said nothing)
    seconds: float


def compile_sources(
    package: BotPackage, limits: CompileLimits = DEFAULT_COMPILE_LIMITS
) -> Compiled:
    """Build ``package``'s sources in the sandbox. Raises :class:`CompileError` (the bot's
    fault) or :class:`SandboxUnavailable` / :class:`RuntimeUnavailable` (the platform's)."""
    if not RUNTIMES[package.runtime].compiled:
        raise ValueError(f"a {package.runtime} bot is not compiled")
    chain = toolchain()
    command = [
        chain.compiler, *FLAGS, "-o", f"{OUTPUT_MOUNT}/{BINARY}",
        *(f"{BOT_MOUNT}/{unit}" for unit in package.sources),
    ]  # fmt: skip
    with run_tool(chain.runtime(), package, command, limits) as run:
        problem = run.problem
        if problem is None and run.returncode != 0:
            problem = _failure(run.log, run.returncode, limits)
        if problem is not None:
            raise CompileError(problem, run.log)
        return Compiled(_read_binary(run.out / BINARY, limits), run.log, run.seconds)


@dataclass(frozen=True)
class ToolRun:
    """How a trusted tool's run over a package ended (:func:`run_tool`)."""

    out: Path  # what it wrote (its folder is removed when run_tool's block ends)
    log: str  # its messages (stderr, the last ``limits.log_bytes``)
    returncode: int | None
    problem: str | None  # a limit that stopped it (time, output, memory), else None
    seconds: float


@contextlib.contextmanager
def run_tool(
    runtime: ResolvedRuntime, package: BotPackage, command: list[str], limits: CompileLimits
) -> Iterator[ToolRun]:
    """Run a trusted tool (``command``, a compiler) over ``package``'s files under the same
    confinement as a bot: the package read-only at ``/bot``, an empty folder of its own
    writable at ``/out``, the limits of ``limits``, a uid slot and a control group. Yields how
    it ended once it has exited, before its folder is removed. Raises
    :class:`SandboxUnavailable` if it cannot start (the platform's fault)."""
    switch_uid = os.geteuid() == 0
    check_bwrap(uid_pool().start if switch_uid else None)
    try:
        backend = cgroups.backend()
    except cgroups.CgroupUnavailable as err:
        raise SandboxUnavailable(str(err)) from None
    if backend is None and cgroups.policy() == "required":
        raise SandboxUnavailable(
            f"no control group for the compiler ({cgroups.unavailable_reason()}); set "
            "ARENA_SANDBOX_CGROUPS=auto to compile with per-process limits only"
        )
    resources = _Resources()
    out = Path(tempfile.mkdtemp(prefix=f"build-{os.getpid()}-", dir=staging_base()))
    started = time.monotonic()
    try:
        try:
            if switch_uid:
                resources.slot = acquire_slot()
                uid = resources.slot.uid
                if uid is not None:  # the tool writes its output as the slot's uid
                    os.chown(out, uid, uid)
            if backend is not None:
                resources.group = backend.create(
                    cgroups.GroupLimits(
                        memory_bytes=limits.memory_bytes, max_pids=limits.max_processes + 2
                    )
                )
            resources.wrapped = True
            resources.process = _spawn(runtime, package, command, out, limits, resources)
        except (OSError, NoFreeSlot, cgroups.CgroupUnavailable) as err:
            raise SandboxUnavailable(f"cannot start the compiler: {err}") from err
        process = resources.process
        problem = _wait(process, started + limits.wall_seconds, limits)
        info = process.wait_exit(5.0)
        process.drain_post_mortem(time.monotonic() + 0.5)
        group = resources.group
        if problem is None and group is not None and group.oom_kills():
            problem = f"the compiler ran out of memory (limit {limits.memory_bytes // MiB} MiB)"
        log = process.stderr.text()
        yield ToolRun(out, log, info.returncode, problem, time.monotonic() - started)
    finally:
        resources.end_process()
        shutil.rmtree(out, ignore_errors=True)


def _spawn(
    runtime: ResolvedRuntime,
    package: BotPackage,
    command: list[str],
    out: Path,
    limits: CompileLimits,
    res: _Resources,
) -> BotProcess:
    sandbox_limits = limits.sandbox()
    seccomp_fd = seccomp.program_fd()
    try:
        argv = bwrap_argv(
            runtime, package.root, command, sandbox_limits, seccomp_fd, output_dir=out
        )
        return BotProcess(
            as_user_argv(res.slot.uid if res.slot is not None else None) + argv,
            cwd="/",
            env={},
            max_line_bytes=sandbox_limits.max_line_bytes,
            max_output_bytes=sandbox_limits.max_output_bytes,
            max_stderr_bytes=sandbox_limits.max_stderr_bytes,
            pass_fds=() if seccomp_fd is None else (seccomp_fd,),
            admit=res.group.add if res.group is not None else None,
        )
    finally:
        if seccomp_fd is not None:
            os.close(seccomp_fd)


def _wait(process: BotProcess, deadline: float, limits: CompileLimits) -> str | None:
    """Wait until the compiler closes its output; a problem (time, output) or ``None``."""
    try:
        while True:
            process.read_line(deadline)  # a compiler writes nothing to stdout: wait for EOF
    except Closed:
        return None
    except Timeout:
        return f"the compiler ran longer than {limits.wall_seconds} s"
    except (LineTooLong, OutputLimit):
        return "the compiler wrote too much output"


#: what the compiler's messages say when a limit stopped it (the message stays the compiler's)
_LIMIT_MESSAGES = (
    ("memory exhausted", "the compiler ran out of memory (limit {memory} MiB)"),
    ("out of memory", "the compiler ran out of memory (limit {memory} MiB)"),
    ("Cannot allocate memory", "the compiler ran out of memory (limit {memory} MiB)"),
    ("CPU time limit exceeded", "the compiler used more than {cpu} s of CPU time"),
    ("File size limit exceeded", "the output was larger than {size} MiB"),
    ("No space left on device", "the compiler's temporary files passed {tmp} MiB"),
    ("Killed signal", "the compiler was killed (memory or time limit)"),
)


def _failure(log: str, returncode: int | None, limits: CompileLimits) -> str:
    values = {
        "memory": limits.memory_bytes // MiB, "cpu": limits.cpu_seconds,
        "size": limits.binary_bytes // MiB, "tmp": limits.tmpfs_bytes // MiB,
    }  # fmt: skip
    for marker, reason in _LIMIT_MESSAGES:
        if marker in log:
            return reason.format(**values)
    return f"the C++ sources did not compile (exit {returncode})"


def _read_binary(path: Path, limits: CompileLimits) -> bytes:
    """The executable the compiler wrote: a regular file, static, within the size limit."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as err:
        raise CompileError(f"the compiler produced no executable ({err.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        data = f.read(limits.binary_bytes + 1)
    if len(data) > limits.binary_bytes:
        raise CompileError(f"the output was larger than {limits.binary_bytes // MiB} MiB")
    with tempfile.NamedTemporaryFile() as copy:
        copy.write(data)
        copy.flush()
        try:
            loader = elf_interpreter(copy.name)
        except NotElf as err:
            raise CompileError(f"the compiler's output is not an executable: {err}") from None
    if loader is not None:
        raise CompileError(f"the executable is dynamically linked ({loader})")
    return data


# -- the arena command's local cache --------------------------------------------------------


def cache_dir() -> Path:
    """``$ARENA_BUILD_CACHE``, else ``$XDG_CACHE_HOME/arena/builds`` (``~/.cache``)."""
    configured = os.environ.get("ARENA_BUILD_CACHE")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "arena" / "builds"


def source_key(package: BotPackage, identity: str) -> str:
    """sha256 of a build's ``identity`` (its tool) and every file of the package (path and
    bytes)."""
    digest = hashlib.sha256(identity.encode() + b"\0")
    for path in sorted(p for p in package.root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(package.root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def built(
    package: BotPackage,
    *,
    cache: Path | None = None,
    limits: CompileLimits = DEFAULT_COMPILE_LIMITS,
) -> tuple[BotPackage, Compiled | None]:
    """The staged executable built from ``package``'s sources, compiling only on a cache miss
    (then also what the compiler said); a package that is not compiled comes back as it is."""
    if not RUNTIMES[package.runtime].compiled:
        return package, None
    folder = (cache or cache_dir()) / source_key(package, toolchain().identity)
    path = folder / BINARY
    compiled = None
    if not path.is_file():
        compiled = compile_sources(package, limits)
        folder.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=".part-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(compiled.binary)
            os.chmod(temporary, 0o755)
            os.replace(temporary, path)  # concurrent builds of the same sources: same bytes
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    staged = load_bot(path)
    staged.name = package.name
    return staged, compiled
