"""Who may call what: every endpoint × {anonymous, owner, other user, staff}, the expected
status codes written down as a table. Private objects answer 404 to those who may not see them;
writes to someone else's public bot answer 403."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from api.models import ApiToken
from tests.platform.api_fixtures import PERSONAS, World, world_fixture  # noqa: F401
from tests.platform.factories import FIRST_LEGAL

_n = itertools.count()


def bot_file() -> SimpleUploadedFile:
    return SimpleUploadedFile("bot.py", f"{FIRST_LEGAL}# {next(_n)}\n".encode())


def new_bot() -> dict[str, Any]:
    return {"name": f"new{next(_n)}", "game": "belote", "file": bot_file()}


def owner_token(w: World) -> int:
    return ApiToken.objects.get(token__user=w.users["owner"]).pk


def both(w: World) -> list[int]:
    return [w.bot.pk, w.rival.pk]


Request = Callable[[World], tuple[str, str, dict[str, Any] | None, str]]

# (method, path, body, format) built from the world; then the codes for
# anonymous, owner, other, staff
MATRIX: list[tuple[str, Request, tuple[int, int, int, int]]] = [
    ("list tokens", lambda w: ("get", "/api/auth/tokens/", None, ""), (401, 200, 200, 200)),
    ("revoke the owner's token",
     lambda w: ("delete", f"/api/auth/tokens/{owner_token(w)}/", None, ""), (401, 204, 404, 404)),
    ("games", lambda w: ("get", "/api/games/", None, ""), (200, 200, 200, 200)),
    ("list bots", lambda w: ("get", "/api/bots/", None, ""), (200, 200, 200, 200)),
    ("create a bot",
     lambda w: ("post", "/api/bots/", new_bot(), "multipart"),
     (401, 201, 201, 201)),
    ("a bot", lambda w: ("get", f"/api/bots/{w.bot.pk}/", None, ""), (200, 200, 200, 200)),
    ("upload a version",
     lambda w: ("post", f"/api/bots/{w.bot.pk}/versions/", {"file": bot_file()}, "multipart"),
     (401, 201, 403, 403)),
    ("a version's private log",
     lambda w: ("get", f"/api/bots/{w.bot.pk}/versions/{w.version.pk}/log/", None, ""),
     (401, 200, 404, 200)),
    ("create a tournament",
     lambda w: ("post", "/api/tournaments/", {"game": "belote", "bots": both(w)}, "json"),
     (401, 201, 201, 201)),
    ("list tournaments", lambda w: ("get", "/api/tournaments/", None, ""), (200, 200, 200, 200)),
    ("list matches", lambda w: ("get", f"/api/matches/?bot={w.bot.pk}", None, ""),
     (200, 200, 200, 200)),
    ("a match", lambda w: ("get", f"/api/matches/{w.match.pk}/", None, ""),
     (200, 200, 200, 200)),
    ("a replay", lambda w: ("get", f"/api/matches/{w.match.pk}/replay/", None, ""),
     (200, 200, 200, 200)),
    ("a seat's replay", lambda w: ("get", f"/api/matches/{w.match.pk}/replay/?seat=1", None, ""),
     (200, 200, 200, 200)),
    ("challenge with the owner's bot",
     lambda w: ("post", "/api/challenges/", {"bot": w.bot.pk, "opponents": [w.rival.pk]},
                "json"),
     (401, 201, 400, 400)),
    ("a ladder", lambda w: ("get", "/api/ladders/belote/", None, ""), (200, 200, 200, 200)),
    ("a rating history",
     lambda w: ("get", f"/api/ladders/belote/history/?bot={w.bot.pk}", None, ""),
     (200, 200, 200, 200)),
    ("ladder strengths", lambda w: ("get", "/api/ladders/belote/strengths/", None, ""),
     (200, 200, 200, 200)),
    ("seat fairness", lambda w: ("get", "/api/ladders/belote/fairness/", None, ""),
     (200, 200, 200, 200)),
    ("the schema", lambda w: ("get", "/api/schema/", None, ""), (200, 200, 200, 200)),
    ("the documentation page", lambda w: ("get", "/api/docs/", None, ""), (200, 200, 200, 200)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("endpoint", "persona"),
    [(name, persona) for name, _, _ in MATRIX for persona in PERSONAS],
)
def test_permission_matrix(world: World, endpoint: str, persona: str) -> None:
    build, codes = next((b, c) for n, b, c in MATRIX if n == endpoint)
    method, path, body, fmt = build(world)
    client = world.client(persona)
    kwargs: dict[str, Any] = {"format": fmt} if fmt else {}
    response = getattr(client, method)(path, body, **kwargs)
    expected = codes[PERSONAS.index(persona)]
    assert response.status_code == expected, (endpoint, persona, response.content[:300])
    if expected >= 400:
        error = response.json()["error"]
        assert error["code"] and error["message"]


def test_a_revoked_token_no_longer_authenticates(world: World) -> None:
    client = world.client("owner")
    [token] = client.get("/api/auth/tokens/").json()["results"]
    assert client.delete(f"/api/auth/tokens/{token['id']}/").status_code == 204
    response = client.get("/api/auth/tokens/")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"
