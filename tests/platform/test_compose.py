"""docker-compose.yml stays valid (no Docker engine needed: `docker-compose config` only parses)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from .conftest import unavailable

ROOT = Path(__file__).resolve().parents[2]


def compose(*args: str) -> str:
    binary = shutil.which("docker-compose")
    if binary is None:
        unavailable("docker-compose is not installed (Debian package docker-compose)")
    done = subprocess.run(
        [binary, "--file", str(ROOT / "docker-compose.yml"), "config", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_compose_file_validates() -> None:
    compose("--quiet")


def test_compose_runs_the_whole_stack() -> None:
    assert set(compose("--services").split()) == {"web", "worker", "beat", "redis", "postgres"}


def service(rendered: str, name: str) -> list[str]:
    """The lines of one service in `docker-compose config` output (services indent by 2)."""
    lines = rendered.splitlines()
    start = lines.index(f"  {name}:") + 1
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("    ")), len(lines))
    return [line.strip() for line in lines[start:end]]


def test_the_worker_may_create_bubblewrap_namespaces_as_a_non_root_user() -> None:
    worker = service(compose(), "worker")
    assert "- seccomp=unconfined" in worker and "- apparmor=unconfined" in worker
    assert "user: 10001:10001" in worker
