"""Every response carries a request id (``X-Request-ID``), and every 500 is logged to stderr
with its traceback under that id, which the error page or the API's error also names (issue 30).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
HEX_ID = re.compile(r"[0-9a-f]{32}")


def boom(*args: object, **kwargs: object) -> None:
    raise RuntimeError("boom: a bug of ours")


def test_every_response_has_a_request_id() -> None:
    response = Client().get("/api/health/live/")
    assert HEX_ID.fullmatch(response["X-Request-ID"])
    assert Client().get("/api/health/live/")["X-Request-ID"] != response["X-Request-ID"]
    # a proxy's id is kept (its access log and ours then agree); anything else is replaced
    kept = Client().get("/api/health/live/", HTTP_X_REQUEST_ID="nginx-0123abcd")
    assert kept["X-Request-ID"] == "nginx-0123abcd"
    forged = Client().get("/api/health/live/", HTTP_X_REQUEST_ID="<script>alert(1)</script>")
    assert HEX_ID.fullmatch(forged["X-Request-ID"])


def test_an_api_500_is_logged_with_the_id_its_answer_carries(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("api.views.games.games_describe", boom)
    response = Client(raise_request_exception=False).get("/api/games/")
    assert response.status_code == 500
    error = response.json()["error"]
    assert error["code"] == "server_error" and error["request_id"] == response["X-Request-ID"]
    logged = [r for r in caplog.records if r.name == "django.request" and r.exc_info]
    assert len(logged) == 1
    assert logged[0].request_id == error["request_id"]  # type: ignore[attr-defined]
    assert "boom" in str(logged[0].exc_info[1])  # type: ignore[index]


@pytest.mark.django_db
def test_a_page_500_names_its_request_id(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("web.views.ladder_leaders", boom)
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 500
    assert response["X-Request-ID"] in response.content.decode()


SCRIPT = """
import django
django.setup()
from unittest import mock
from django.test import Client

with mock.patch("api.views.games.games_describe", side_effect=RuntimeError("boom-api")):
    api = Client(raise_request_exception=False).get("/api/games/")
with mock.patch("web.views.ladder_leaders", side_effect=RuntimeError("boom-page")):
    page = Client(raise_request_exception=False).get("/")
print(api.status_code, api["X-Request-ID"], page.status_code, page["X-Request-ID"])
"""


def test_with_debug_off_every_500_reaches_stderr_with_its_traceback(tmp_path: Path) -> None:
    """As deployed (DEBUG=0), where Django's own logging writes nothing."""
    env = os.environ | {
        "DJANGO_SETTINGS_MODULE": "arena.settings", "DEBUG": "0", "SECRET_KEY": "k" * 50,
        "ALLOWED_HOSTS": "testserver", "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
    }  # fmt: skip
    env.pop("ARENA_CACHE_URL", None)
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    api_status, api_id, page_status, page_id = done.stdout.split()
    assert (api_status, page_status) == ("500", "500")
    for rid, message in ((api_id, "boom-api"), (page_id, "boom-page")):
        line = next(x for x in done.stderr.splitlines() if f"[{rid}]" in x)
        assert "ERROR django.request" in line and "Internal Server Error" in line
        after = done.stderr[done.stderr.index(line) :]
        assert "Traceback (most recent call last)" in after
        assert f"RuntimeError: {message}" in after
