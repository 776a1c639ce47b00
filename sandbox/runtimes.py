"""The runtime table: how to run a bot written for each supported language.

A runtime is one :class:`Runtime` entry: where its interpreter may live, how to build the command
line, which extra directories (a standard library) the sandbox must bind read-only, and how much
more than the default limits it needs. Adding a language is adding an entry to :data:`RUNTIMES`.

The ``python3`` runtime adds the curated scientific set (:mod:`sandbox.pysci`: numpy) and the
folders a package's ``bot.toml`` names (``pythonpath``) to the bot's ``sys.path``; the ``cpp``
runtime is *compiled*: :mod:`sandbox.compile` turns its sources into a static executable, which
then runs like a ``native`` bot.

Interpreters are resolved to their *real* path (never a version-manager shim such as pyenv's,
which costs 100+ ms per start) and must be reachable by the unprivileged sandbox uid: a Python
living under ``/root`` (mode 0700) is skipped in favour of the system one.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import pysci
from .limits import Limits, MiB

log = logging.getLogger("sandbox")

BOT_MOUNT = "/bot"  # where the bot's directory appears inside the sandbox

#: How a Python bot starts (``python3 -E -s -S ... -c PYTHON_BOOT ENTRY PREFIX SUFFIX``): the
#: entry's folder, then the package's ``pythonpath`` folders (PREFIX), then the standard library,
#: then the curated set (SUFFIX; colon-separated) on ``sys.path``, then the entry runs as
#: ``__main__`` with ``__file__`` and ``sys.argv`` as if started directly. ``-E`` stays (the
#: environment cannot change the path), and no file has to be bound for it. The entry's code is
#: its pyc (:mod:`sandbox.bytecode`) where one was compiled from exactly its bytes (this
#: interpreter's magic number, a hash-based pyc that checks its source, the source's hash), as
#: the import system does for every other module; else it is compiled.
PYTHON_BOOT = """\
def _boot(entry, prefix, suffix):
    sys = __import__("sys")
    globals().pop("_boot")
    sys.argv[:] = [entry]
    sys.path[0:1] = [entry.rpartition("/")[0] or "/"] + [p for p in prefix.split(":") if p]
    sys.path += [p for p in suffix.split(":") if p]
    with open(entry, "rb") as source:
        data = source.read()
    files = sys.modules["_frozen_importlib_external"]
    try:
        with open(files.cache_from_source(entry), "rb") as cached:
            pyc = cached.read()
    except OSError:
        pyc = b""
    imp = sys.modules["_imp"]
    checked = files.MAGIC_NUMBER + b"\\3\\0\\0\\0"  # flags: hash-based, checks its source
    if pyc[:8] == checked and pyc[8:16] == imp.source_hash(files._RAW_MAGIC_NUMBER, data):
        code = __import__("marshal").loads(memoryview(pyc)[16:])
        imp._fix_co_filename(code, entry)  # as imports do: the file's name where it runs
        return code
    return compile(data, entry, "exec")
__file__ = __import__("sys").argv[1]
exec(_boot(*__import__("sys").argv[1:4]))
"""

#: A prepared Python sandbox (:mod:`sandbox.prepared`) starts the interpreter before its bot is
#: known: this trusted gate imports the standard modules nearly every Python bot imports
#: (:data:`PYTHON_PRELOADED`: ``json``, which the protocol needs, and ``random``; 9 ms of CPU
#: and 2 MB a bot, the largest part of the random bot's start after the interpreter's own),
#: says ``arena-gate`` on stdout, then reads one line from stdin (byte by byte, so nothing
#: after it is taken from the bot's input): ENTRY, PREFIX and SUFFIX separated by NUL bytes,
#: which become ``sys.argv[1:4]`` for :data:`PYTHON_BOOT`. The bot's own ``import json`` then
#: finds the module loaded; nothing else of the gate is left in its namespace.
GATE_WAITING = b"arena-gate"
PYTHON_PRELOADED = ("json", "random")
PYTHON_GATE = f"""\
def _assigned():
    for name in {PYTHON_PRELOADED!r}:
        __import__(name)
    os = __import__("os")
    os.write(1, b"arena-gate\\n")
    line = b""
    while not line.endswith(b"\\n"):
        byte = os.read(0, 1)
        if not byte:
            raise SystemExit(0)
        line += byte
    globals().pop("_assigned")
    return line[:-1].decode().split("\\0")
