"""docker-compose.yml stays valid (no Docker engine needed: `docker-compose config` only parses)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.db import connection

from .conftest import unavailable
from .workers import database_url

ROOT = Path(__file__).resolve().parents[2]
#: a deployment's settings: a real host name, not localhost
DEPLOYED = {"SECRET_KEY": "k" * 50, "ALLOWED_HOSTS": "arena.example.org"}


def run_compose(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("docker-compose")
    if binary is None:
        unavailable("docker-compose is not installed (Debian package docker-compose)")
    clean = {k: v for k, v in os.environ.items() if k not in DEPLOYED}
    return subprocess.run(
        [binary, "--file", str(ROOT / "docker-compose.yml"), "config", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=clean | env,
    )


def compose(*args: str) -> str:
    done = run_compose(*args, env=DEPLOYED)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_compose_file_validates() -> None:
    compose("--quiet")


def test_compose_runs_the_whole_stack() -> None:
    services = set(compose("--services").split())
    assert services == {"nginx", "web", "worker", "beat", "redis", "postgres"}


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


def test_the_worker_runs_under_an_init_that_reaps_orphaned_sandbox_inits() -> None:
    """A sandbox's init is handed to the container's pid 1 when its outer bubblewrap exits
    first (a bot that ends by itself): Celery as pid 1 would never reap it."""
    assert "init: true" in service(compose(), "worker")


def rendered_services() -> dict[str, Any]:
    """The services as `docker-compose config` resolves them (anchors merged)."""
    services: dict[str, Any] = yaml.safe_load(compose())["services"]
    return services


def test_the_site_is_published_by_nginx_only() -> None:
    """Only the proxy has a port on the host; gunicorn believes exactly one proxy's
    X-Forwarded-For; the proxy's image carries the committed configuration."""
    services = rendered_services()
    web, nginx = services["web"], services["nginx"]
    assert "ports" not in web and web["expose"] == ["8000"]
    assert web["environment"]["ARENA_TRUSTED_PROXIES"] == "1"
    assert nginx["ports"] == ["127.0.0.1:8000:80/tcp"] and nginx["build"]["target"] == "proxy"
    assert [name for name, s in services.items() if "ports" in s] == ["nginx"]
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "COPY deploy/nginx.conf /etc/nginx/conf.d/default.conf" in dockerfile
    assert "COPY --from=app /app/var/static /srv/static" in dockerfile
    assert "server web:8000;" in (ROOT / "deploy" / "nginx.conf").read_text()
    # the base image deleted the standard library's bytecode: bots would compile it at each start
    assert "RUN python -m compileall -q -j 0 -x '/(test|tests|idle_test)/'" in dockerfile


def test_web_and_worker_take_their_settings_from_the_shared_configuration() -> None:
    """gunicorn's settings are in arena.gunicorn_conf and the worker's in arena.celery (what
    benchmarks/load.py starts too): the command lines add nothing that would differ."""
    services = rendered_services()
    web_command = services["web"]["command"]
    assert web_command.endswith(
        'exec gunicorn --config python:arena.gunicorn_conf --bind 0.0.0.0:8000"'
    )
    assert services["worker"]["command"] == "celery --app=arena worker --loglevel=INFO"


def test_a_missing_secret_key_stops_the_start_with_a_clear_message() -> None:
    done = run_compose("--quiet", env={"ALLOWED_HOSTS": "arena.example.org"})
    assert done.returncode != 0
    assert "set SECRET_KEY to 50 random characters" in done.stderr
    done = run_compose("--quiet", env={"SECRET_KEY": "k" * 50})
    assert done.returncode != 0 and "set ALLOWED_HOSTS" in done.stderr


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.mark.django_db
@pytest.mark.integration
def test_the_web_health_check_passes_with_a_real_host_name_in_allowed_hosts() -> None:
    """The compose file's own health command, run against gunicorn serving the app with the
    compose file's settings (DEBUG off, ALLOWED_HOSTS a real host name): a bare request to
    127.0.0.1 is refused with 400, and the health check still passes."""
    web = service(compose(), "web")
    test_line = web[web.index("healthcheck:") + 1 :]
    command = [line.removeprefix("- ") for line in test_line[test_line.index("test:") + 1 :]]
    command = command[: command.index("--url") + 2]
    assert command[:3] == ["CMD", "python", "manage.py"], command
    port = free_port()
    url = f"http://127.0.0.1:{port}/api/health/ready/"
    env = (
        os.environ
        | DEPLOYED
        | {
            "DEBUG": "0",
            "DATABASE_URL": database_url(connection.settings_dict),
            "PYTHONPATH": str(ROOT / "platform"),
        }
    )
    gunicorn = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "arena.wsgi", "--bind", f"127.0.0.1:{port}",
         "--workers", "1"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        bare = None
        for _ in range(120):  # up to a minute for gunicorn to listen
            try:
                urllib.request.urlopen(url, timeout=5)
            except urllib.error.HTTPError as err:
                bare = err.code
                break
            except OSError:
                time.sleep(0.5)
        assert bare == 400, "a request with Host 127.0.0.1 must be refused by ALLOWED_HOSTS"
        probe = [sys.executable, *command[2:-1], url]  # the compose command, this port
        done = subprocess.run(probe, cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
        status, body = done.stdout.split(": ", 1)
        assert json.loads(body)["status"] == status and status in ("ok", "degraded")
    finally:
        gunicorn.terminate()
        gunicorn.wait(timeout=30)
