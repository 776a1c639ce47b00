"""Shared fixtures: small limits (so hostile bots fail fast) and a bot-writing helper."""

from __future__ import annotations

import os
import textwrap
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sandbox import Limits, SandboxUnavailable, cgroups
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


class UnlimitedV2Backend(cgroups.V2Backend):
    """The cgroup v2 backend on a cgroup2 hierarchy without the memory and pids controllers
    (a hybrid host binds them to v1): freezing, killing and CPU accounting are the kernel's,
    only the limits are not written (there are no such files)."""

    def _limit(self, path: Path, limits: cgroups.GroupLimits) -> None:
        pass


@pytest.fixture
def v2_backend() -> Iterator[cgroups.Backend]:
    """A cgroup v2 backend under a fresh folder of this host's cgroup2 hierarchy: the real one
    where the host is on v2, else one without limits (:class:`UnlimitedV2Backend`); skipped
    where there is no writable cgroup2 hierarchy."""
    real = cgroups.backend()
    if isinstance(real, cgroups.V2Backend):
        yield real
        return
    with open("/proc/self/mountinfo") as f:
        unified = cgroups.parse_mounts(f.read())[0]
    with open("/proc/self/cgroup") as f:
        own = cgroups.parse_own(f.read())[0] or "/"
    if unified is None:
        pytest.skip("no cgroup2 hierarchy here")
    parent = unified / own.lstrip("/") / f"arena-test-v2-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    try:
        parent.mkdir()
    except OSError as err:
        pytest.skip(f"cannot make a cgroup2 folder: {err}")
    try:
        yield UnlimitedV2Backend(parent)
    finally:
        for leftover in parent.iterdir():  # none, unless a test failed
            if leftover.is_dir():
                cgroups.V2Group(leftover.name, leftover).destroy(timeout=5)
        parent.rmdir()


@pytest.fixture(params=["this host", "cgroup v2"])
def any_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> cgroups.Backend:
    """Each backend this host can run, made the one agents use: this host's own, then cgroup
    v2 (:func:`v2_backend`; the same twice on a v2 host)."""
    if request.param == "this host":
        found = cgroups.backend()
        if found is None:
            pytest.skip(f"no control group here: {cgroups.unavailable_reason()}")
    else:
        found = request.getfixturevalue("v2_backend")
    use_backend(monkeypatch, found)
    return found


def use_backend(monkeypatch: pytest.MonkeyPatch, backend: cgroups.Backend) -> None:
    """Agents made from now on (in this test) put their bots' groups in ``backend``."""
    monkeypatch.setattr(cgroups, "_detect", lambda root: (backend, ""))


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
