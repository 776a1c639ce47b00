"""The curated scientific set for Python bots: pinned packages in a dedicated read-only folder.

The project's set-up (``arena runtimes install``, which ``scripts/run.sh``, ``scripts/test.sh``
and the Dockerfile run) installs :data:`PINS` with ``pip install --target`` into
``$ARENA_RUNTIMES_DIR/python-sci`` (default: ``var/runtimes/python-sci`` in the project), makes
it read-only and writes a marker naming the pins and the Python version they were built for.
Nothing is taken from the host's site-packages: the sandbox binds only this folder, read-only,
at :data:`SANDBOX_PATH`, and the ``python3`` runtime appends it to the bot's ``sys.path``. A
folder whose marker does not match the current pins, or another Python version, is not used.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

#: every package of the set, each pinned (installed with --no-deps: the list is complete)
PINS = ("numpy==2.4.6",)
#: where the set appears inside the sandbox (not under its host path: that would reveal the
#: project's folder names to the bot, and make e.g. ``/work`` listable)
SANDBOX_PATH = "/opt/arena/python-sci"
MARKER = ".arena-runtime.json"
#: thread pools of the numeric libraries: one thread (the bot's process limit is small, and a
#: bot must not spread over the worker's CPUs); set in every bot's environment
THREAD_ENV = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
    "BLIS_NUM_THREADS": "1",
}


class InstallError(RuntimeError):
    """The set could not be installed (pip failed, or the Python versions differ)."""


def runtimes_dir() -> Path:
    """``$ARENA_RUNTIMES_DIR``, else ``var/runtimes`` in the project (beside ``sandbox/``)."""
    configured = os.environ.get("ARENA_RUNTIMES_DIR")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[1] / "var" / "runtimes"


def location() -> Path:
    return runtimes_dir() / "python-sci"


def python_version(interpreter: str) -> str:
    """``"3.11"`` for ``/usr/bin/python3.11`` (asks the interpreter if its name does not say)."""
    name = os.path.basename(interpreter)
    version = name.removeprefix("python")
    if name.startswith("python") and version.count(".") == 1 and version.replace(".", "").isdigit():
        return version
    code = "import sys; print('%d.%d' % sys.version_info[:2])"
    return subprocess.run(
        [interpreter, "-E", "-s", "-S", "-c", code],
        capture_output=True, text=True, timeout=10, check=True,
    ).stdout.strip()  # fmt: skip


def installed() -> dict[str, str] | None:
    """The installed set's ``{"python": "3.11", "numpy": "2.4.6", ...}``, or ``None`` when
    it is missing or was installed for other pins."""
    try:
        marker = json.loads((location() / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(marker, dict) or marker.get("pins") != list(PINS):
        return None
    versions = marker.get("versions")
    python = marker.get("python")
    if not isinstance(versions, dict) or not isinstance(python, str):
        return None
    return {"python": python, **{str(k): str(v) for k, v in versions.items()}}


def mounts(interpreter: str) -> list[tuple[str, str]]:
    """The read-only bind (host folder, sandbox path) for bots run by ``interpreter``; none
    when the set is not installed for that interpreter's version."""
    found = installed()
    if found is None or found["python"] != python_version(interpreter):
        return []
    return [(str(location().resolve()), SANDBOX_PATH)]


def install(*, force: bool = False, say: Callable[[str], None] = print) -> dict[str, str]:
    """Install the pinned set (unless it already is); the installed versions.

    pip runs with this interpreter, which must be the version the bots run with (the venv's
    base interpreter is both). The set is built in a temporary folder beside its place and
    renamed into it, so a failed or interrupted install leaves the previous one intact.
    """
    current = installed()
    if current is not None and not force:
        say(f"python-sci: already installed in {location()} ({_describe(current)})")
        return current
    from .runtimes import resolve_runtime  # the interpreter bots run with

    bot_python = resolve_runtime("python3", for_other_uid=False).interpreter or sys.executable
    version = "{}.{}".format(*sys.version_info[:2])
    if python_version(bot_python) != version:
        raise InstallError(
            f"bots run with {bot_python} (Python {python_version(bot_python)}) but pip runs "
            f"with Python {version}; install from a venv made with the bots' interpreter"
        )
    target = location()
    target.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=".python-sci-", dir=target.parent))
    try:
        say(f"python-sci: installing {' '.join(PINS)} into {target}")
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             "--no-input", "--no-deps", "--only-binary=:all:", "--target", str(building), *PINS],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise InstallError(f"pip failed: {(done.stderr or done.stdout).strip()[-2000:]}")
        versions = {_project(pin): pin.partition("==")[2] for pin in PINS}
        marker = {"pins": list(PINS), "python": version, "versions": versions}
        (building / MARKER).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")
        _make_read_only(building)
        _replace(building, target)
    except BaseException:
        _remove(building)
        raise
    found = installed()
    assert found is not None
    say(f"python-sci: installed ({_describe(found)})")
    return found


def _project(pin: str) -> str:
    return pin.partition("==")[0].strip().lower()


def _describe(versions: dict[str, str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in versions.items() if k != "python") + (
        f"; for Python {versions['python']}"
    )


def _make_read_only(root: Path) -> None:
    """Files 0444 (0555 if executable), folders 0555: readable by the sandbox uid, writable by
    nobody but root."""
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            mode = path.lstat().st_mode
            if stat.S_ISREG(mode):
                path.chmod(0o555 if mode & 0o100 else 0o444)
        Path(dirpath).chmod(0o555)


def _replace(new: Path, target: Path) -> None:
    old = None
    if target.exists():
        old = target.with_name(f".python-sci-old-{os.getpid()}")
        target.rename(old)
    new.rename(target)
    if old is not None:
        _remove(old)


def _remove(path: Path) -> None:
    """Remove a (read-only) tree."""
    if not path.exists():
        return
    for dirpath, _dirs, _files in os.walk(path):
        Path(dirpath).chmod(0o755)
    shutil.rmtree(path, ignore_errors=True)
