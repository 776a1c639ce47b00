"""What each runtime offers on this machine: exact versions and libraries (``arena runtimes``,
``GET /api/runtimes/``). Everything is asked of the real programs once per process."""

from __future__ import annotations

import functools
import subprocess
from typing import Any

from . import pysci
from .compile import FLAGS, toolchain
from .runtimes import RUNTIMES, Runtime, RuntimeUnavailable, resolve_runtime


@functools.cache
def describe() -> tuple[dict[str, Any], ...]:
    """One entry per runtime: ``name``, ``description``, ``available``, ``version``,
    ``libraries`` (``[{"name", "version"}]``) and ``notes``."""
    return tuple(_entry(runtime) for runtime in RUNTIMES.values())


def _entry(runtime: Runtime) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": runtime.name,
        "description": runtime.description,
        "available": True,
        "version": "",
        "libraries": [],
        "notes": runtime.notes,
    }
    try:
        if runtime.compiled:
            chain = toolchain()
            entry["version"] = f"g++ {chain.version} ({' '.join(FLAGS)})"
            entry["libraries"] = [
                {"name": "libstdc++ (static)", "version": chain.version},
                {"name": "nlohmann/json", "version": chain.json_version or "not installed"},
            ]
        elif runtime.interpreters:
            interpreter = resolve_runtime(runtime.name, for_other_uid=False).interpreter
            assert interpreter is not None
            entry["version"] = _version(interpreter)
            if runtime.extra_mounts is not None:
                entry["libraries"] = _python_libraries(interpreter)
        else:
            entry["version"] = "x86-64 Linux, statically linked"
    except (RuntimeUnavailable, OSError, subprocess.SubprocessError) as err:
        entry["available"] = False
        entry["notes"] = str(err)
    return entry


def _version(interpreter: str) -> str:
    """``CPython 3.11.7`` or ``Node.js v18.19.0``."""
    if "python" in interpreter:
        code = "import platform; print(platform.python_implementation(), platform.python_version())"
        argv = [interpreter, "-E", "-s", "-S", "-c", code]
    else:
        argv = [interpreter, "--version"]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=True).stdout
    version = out.strip()
    return version if "python" in interpreter else f"Node.js {version}"


def _python_libraries(interpreter: str) -> list[dict[str, str]]:
    """The curated set's packages, or each pin marked as not installed."""
    found = pysci.installed()
    usable = found is not None and found["python"] == pysci.python_version(interpreter)
    libraries = []
    for pin in pysci.PINS:
        project, _sep, pinned = pin.partition("==")
        version = found.get(project.lower()) if usable and found is not None else None
        missing = f"{pinned} (not installed: arena runtimes install)"
        libraries.append({"name": project, "version": version or missing})
    return libraries