__import__("sys").argv[1:] = _assigned()
"""


class RuntimeUnavailable(RuntimeError):
    """No usable interpreter for a runtime on this machine (a platform problem)."""


@dataclass(frozen=True)
class Runtime:
    name: str
    description: str
    #: candidate interpreter paths, or ``sys.executable``-like callables; first usable one wins.
    #: Empty for programs that run on their own (static binaries).
    interpreters: tuple[str | Callable[[], str], ...]
    #: the command line; ``{interpreter}``, ``{entry}`` (path inside the sandbox) and limit
    #: fields (``{heap_mib}``) are substituted
    argv: tuple[str, ...]
    default_entry: str
    #: ask the interpreter for its library directories (run once, cached)
    library_dirs: Callable[[str], list[str]] | None = None
    #: directories *inside* those the sandbox must hide (installed packages: Python's
    #: site-packages lives inside its standard library directory in many installs)
    hidden_dirs: Callable[[str], list[str]] | None = None
    #: threads/processes the runtime itself needs on top of ``Limits.max_processes``
    extra_processes: int = 0
    min_address_space_bytes: int = 0
    #: stderr markers meaning "ran out of memory" (a crash with one of these is a memory verdict)
    memory_markers: tuple[bytes, ...] = ()
    #: the entry must be a static executable (checked when the bot is loaded)
    static_executable: bool = False
    #: the package holds sources that :mod:`sandbox.compile` builds into a static executable
    compiled: bool = False
    #: read-only binds (host folder, sandbox path) of libraries offered to the bot's program
    extra_mounts: Callable[[str], list[tuple[str, str]]] | None = None
    #: the command line of a prepared sandbox's gate (``{gate}``), which starts the runtime
    #: before the bot is known and then runs the bot named on its first input line; None: the
    #: runtime cannot wait for its bot (its command names the entry), its bots start fresh
    gated_argv: tuple[str, ...] | None = None
    notes: str = field(default="", compare=False)


@dataclass(frozen=True)
class ResolvedRuntime:
    """A runtime bound to this machine: real interpreter path and what the sandbox must bind."""

    runtime: Runtime
    interpreter: str | None
    library_dirs: tuple[str, ...]
    hidden_dirs: tuple[str, ...] = ()  # inside library_dirs; the sandbox shows them empty
    #: more programs to bind, with the shared libraries they need (a compiler's passes)
    programs: tuple[str, ...] = ()
    #: more folders to bind read-only as they are (headers, static libraries)
    data_dirs: tuple[str, ...] = ()
    #: read-only binds (host path, sandbox path); their ELF files' libraries are bound too
    mounts: tuple[tuple[str, str], ...] = ()

    def command(
        self,
        entry: str,
        limits: Limits,
        *,
        root: str = BOT_MOUNT,
        pythonpath: tuple[str, ...] = (),
    ) -> list[str]:
        """The bot's command line; ``root`` is where its directory is (``/bot`` when sandboxed,
        the real folder in trusted mode, where the mounts are at their host paths too);
        ``pythonpath``: package folders for ``sys.path`` (relative to the package)."""
        heap_mib = max(16, self.address_space_bytes(limits) // MiB // 2)
        sandboxed = root == BOT_MOUNT
        values = {
            "interpreter": self.interpreter or "",
            "entry": f"{root}/{entry}",
            "heap_mib": str(heap_mib),
            "boot": PYTHON_BOOT,
            "pythonpath": ":".join(f"{root}/{folder}" for folder in pythonpath),
            "mounts": ":".join(inside if sandboxed else host for host, inside in self.mounts),
        }
        return [part.format(**values) for part in self.runtime.argv]

    @property
    def gated(self) -> bool:
        """Whether a sandbox for this runtime can be prepared before its bot is known."""
        return self.runtime.gated_argv is not None and self.interpreter is not None

    def gated_command(self) -> list[str]:
        """A prepared sandbox's command: the runtime, waiting for its bot (:attr:`gated`)."""
        assert self.runtime.gated_argv is not None
        values = {"interpreter": self.interpreter or "", "gate": PYTHON_GATE + PYTHON_BOOT}
        return [part.format(**values) for part in self.runtime.gated_argv]

    def assignment(self, entry: str, pythonpath: tuple[str, ...] = ()) -> bytes | None:
        """The line that tells a prepared sandbox's gate which bot to run (the same values as
        :meth:`command` puts on a fresh bot's command line), or None if a name cannot be
        sent on one line (a newline or NUL in it: the bot then starts fresh)."""
        fields = [
            f"{BOT_MOUNT}/{entry}",
            ":".join(f"{BOT_MOUNT}/{folder}" for folder in pythonpath),
            ":".join(inside for _host, inside in self.mounts),
        ]
        if any("\n" in f or "\0" in f for f in fields):
            return None
        return "\0".join(fields).encode() + b"\n"

    def address_space_bytes(self, limits: Limits) -> int:
        return max(limits.address_space_bytes, self.runtime.min_address_space_bytes)

    def max_processes(self, limits: Limits) -> int:
        return limits.max_processes + self.runtime.extra_processes


