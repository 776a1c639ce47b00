"""A Python bot's bytecode compiled once in the sandbox (sandbox.bytecode) and what its process
then compiles (nothing) or still compiles (a source the bytecode was not made from): real
bubblewrap, the real interpreter; what a process compiles is read from its audit events."""

from __future__ import annotations

import json
import os
import py_compile
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import sandbox.bytecode as bytecode
from sandbox import BotPackage, Limits, SandboxedAgent, SandboxUnavailable, load_bot
from sandbox.compile import CompileLimits, run_tool
from sandbox.runtimes import COMMON_MODULES, PYTHON_BOOT, missing_standard_bytecode

from .conftest import PRELUDE

#: every ``compile`` of a file (not of a string) the process makes after these lines
WATCH = """\
import sys
compiled = []
sys.addaudithook(
    lambda event, args: event == "compile" and str(args[1]).startswith("/")
    and compiled.append(args[1])
)
"""

BOT = (
    WATCH
    + PRELUDE
    + """\
import helper
from tools import rules

def hello(message):
    sys.stderr.write("COMPILED " + json.dumps([str(f) for f in compiled]) + "\\n")

serve(lambda m: m["legal"][helper.PICK + rules.OFFSET], on_hello=hello)
"""
)


@pytest.fixture
def bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "bot"
    (folder / "tools").mkdir(parents=True)
    (folder / "bot.toml").write_text('name = "watched"\nruntime = "python3"\nentry = "bot.py"\n')
    (folder / "bot.py").write_text(BOT)
    (folder / "helper.py").write_text("PICK = 0\n")
    (folder / "tools" / "__init__.py").write_text("")
    (folder / "tools" / "rules.py").write_text("OFFSET = 0\n")
    (folder / "tools" / "broken.py").write_text("def nope(:\n")  # never imported
    return folder


@pytest.fixture
def package(bot_folder: Path) -> Iterator[BotPackage]:
    with load_bot(bot_folder) as staged:
        yield staged


def compiled_files(limits: Limits, package: BotPackage) -> list[str]:
    """The files the bot's process compiled, up to its ``hello``."""
    with SandboxedAgent(package, limits) as agent:
        agent.start({"game": "belote", "seat": 0, "params": {}})
        agent.wait_ready()
        agent.finish({"scores": [0, 0, 0, 0]})
        log = agent.stderr_log
    line = next(x for x in log.splitlines() if x.startswith("COMPILED "))
    return [str(f) for f in json.loads(line.removeprefix("COMPILED "))]


