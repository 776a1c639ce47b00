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
from sandbox.slots import uid_pool

#: Time limits are generous: a bot that must answer gets 10-50x (and more) what it needs even on
#: a loaded CI machine, so no verdict depends on the machine's speed (issue 16). A test whose
#: bot must time out sets a short limit itself and makes the bot never answer (sleep or spin
#: forever), which is deterministic too. The other limits are small, so hostile bots fail fast.
TEST_LIMITS = Limits(
    decision_timeout_ms=10_000,
    match_time_bank_ms=120_000,
    startup_timeout_ms=20_000,
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
        check_bwrap(uid_pool().start if os.geteuid() == 0 else None)
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


def wait_until_gone(token: str, timeout: float = 30.0) -> list[int]:
    """Poll until no process mentions ``token``; return the survivors (empty = all gone).

    Killed processes go within milliseconds; the long timeout only matters on a loaded machine
    (and when the test fails)."""
    deadline = time.monotonic() + timeout
    while True:
        alive = processes_matching(token)
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.02)
