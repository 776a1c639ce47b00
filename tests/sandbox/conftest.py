"""Shared fixtures: small limits (so hostile bots fail fast) and a bot-writing helper."""

from __future__ import annotations

import os
import textwrap
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from sandbox import Limits, SandboxUnavailable
from sandbox.bwrap import check_bwrap
from sandbox.slots import UID_BASE

#: small enough to keep the hostile table fast, large enough for a loaded CI machine
TEST_LIMITS = Limits(
    decision_timeout_ms=400,
    match_time_bank_ms=20_000,
    startup_timeout_ms=5_000,
    address_space_bytes=256 * 1024 * 1024,
    cpu_seconds=10,
    max_processes=8,
    max_open_files=32,
    max_file_size_bytes=1024 * 1024,
    tmpfs_size_bytes=2 * 1024 * 1024,
    max_line_bytes=16 * 1024,
    max_output_bytes=1024 * 1024,
    max_stderr_bytes=4 * 1024,
)

#: prepended to every test bot: the protocol loop, with ``act(message) -> action`` to define
PRELUDE = """\
import json, os, sys, time

def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()

def serve(act, on_hello=None):
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            if on_hello:
                on_hello(message)
            send({"type": "ready"})
        elif message["type"] == "act":
            send({"id": message["id"], "action": act(message)})
        else:
            break
"""


def bwrap_problem() -> str | None:
    try:
        check_bwrap(UID_BASE if os.geteuid() == 0 else None)
    except SandboxUnavailable as err:
        return str(err)
    return None


@pytest.fixture
def bwrap_ok() -> None:
    """Skip the test where bubblewrap cannot run (the sandbox then refuses untrusted bots)."""
    problem = bwrap_problem()
    if problem is not None:
        pytest.skip(f"bubblewrap unusable here: {problem}")


@pytest.fixture
def gone() -> Callable[[str, float], list[int]]:
    """``gone(token)`` waits until no process mentions ``token``; returns survivors' pids."""
    return wait_until_gone


@pytest.fixture
def limits() -> Limits:
    return TEST_LIMITS


@pytest.fixture
def write_bot(tmp_path: Path) -> Callable[..., Path]:
    """``write_bot(body, name=...)`` -> path of a Python bot: PRELUDE + dedented ``body``.

    Each file name carries a unique token, so tests can find the bot's processes in /proc.
    """

    def write(body: str, name: str = "bot", prelude: bool = True) -> Path:
        token = uuid.uuid4().hex[:12]
        path = tmp_path / f"{name}_{token}.py"
        source = (PRELUDE if prelude else "") + textwrap.dedent(body)
        path.write_text(source, encoding="utf-8")
        return path

    return write


def processes_matching(token: str) -> list[int]:
    """Pids whose command line contains ``token`` (the bot's unique file name)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if token.encode() in f.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def wait_until_gone(token: str, timeout: float = 3.0) -> list[int]:
    """Poll until no process mentions ``token``; return the survivors (empty = all gone)."""
    deadline = time.monotonic() + timeout
    while True:
        alive = processes_matching(token)
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.02)