def _base_python() -> str:
    """The interpreter behind the running one (a venv's python is a symlink to it)."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    return base


#: standard modules nearly every Python bot imports (the protocol is JSON), whose bytecode the
#: interpreter should have: without it, every bot's process compiles them at its start
COMMON_MODULES = ("json.decoder", "json.scanner", "random", "re._compiler", "re._parser")


def missing_standard_bytecode(interpreter: str) -> list[str]:
    """The :data:`COMMON_MODULES` that ``interpreter`` (as bots run it) has no bytecode for.

    The sandbox binds the standard library read-only, so a module without its ``__pycache__``
    file is compiled from source by every bot that imports it: ``import json, random`` costs
    about 40 ms of CPU more at each start (measured in the sandbox: 24 ms a start of the random
    bot with the bytecode, 65 ms without). Official ``python`` Docker images delete every
    ``.pyc`` of the standard library; the project's Dockerfile compiles it again."""
    code = (
        "import importlib.util, os\n"
        f"for name in {COMMON_MODULES!r}:\n"
        "    spec = importlib.util.find_spec(name)\n"
        "    if spec and spec.cached and not os.path.exists(spec.cached): print(name)\n"
    )
    out = subprocess.run(
        [interpreter, "-E", "-s", "-S", "-B", "-c", code],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout
    return out.split()


def _python_library_dirs(interpreter: str) -> list[str]:
    # What the interpreter itself imports from in the mode bots run in (no site, no env); said
    # once, when the runtime is resolved: whether that library lacks the bytecode bots need
    missing = missing_standard_bytecode(interpreter)
    if missing:
        log.warning(
            "the python3 runtime's standard library has no bytecode for %s: every Python bot "
            "compiles them at each start (about 40 ms of CPU); compile it once with %s -m "
            "compileall on its standard library (the project's Dockerfile does)",
            ", ".join(missing), interpreter,
        )  # fmt: skip
    out = subprocess.run(
        [interpreter, "-E", "-s", "-S", "-c", "import sys; print('\\n'.join(sys.path[1:]))"],
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    ).stdout
    return [p for p in out.splitlines() if p and os.path.isdir(p)]


def _python_site_dirs(interpreter: str) -> list[str]:
    # Where packages get installed (pip, the distribution): not the standard library. In the
    # python:3.11 image site-packages is /usr/local/lib/python3.11/site-packages, inside the
    # standard library directory the sandbox binds; bots must not read (or import) from it.
    code = (
        "import site, sysconfig; p = sysconfig.get_paths(); "
        "print('\\n'.join([p['purelib'], p['platlib'], *site.getsitepackages()]))"
    )
    out = subprocess.run(
        [interpreter, "-E", "-s", "-S", "-c", code],
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    ).stdout
    return [p for p in out.splitlines() if p and os.path.isdir(p)]


PYTHON3 = Runtime(
    name="python3",
    description="CPython 3.11+: the standard library and a curated scientific set (numpy)",
    interpreters=(_base_python, "/usr/bin/python3", "/usr/local/bin/python3"),
    # -E -s -S: no environment, no user or site packages (the script's directory stays importable,
    # unlike -I); -B: /bot is read-only; -u: a bot that forgets flush() still works; utf8 I/O;
    # -c PYTHON_BOOT: the package's own folders and the curated set on sys.path.
    argv=(
        *("{interpreter}", "-E", "-s", "-S", "-B", "-u", "-X", "utf8"),
        *("-c", "{boot}", "{entry}", "{pythonpath}", "{mounts}"),
    ),
    gated_argv=("{interpreter}", "-E", "-s", "-S", "-B", "-u", "-X", "utf8", "-c", "{gate}"),
    default_entry="bot.py",
    library_dirs=_python_library_dirs,
    hidden_dirs=_python_site_dirs,
    extra_processes=0,
    memory_markers=(b"MemoryError", b"Cannot allocate memory", b"cannot allocate memory"),
    extra_mounts=pysci.mounts,
)

NODE = Runtime(
    name="node",
    description="Node.js (the system's node), built-in modules only",
    interpreters=("/usr/bin/node", "/usr/local/bin/node"),
    argv=("{interpreter}", "--max-old-space-size={heap_mib}", "--v8-pool-size=0", "{entry}"),
    default_entry="bot.js",
    extra_processes=8,  # V8 and libuv threads count against RLIMIT_NPROC
    min_address_space_bytes=2048 * MiB,  # V8 reserves address space up front
    memory_markers=(b"heap out of memory", b"Allocation failed", b"std::bad_alloc"),
)

NATIVE = Runtime(
    name="native",
    description="a statically linked x86-64 Linux executable",
    interpreters=(),
    argv=("{entry}",),
    default_entry="bot",
    static_executable=True,
    memory_markers=(b"std::bad_alloc", b"out of memory"),
    notes="dynamic executables are refused: the sandbox binds no shared libraries for them",
)

CPP = Runtime(
    name="cpp",
    description="C++20 sources, compiled in the sandbox (g++ -O2 -std=c++20 -static) with "
    "nlohmann/json available",
    interpreters=(),
    argv=("{entry}",),  # the built executable (sandbox.compile), run like a native bot
    default_entry="bot.cpp",
    compiled=True,
    memory_markers=NATIVE.memory_markers,
    notes="compiled once per source package; the static executable is what runs",
)

RUNTIMES: dict[str, Runtime] = {r.name: r for r in (PYTHON3, NODE, NATIVE, CPP)}

#: entry-file suffix -> runtime, for bots given as a single file
SUFFIX_RUNTIMES = {
    ".py": "python3", ".js": "node", ".mjs": "node", ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp",
}  # fmt: skip


def _reachable_by_others(path: str) -> bool:
    """True if a different unprivileged uid can execute ``path`` (o+x on every directory)."""
    p = Path(path)
    try:
        if not p.stat().st_mode & stat.S_IXOTH:
            return False
        return all(parent.stat().st_mode & stat.S_IXOTH for parent in p.parents)
    except OSError:
        return False


@functools.cache
def resolve_runtime(name: str, *, for_other_uid: bool) -> ResolvedRuntime:
    """Find ``name``'s interpreter on this machine (cached; raises :class:`RuntimeUnavailable`)."""
    try:
        runtime = RUNTIMES[name]
    except KeyError:
        raise RuntimeUnavailable(
            f"unknown runtime {name!r} (available: {', '.join(sorted(RUNTIMES))})"
        ) from None
    if runtime.compiled:
        raise RuntimeUnavailable(
            f"runtime {name!r} runs the executable built from its sources (sandbox.compile)"
        )
    if not runtime.interpreters:
        return ResolvedRuntime(runtime, None, ())
    tried = []
    for candidate in runtime.interpreters:
        path = candidate() if callable(candidate) else candidate
        found = shutil.which(path) if not os.path.isabs(path) else path
        if not found or not os.path.exists(found):
            tried.append(f"{path} (missing)")
            continue
        real = os.path.realpath(found)
        if for_other_uid and not _reachable_by_others(real):
            tried.append(f"{real} (not reachable by the sandbox uid)")
            continue
        dirs = runtime.library_dirs(real) if runtime.library_dirs else []
        if for_other_uid:
            dirs = [d for d in dirs if _reachable_by_others(d)]
        dirs = [os.path.realpath(d) for d in dirs]
        hidden = runtime.hidden_dirs(real) if runtime.hidden_dirs else []
        hidden = [os.path.realpath(h) for h in hidden]
        inside = sorted({h for h in hidden if any(h.startswith(d + "/") for d in dirs)})
        mounts = runtime.extra_mounts(real) if runtime.extra_mounts else []
        if for_other_uid:
            mounts = [m for m in mounts if _reachable_by_others(m[0])]
        return ResolvedRuntime(runtime, real, tuple(dirs), tuple(inside), mounts=tuple(mounts))
    raise RuntimeUnavailable(f"no interpreter for runtime {name!r}; tried: {'; '.join(tried)}")
