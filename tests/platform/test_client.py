"""The ``arena`` client (the real entry point, as a subprocess) against a live test server on
loopback with a real Celery worker: login, submit (a new bot, a new version, a rejected one),
challenge, status and replay, and one-line errors with their exit codes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from pytest_django.live_server_helper import LiveServer

from tests.platform.factories import CRASHES, FIRST_LEGAL, active_bot
from tests.platform.workers import StartWorker

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
ARENA = Path(sys.executable).parent / "arena"


def arena(env: dict[str, str], *args: str, stdin: str = "", cwd: Path = ROOT,
          ) -> subprocess.CompletedProcess[str]:  # fmt: skip
    return subprocess.run(
        [str(ARENA), *args], input=stdin, capture_output=True, text=True, env=env, cwd=cwd,
        timeout=600, check=False,
    )  # fmt: skip


@pytest.fixture
def env(live_server: LiveServer, tmp_path: Path) -> dict[str, str]:
    if not ARENA.exists():
        pytest.fail(f"{ARENA} is missing: install the project (pip install -e .)")
    clean = {k: v for k, v in os.environ.items() if k not in ("ARENA_TOKEN", "ARENA_URL")}
    return clean | {"ARENA_URL": live_server.url, "ARENA_CONFIG": str(tmp_path / "credentials")}


@pytest.mark.timeout(600)
def test_login_submit_challenge_status_replay(
    env: dict[str, str], tmp_path: Path, start_worker: StartWorker
) -> None:
    User.objects.create_user("ada", password="ada-secret-pw")
    rival = active_bot("belote", owner=User.objects.create_user("bob"), name="theirs")
    worker = start_worker("client")

    done = arena(env, "login", "--username", "ada", "--password-stdin", stdin="ada-secret-pw\n")
    assert done.returncode == 0, done.stderr
    credentials = Path(env["ARENA_CONFIG"])
    assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
    assert json.loads(credentials.read_text())["url"] == env["ARENA_URL"]

    bot = tmp_path / "bot.py"
    bot.write_text(FIRST_LEGAL)
    done = arena(env, "submit", str(bot), "--bot", "mine", "--game", "belote")
    assert done.returncode == 0, done.stdout + done.stderr + worker.log.read_text()[-2000:]
    assert "created bot mine" in done.stdout and "version 1: active" in done.stdout
    assert ", bot id " in done.stdout and "(version id " in done.stdout  # two ids, named
    bot.write_text(FIRST_LEGAL + "# version two\n")
    done = arena(env, "submit", str(bot), "--bot", "mine", "--game", "belote")
    assert done.returncode == 0 and "version 2: active" in done.stdout, done.stdout + done.stderr

    crasher = tmp_path / "crasher.py"
    crasher.write_text(CRASHES)
    done = arena(env, "submit", str(crasher), "--bot", "crasher", "--game", "belote")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "REJECTED: crash" in done.stdout and "my bug is here" in done.stdout

    done = arena(env, "challenge", "mine", "bob/theirs", "--param", "target=300", "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    match_id = int(done.stdout.split()[1])
    assert f"match {match_id} queued (unrated): mine vs bob/theirs\n" in done.stdout  # once
    assert f"match {match_id} finished" in done.stdout

    done = arena(env, "status")
    assert done.returncode == 0, done.stderr
    assert "mine" in done.stdout and "crasher" in done.stdout
    assert f"match {match_id} belote challenge finished (unrated)" in done.stdout

    done = arena(env, "replay", str(match_id), "-o", str(tmp_path / "full.json"))
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "full.json").read_text())["game"] == "belote"
    done = arena(env, "replay", str(match_id), "--seat", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    view = json.loads((tmp_path / f"replay-{match_id}-seat1.json").read_text())
    assert view["viewpoint"] == {"seat": 1}
    done = arena(env, "view", str(tmp_path / "full.json"))
    assert done.returncode == 0, done.stderr
    assert rival.pk  # the opponent was resolved by OWNER/NAME


@pytest.mark.parametrize(
    ("args", "extra_env", "stdin", "code", "words"),
    [
        (["status"], {}, "", 4, "not logged in"),
        (["status"], {"ARENA_TOKEN": "bogus"}, "", 4, "Invalid token"),
        (["status"], {"ARENA_TOKEN": "x", "ARENA_URL": "http://127.0.0.1:1"}, "", 3,
         "cannot reach"),
        (["login", "--username", "ada", "--password-stdin"], {}, "wrong\n", 4,
         "wrong username or password"),
        (["replay", "999999"], {}, "", 1, "Not found"),
    ],
)  # fmt: skip
def test_errors_are_one_line_with_an_exit_code(
    env: dict[str, str], args: list[str], extra_env: dict[str, str], stdin: str, code: int,
    words: str,
) -> None:  # fmt: skip
    User.objects.create_user("ada", password="ada-secret-pw")
    done = arena(env | extra_env, *args, stdin=stdin)
    assert done.returncode == code, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert words.lower() in done.stderr.lower()
