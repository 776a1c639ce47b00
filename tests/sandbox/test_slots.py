"""uid slots are host-wide (issue 29): every worker of every deployment on a host locks them in
one folder, and with a control group a bot's teardown kills its group, never its uid."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from sandbox import Limits, SandboxedAgent, cgroups
from sandbox.slots import DEFAULT_LOCK_DIR, NoFreeSlot, acquire_slot, lock_dir_setting

HOLDER = """
import sys
from sandbox.slots import acquire_slot
slot = acquire_slot()
print(slot.uid, flush=True)
sys.stdin.read()
"""


@pytest.fixture
def root() -> None:
    if os.geteuid() != 0:
        pytest.skip("slots only matter for a root worker")


def test_the_lock_folder_is_one_for_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_SANDBOX_LOCK_DIR", raising=False)
    monkeypatch.delenv("ARENA_SANDBOX_LOCKS", raising=False)
    monkeypatch.setenv("TMPDIR", "/nonexistent-per-worker-tmp")
    if os.access("/run", os.W_OK):
        assert lock_dir_setting() == DEFAULT_LOCK_DIR
    monkeypatch.setenv("ARENA_SANDBOX_LOCK_DIR", "/run/arena-test-locks")
    assert lock_dir_setting() == Path("/run/arena-test-locks")


def test_workers_with_their_own_tmpdir_never_share_a_uid(
    root: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two workers (another deployment's among them) with different ``$TMPDIR``s: a pool of
    two uids gives them two different ones, and a third claim finds none free."""
    env = dict(os.environ, ARENA_SANDBOX_UID_BASE="64900", ARENA_SANDBOX_UID_COUNT="2")
    env["ARENA_SANDBOX_LOCK_DIR"] = str(tmp_path / "locks")
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    for name, value in env.items():
        if name.startswith("ARENA_SANDBOX"):
            monkeypatch.setenv(name, value)
    holders = []
    try:
        for index in range(2):
            temp = tmp_path / f"tmp{index}"
            temp.mkdir()
            holder = subprocess.Popen(
                [sys.executable, "-c", HOLDER],
                env=env | {"TMPDIR": str(temp)},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            holders.append(holder)
        assert holders[0].stdout is not None and holders[1].stdout is not None
        uids = {int(holders[0].stdout.readline()), int(holders[1].stdout.readline())}
        assert uids == {64900, 64901}
        monkeypatch.setenv("TMPDIR", str(tmp_path))
        with pytest.raises(NoFreeSlot):
            acquire_slot()
    finally:
        for holder in holders:
            holder.communicate("", timeout=30)


def test_a_groups_teardown_spares_other_processes_of_its_uid(
    root: None, bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    """Another deployment's bot that got the same uid survives this bot's teardown."""
    if cgroups.backend() is None:
        pytest.skip(f"no control group here: {cgroups.unavailable_reason()}")
    with SandboxedAgent(write_bot('serve(lambda m: m["legal"][0])\n'), limits) as bot:
        bot.start({"game": "badugi", "seat": 0, "params": {}})
        bot.wait_ready()
        slot = bot._res.slot
        assert slot is not None and slot.uid is not None
        bystander = subprocess.Popen(
            ["/usr/bin/setpriv", f"--reuid={slot.uid}", f"--regid={slot.uid}", "--clear-groups",
             "--", "sleep", "600"]
        )  # fmt: skip
        try:
            bot.finish({})
            bot.close()  # waits for the teardown; a sweep by uid would kill the bystander
            assert bystander.poll() is None, "the teardown killed a process outside the group"
        finally:
            bystander.kill()
            bystander.wait()