def test_imports_load_the_bytecode_compiled_once_in_the_sandbox(
    bwrap_ok: None, limits: Limits, package: BotPackage, bot_folder: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    without = compiled_files(limits, package)
    assert sorted(without) == ["/bot/helper.py", "/bot/tools/__init__.py", "/bot/tools/rules.py"]

    runs = []
    real_run_tool = run_tool

    def counted(*args: Any) -> Any:
        runs.append(args)
        return real_run_tool(*args)

    monkeypatch.setattr(bytecode, "run_tool", counted)
    cache = tmp_path / "cache"
    assert bytecode.with_bytecode(package, cache)
    assert compiled_files(limits, package) == []
    tag = sys.implementation.cache_tag
    made = sorted(p.relative_to(package.root).as_posix() for p in package.root.rglob("*.pyc"))
    assert made == [  # the broken file is left out: importing it still raises its error
        f"__pycache__/bot.{tag}.pyc", f"__pycache__/helper.{tag}.pyc",
        f"tools/__pycache__/__init__.{tag}.pyc", f"tools/__pycache__/rules.{tag}.pyc",
    ]  # fmt: skip

    with load_bot(bot_folder) as again:  # the same files, staged again: from the cache
        assert bytecode.with_bytecode(again, cache)
        assert compiled_files(limits, again) == []
    assert len(runs) == 1

    (bot_folder / "helper.py").write_text("PICK = -1\n")  # other files: compiled anew
    with load_bot(bot_folder) as changed:
        assert bytecode.with_bytecode(changed, cache)
    assert len(runs) == 2


def test_a_pyc_of_other_bytes_is_not_run(
    bwrap_ok: None, limits: Limits, package: BotPackage, tmp_path: Path
) -> None:
    assert bytecode.with_bytecode(package, tmp_path / "cache")
    (package.root / "helper.py").write_text("PICK = -1\n")  # the source changed after compiling
    assert compiled_files(limits, package) == ["/bot/helper.py"]


def test_the_entrys_pyc_is_used_only_for_the_bytes_it_was_compiled_from(tmp_path: Path) -> None:
    entry = tmp_path / "bot.py"
    entry.write_text("import sys\nprint(sys._getframe().f_code.co_filename, __name__)\n")

    def run() -> tuple[str, list[str]]:
        watch = WATCH + "import atexit\natexit.register(lambda: print(compiled, file=sys.stderr))\n"
        out = subprocess.run(
            [sys.executable, "-E", "-s", "-S", "-B", "-c", watch + PYTHON_BOOT, str(entry), "", ""],
            capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        return out.stdout, eval(out.stderr)

    assert run() == (f"{entry} __main__\n", [str(entry)])
    for mode in py_compile.PycInvalidationMode:  # only a pyc that checks its source is used
        py_compile.compile(str(entry), dfile="/bot/bot.py", invalidation_mode=mode, doraise=True)
        expected = [] if mode is py_compile.PycInvalidationMode.CHECKED_HASH else [str(entry)]
        assert run() == (f"{entry} __main__\n", expected)
    entry.write_text("print(__file__, 'changed')\n")  # a pyc of other bytes: not run
    assert run() == (f"{entry} changed\n", [str(entry)])


def test_a_failed_compile_run_is_remembered_and_the_bot_plays_without(
    bwrap_ok: None, limits: Limits, package: BotPackage, bot_folder: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    starved = CompileLimits(memory_bytes=4 * 1024 * 1024, address_space_bytes=16 * 1024 * 1024)
    monkeypatch.setattr(bytecode, "BYTECODE_LIMITS", starved)  # the interpreter cannot start
    cache = tmp_path / "cache"
    assert not bytecode.with_bytecode(package, cache)
    assert not list(package.root.rglob("*.pyc"))
    (marker,) = cache.glob(f"*/{bytecode.FAILED}")
    runs = []
    monkeypatch.setattr(bytecode, "run_tool", lambda *a: runs.append(1))
    with load_bot(bot_folder) as again:
        assert not bytecode.with_bytecode(again, cache)
        assert len(compiled_files(limits, again)) == 3
    assert runs == [] and marker.exists()


def test_no_sandbox_of_the_moment_is_not_remembered(
    bwrap_ok: None, package: BotPackage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unavailable(*args: object) -> None:
        raise SandboxUnavailable("no free uid slot")

    with monkeypatch.context() as patched:
        patched.setattr(bytecode, "run_tool", unavailable)
        assert not bytecode.with_bytecode(package, tmp_path / "cache")
    assert [p.name for p in (tmp_path / "cache").iterdir()] == []
    assert bytecode.with_bytecode(package, tmp_path / "cache")


def test_only_python_bots_get_bytecode(tmp_path: Path) -> None:
    script = tmp_path / "bot.js"
    script.write_text("process.stdin.resume();\n")
    with load_bot(script) as node_bot:
        assert not bytecode.with_bytecode(node_bot, tmp_path / "cache")
    assert not (tmp_path / "cache").exists()
    assert os.listdir(tmp_path) == ["bot.js"]


def test_a_standard_library_without_bytecode_is_found(tmp_path: Path) -> None:
    real = sys._base_executable  # type: ignore[attr-defined]
    assert missing_standard_bytecode(real) == []  # this machine's interpreter has it
    # the same interpreter looking for its bytecode where there is none, as in an official
    # python Docker image (which deletes every .pyc of the standard library)
    bare = tmp_path / "python-without-bytecode"
    bare.write_text(f'#!/bin/sh\nexec {real} -X pycache_prefix={tmp_path / "none"} "$@"\n')
    bare.chmod(0o755)
    assert missing_standard_bytecode(str(bare)) == list(COMMON_MODULES)
