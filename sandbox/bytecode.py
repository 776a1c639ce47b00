"""A Python bot's bytecode, compiled once in the sandbox and put beside its sources.

The sandbox binds a bot's folder read-only, so Python cannot keep the bytecode it compiles:
every game's process compiled every source file again, the entry included (CPython compiles
about 200 lines a millisecond: a bot of 3,000 lines paid 15 ms of CPU at every start, eight
times in a Belote duplicate match). :func:`with_bytecode` compiles a staged package's ``.py``
files once, keeps the result in a local cache keyed by the package's files and the interpreter,
and links it into the staged copy as ``__pycache__`` files, which the bot's imports and
:data:`~sandbox.runtimes.PYTHON_BOOT` (for the entry) then load instead of compiling.

* **Compiled in the sandbox**: a stranger's source is input to CPython's compiler, which has
  crashed on pathological nesting; the compiler runs under a bot's confinement
  (:func:`sandbox.compile.run_tool`), not in the worker.
* **Checked against the source**: the files are hash-based pycs that check their source
  (PEP 552, ``CHECKED_HASH``), so a pyc is used only for the exact bytes it was compiled from:
  one a bot's upload brought along, or a stale cache, is ignored (the source is compiled, as
  before), never run instead of the source.
* **Nothing else changes**: the same interpreter compiles the same source with the same file
  name the bot's own process would (tracebacks, ``__file__``, line numbers alike); a file that
  does not compile is left out and raises its error when imported, as before; if the compile
  run fails, the bot starts as it did before, and the next load of the same files tries again
  only if no sandbox could start (a limit's verdict is kept).
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import tempfile
from pathlib import Path

from .bwrap import OUTPUT_MOUNT, SandboxUnavailable
from .compile import CompileLimits, run_tool, source_key
from .limits import MiB
from .package import BotPackage
from .runtimes import BOT_MOUNT, PYTHON3, ResolvedRuntime, RuntimeUnavailable, resolve_runtime

log = logging.getLogger("sandbox")

#: what one compile run may use: a package unpacks to at most 32 MiB of sources, which CPython
#: compiles in about 5 s of CPU (a bot of 10,000 lines: 50 ms); the first match of a version
#: on a machine waits for it
BYTECODE_LIMITS = CompileLimits(
    wall_seconds=30,
    cpu_seconds=10,
    memory_bytes=512 * MiB,
    address_space_bytes=1024 * MiB,
    max_processes=4,
    binary_bytes=32 * MiB,
    tmpfs_bytes=16 * MiB,
)
#: at most this much bytecode is taken from a run (all files together)
MAX_BYTECODE_BYTES = 64 * MiB
#: the marker a failed run leaves in the cache, so the same files are not compiled again
FAILED = "compile-failed"

#: Runs in the sandbox (trusted): every ``.py`` file under /bot compiled to the pyc its
#: interpreter would look for, written under /out at the same relative place. A file that does
#: not compile is skipped.
BYTECODE_SCRIPT = f"""\
import os, py_compile
from importlib.util import cache_from_source
for folder, dirs, files in os.walk({BOT_MOUNT!r}):
    dirs[:] = sorted(d for d in dirs if d != "__pycache__")
    for name in sorted(files):
        if name.endswith(".py"):
            source = os.path.join(folder, name)
            target = {OUTPUT_MOUNT!r} + cache_from_source(source)[{len(BOT_MOUNT)}:]
            try:
                py_compile.compile(source, target, source, doraise=True,
                                   invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
            except (py_compile.PyCompileError, RecursionError, MemoryError, ValueError):
                pass
"""


def with_bytecode(package: BotPackage, cache: Path) -> bool:
    """Link the bytecode of ``package``'s Python sources into its staged copy, compiling them
    in the sandbox unless ``cache`` has them; whether any was linked. Never raises for the
    compile run's sake: without bytecode the bot starts as it always did."""
    if package.runtime != PYTHON3.name or not any(package.root.rglob("*.py")):
        return False
    try:
        runtime = resolve_runtime(PYTHON3.name, for_other_uid=os.geteuid() == 0)
    except RuntimeUnavailable as err:
        log.info("no bytecode for %s: %s", package.name, err)
        return False
    assert runtime.interpreter is not None
    interpreter = Path(runtime.interpreter)
    identity = f"python bytecode; {interpreter} {interpreter.stat().st_mtime_ns}"
    folder = cache / source_key(package, identity)
    if not folder.is_dir():
        try:
            _fill_cache(package, runtime, folder)
        except SandboxUnavailable as err:  # the platform's, maybe of the moment: not kept
            log.info("no bytecode for %s this time: %s", package.name, err)
            return False
    if (folder / FAILED).exists():
        return False
    linked = False
    for path in sorted(folder.rglob("*.pyc")):
        target = package.root / path.relative_to(folder)
        target.parent.mkdir(mode=0o755, exist_ok=True)
        target.unlink(missing_ok=True)  # an upload's own pyc: ours is the one to check
        try:
            os.link(path, target)
        except OSError:
            shutil.copyfile(path, target)
        linked = True
    return linked


def _fill_cache(package: BotPackage, runtime: ResolvedRuntime, folder: Path) -> None:
    """Compile ``package``'s sources in the sandbox into ``folder`` (made atomically: a
    concurrent worker's copy of the same files is the same bytecode); a run that failed (a
    limit) leaves its :data:`FAILED` marker there instead. Raises :class:`SandboxUnavailable`
    where no sandbox could start (nothing is kept then)."""
    folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    part = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".part-"))
    try:
        command = [str(runtime.interpreter), "-E", "-s", "-S", "-c", BYTECODE_SCRIPT]
        with run_tool(runtime, package, command, BYTECODE_LIMITS) as run:
            failed = run.problem or (f"exit {run.returncode}" if run.returncode else None)
            if failed is None:
                failed = _take_output(run.out, part)
        if failed is not None:
            log.warning("no bytecode for %s: %s", package.name, failed)
            shutil.rmtree(part)
            part.mkdir()
            (part / FAILED).write_text(failed[:1000] + "\n")
        os.chmod(part, 0o755)
        try:
            os.rename(part, folder)
        except OSError as err:
            if err.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                raise
    finally:
        shutil.rmtree(part, ignore_errors=True)


def _take_output(out: Path, part: Path) -> str | None:
    """Copy the pycs the run wrote under ``out`` into ``part``: regular files named ``*.pyc``
    in ``__pycache__`` folders only, links not followed, :data:`MAX_BYTECODE_BYTES` in all
    (else what went wrong)."""
    budget = MAX_BYTECODE_BYTES
    for folder, _dirs, files in os.walk(out):
        here = Path(folder)
        for name in sorted(files):
            source = here / name
            if here.name != "__pycache__" or not name.endswith(".pyc") or source.is_symlink():
                continue
            fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
            with os.fdopen(fd, "rb") as f:
                data = f.read(budget + 1)
            budget -= len(data)
            if budget < 0:
                return f"more than {MAX_BYTECODE_BYTES // MiB} MiB of bytecode"
            target = part / source.relative_to(out)
            target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            target.write_bytes(data)
            os.chmod(target, 0o644)
    return None
