"""The deployment runs strangers' bots only in per-bot control groups (issue 29): the compose
file's worker defaults to ``ARENA_SANDBOX_CGROUPS=required`` and gets a delegated group.

``docker-compose config`` only parses the file: no Docker engine is needed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOYED = {"SECRET_KEY": "k" * 50, "ALLOWED_HOSTS": "arena.example.org"}


def worker_config(**env: str) -> str:
    binary = shutil.which("docker-compose")
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("docker-compose is not installed (Debian package docker-compose)")
        pytest.skip("docker-compose is not installed (Debian package docker-compose)")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    done = subprocess.run(
        [binary, "--file", str(ROOT / "docker-compose.yml"), "config"],
        capture_output=True, text=True, timeout=60, cwd=ROOT, env=clean | DEPLOYED | env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index("  worker:") + 1
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("    "))
    return "\n".join(line.strip() for line in lines[start:end])


def test_the_worker_requires_per_bot_control_groups_in_its_delegated_group() -> None:
    worker = worker_config()
    assert "ARENA_SANDBOX_CGROUPS: required" in worker
    assert "cgroup_parent: arenabots.slice" in worker
    assert "ARENA_SANDBOX_CGROUP_ROOT: /sys/fs/cgroup/arenabots.slice" in worker
    assert "- /sys/fs/cgroup/arenabots.slice:/sys/fs/cgroup/arenabots.slice:rw" in worker


def test_an_operator_can_name_another_group_or_choose_auto() -> None:
    worker = worker_config(ARENA_SANDBOX_CGROUP_SLICE="cards.slice", ARENA_SANDBOX_CGROUPS="auto")
    assert "ARENA_SANDBOX_CGROUPS: auto" in worker
    assert "cgroup_parent: cards.slice" in worker
    assert "- /sys/fs/cgroup/cards.slice:/sys/fs/cgroup/cards.slice:rw" in worker
