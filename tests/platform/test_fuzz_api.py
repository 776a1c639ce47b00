"""The API fuzzed from its own OpenAPI schema: schemathesis, run against a live test server on
loopback (``/api/schema/``), as the owner persona. No request may get a 5xx and every response
must match the schema. Examples per operation are bounded so the run stays short."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from pytest_django.live_server_helper import LiveServer

from tests.platform.api_fixtures import World, world_fixture  # noqa: F401

EXAMPLES = 8


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(300)
def test_no_5xx_and_every_response_matches_the_schema(
    live_server: LiveServer, world: World, held_matches: list[int],
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:  # fmt: skip
    assert live_server.url.startswith("http://localhost:")  # loopback only
    monkeypatch.setattr("bots.services._enqueue_validation", lambda *a, **k: None)
    program = shutil.which("schemathesis", path=str(Path(sys.executable).parent))
    assert program, "schemathesis is in the dev extra"
    url = live_server.url + "/api/schema/"
    result = subprocess.run(
        [program, "run", url, "--checks", "not_a_server_error,response_schema_conformance",
         "--max-examples", str(EXAMPLES), "--header",
         f"Authorization: Token {world.tokens['owner']}",
         # /api/auth/tokens/ would revoke the token it runs with
         "--exclude-path-regex", "^/api/auth/tokens/",
         "--seed", "14", "--report-dir", str(tmp_path), "--no-color"],
        capture_output=True, text=True, timeout=280,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


def test_regression_the_games_list_is_described_as_the_paginated_list_it_is(
    client: Client, db: None
) -> None:
    """Found by schemathesis: /api/games/ answered a page but its schema said one game."""
    schema = client.get("/api/schema/?format=json").json()
    response = schema["paths"]["/api/games/"]["get"]["responses"]["200"]
    assert response["content"]["application/json"]["schema"]["$ref"].endswith("PaginatedGameList")
    assert set(client.get("/api/games/").json()) == {"count", "next", "previous", "results"}
