"""API behaviour: the error envelope for every kind of bad input (never a 500), upload caps,
tokens, games, challenges (unranked, rate-limited), replays and pagination."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import override_settings

from bots.models import Bot, BotVersionStatus
from bots.services import MAX_UPLOAD_BYTES
from matches.models import Challenge, Match, MatchOrigin
from tests.platform.api_fixtures import World, world_fixture  # noqa: F401
from tests.platform.factories import FIRST_LEGAL, active_bot, add_version


def error_of(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content[:500]
    error: dict[str, Any] = response.json()["error"]
    return error


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data)


# Partitions for: bad input. Each row: the request, the status, the error code, the field named
# and words the message must contain.
BAD_INPUT = [
    ("unknown game", "post", "/api/bots/",
     lambda w: {"name": "x", "game": "poker", "file": upload("bot.py", FIRST_LEGAL.encode())},
     "multipart", 400, "unknown_game", "game", "poker"),
    ("no file", "post", "/api/bots/", lambda w: {"name": "x", "game": "belote"}, "multipart",
     400, "invalid", "file", "file"),
    ("a package the sandbox refuses", "post", "/api/bots/",
     lambda w: {"name": "x", "game": "belote", "file": upload("notes.txt", b"hello")},
     "multipart", 400, "bad_package", "file", "cannot tell the runtime"),
    ("a bad bot name", "post", "/api/bots/",
     lambda w: {"name": "bad name!", "game": "belote", "file": upload("b.py", b"x=1\n")},
     "multipart", 400, "invalid_name", "name", "letters"),
    ("a taken bot name", "post", "/api/bots/",
     lambda w: {"name": "mine", "game": "belote", "file": upload("b.py", b"x=2\n")},
     "multipart", 409, "duplicate_name", "name", "mine"),
    ("the same bytes again", "post", "/api/bots/{bot}/versions/",
     lambda w: {"file": upload("bot.py", bytes(w.version.package.data))}, "multipart",
     409, "duplicate_version", "file", "version 1"),
    ("JSON instead of a form", "post", "/api/bots/", lambda w: {"name": "x"}, "json", 415,
     "unsupported_media_type", None, "application/json"),
    ("bad params, naming the param", "post", "/api/tournaments/",
     lambda w: {"game": "belote", "bots": [w.bot.pk, w.rival.pk], "params": {"targett": 5}},
     "json", 400, "invalid_params", "params", "targett"),
    ("a param out of range", "post", "/api/tournaments/",
     lambda w: {"game": "belote", "bots": [w.bot.pk, w.rival.pk], "params": {"target": 0}},
     "json", 400, "invalid_params", "params", "target"),
    ("unknown tournament game", "post", "/api/tournaments/",
     lambda w: {"game": "poker", "bots": [w.bot.pk]}, "json", 400, "unknown_game", "game",
     "poker"),
    ("too few bots for the format", "post", "/api/tournaments/",
     lambda w: {"game": "belote", "bots": [w.bot.pk]}, "json", 400, "too_few_bots", "bots", ""),
    ("a bot of another game", "post", "/api/tournaments/",
     lambda w: {"game": "belote", "bots": [w.bot.pk, active_bot("barbu").pk]}, "json", 400,
     "invalid_bots", "bots", "plays barbu"),
    ("a rejected version", "post", "/api/tournaments/",
     lambda w: {"game": "belote", "bots": [w.bot.pk, rejected_bot().pk]}, "json", 400,
     "invalid_bots", "bots", "no validated version"),
    ("bots not a list", "post", "/api/tournaments/",
     lambda w: {"game": "belote", "bots": "1,2"}, "json", 400, "invalid", "bots", ""),
    ("malformed JSON", "post", "/api/tournaments/", lambda w: "{nope", "raw", 400,
     "parse_error", None, "JSON"),
    ("a bad status filter", "get", "/api/matches/?status=won", lambda w: None, "", 400,
     "invalid", "status", "won"),
    ("a bad seat", "get", "/api/matches/{match}/replay/?seat=7", lambda w: None, "", 400,
     "invalid_seat", "seat", "0 to 3"),
    ("a negative seat", "get", "/api/matches/{match}/replay/?seat=-1", lambda w: None, "", 400,
     "invalid", "seat", ""),
    ("an unknown ladder", "get", "/api/ladders/poker/", lambda w: None, "", 404, "not_found",
     None, "poker"),
    ("history without a bot", "get", "/api/ladders/belote/history/", lambda w: None, "", 400,
     "invalid", "bot", "required"),
    ("history of another game's bot", "get", "/api/ladders/barbu/history/?bot={bot}",
     lambda w: None, "", 400, "wrong_game", "bot", "plays belote"),
    ("too few opponents", "post", "/api/challenges/",
     lambda w: {"bot": w.bot.pk, "opponents": [w.rival.pk], "params": {"target": "x"}}, "json",
     400, "invalid_params", "params", "target"),
    ("a challenge of the wrong size", "post", "/api/challenges/",
     lambda w: {"bot": w.bot.pk, "opponents": [w.rival.pk, active_bot().pk]}, "json", 400,
     "wrong_number_of_bots", "opponents", "1 opponent"),
    ("a challenge against itself", "post", "/api/challenges/",
     lambda w: {"bot": w.bot.pk, "opponents": [w.bot.pk]}, "json", 400, "duplicate_bot",
     "opponents", "own opponent"),
]  # fmt: skip


def rejected_bot() -> Bot:
    bot = active_bot("belote")
    bot.current_version = None
    bot.save()
    add_version(bot, status=BotVersionStatus.REJECTED)
    return bot


@pytest.mark.parametrize("row", BAD_INPUT, ids=[r[0] for r in BAD_INPUT])
def test_bad_input_gets_a_clear_error(world: World, row: tuple[Any, ...]) -> None:
    _, method, path, body, fmt, status, code, field, words = row
    client = world.client("owner")
    url = path.format(bot=world.bot.pk, match=world.match.pk)
    data = body(world)
    if fmt == "raw":
        response = client.generic(method.upper(), url, data, content_type="application/json")
    else:
        response = getattr(client, method)(url, data, **({"format": fmt} if fmt else {}))
    error = error_of(response, status)
    assert error["code"] == code
    assert words.lower() in error["message"].lower()
    if field is not None:
        assert field in error["fields"], error


def test_oversized_uploads_are_refused_and_leave_nothing(world: World) -> None:
    client = world.client("owner")
    bots_before = Bot.objects.count()
    # over the cap by a little: the streaming handler stops it; by a lot: its length does
    for size in (MAX_UPLOAD_BYTES + 1, MAX_UPLOAD_BYTES + 200_000):
        response = client.post(
            "/api/bots/", {"name": "huge", "game": "belote", "file": upload("b.py", b"#" * size)},
            format="multipart",
        )  # fmt: skip
        error = error_of(response, 413)
        assert error["code"] == "too_large" and "MiB" in error["message"]
    assert Bot.objects.count() == bots_before


def test_tokens_are_named_listed_and_wrong_passwords_refused(world: World) -> None:
    owner = world.users["owner"]
    owner.set_password("a-long-password")
    owner.save()
    client = world.client("anonymous")
    form = client.post("/api/auth/token/", {"username": owner.username, "password": "x"})
    assert error_of(form, 415)["code"] == "unsupported_media_type"  # bodies are JSON
    error = error_of(client.post("/api/auth/token/", {"username": owner.username,
                                                      "password": "nope"}, format="json"),
                     400)  # fmt: skip
    assert error["code"] == "invalid_credentials"
    credentials = {"username": owner.username, "password": "a-long-password", "name": "ci"}
    made = client.post("/api/auth/token/", credentials, format="json")
    assert made.status_code == 201 and made.json()["token"] and made.json()["expiry"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {made.json()['token']}")
    names = [t["name"] for t in client.get("/api/auth/tokens/").json()["results"]]
    assert names == ["ci", "tests"]
    assert "token" not in client.get("/api/auth/tokens/").json()["results"][0]


def test_games_describe_every_param(world: World) -> None:
    games = world.client("anonymous").get("/api/games/").json()["results"]
    assert [g["name"] for g in games] == ["badugi", "barbu", "bauer", "belote"]
    for game in games:
        assert game["rules_url"].endswith(f"/rules/{game['name']}/")
        for param in game["params"]:
            assert param["type"] in ("boolean", "integer", "string") and param["meaning"]
            assert (param["choices"] is not None) or (param["minimum"] is not None), param
    badugi = games[0]
    assert badugi["seats"] == {"min": 2, "max": 6, "default": 2}
    players = next(p for p in badugi["params"] if p["name"] == "players")
    assert (players["default"], players["minimum"], players["maximum"]) == (2, 2, 6)
    mode = next(p for p in games[1]["params"] if p["name"] == "mode")
    assert mode["choices"] == ["base", "repeat", "geronimo"] and mode["default"] == "base"


def test_a_challenge_is_unranked_and_rate_limited(world: World) -> None:
    client = world.client("owner")
    body = {"bot": world.bot.pk, "opponents": [world.rival.pk], "params": {"target": 300}}
    with override_settings(ARENA_CHALLENGES_PER_HOUR=2):
        for _ in range(2):
            made = client.post("/api/challenges/", body, format="json")
            assert made.status_code == 201, made.content
            match = Match.objects.get(pk=made.json()["id"])
            assert (match.origin, match.ladder_id) == (MatchOrigin.CHALLENGE, None)
            assert [s["bot"]["id"] for s in made.json()["seats"]] == [
                world.bot.pk,
                world.rival.pk,
                world.bot.pk,
                world.rival.pk,
            ]
        error = error_of(client.post("/api/challenges/", body, format="json"), 429)
        assert error["code"] == "rate_limited"
        staff_bot = active_bot("belote", owner=world.users["staff"])
        staff = world.client("staff")
        for _ in range(3):  # staff are not limited
            body["bot"] = staff_bot.pk
            assert staff.post("/api/challenges/", body, format="json").status_code == 201
    assert Challenge.objects.filter(requested_by=world.users["owner"]).count() == 2


def test_a_replay_waits_for_the_end_of_its_match(world: World) -> None:
    client = world.client("anonymous")
    Match.objects.filter(pk=world.match.pk).update(status="running")
    error = error_of(client.get(f"/api/matches/{world.match.pk}/replay/"), 409)
    assert error["code"] == "not_finished"
    Match.objects.filter(pk=world.match.pk).update(status="error")
    assert error_of(client.get(f"/api/matches/{world.match.pk}/replay/"), 404)["code"] == (
        "no_replay"
    )


def test_a_seat_replay_hides_what_the_seat_did_not_know(world: World) -> None:
    client = world.client("anonymous")
    full = client.get(f"/api/matches/{world.match.pk}/replay/").json()
    view = client.get(f"/api/matches/{world.match.pk}/replay/?seat=2").json()
    assert full["seed"] is not None and view["seed"] is None
    deal, seen = full["games"][0]["deals"][0], view["games"][0]["deals"][0]
    assert "deck" in deal and "deck" not in seen
    assert seen["hands"][0] == ["??"] * len(seen["hands"][0])
    assert set(seen["hands"][2]) <= set(deal["hands"][2])


def test_lists_are_paginated(world: World) -> None:
    client = world.client("anonymous")
    for _ in range(2):
        client.force_authenticate(world.users["owner"])
        client.post("/api/challenges/", {"bot": world.bot.pk, "opponents": [world.rival.pk]},
                    format="json")  # fmt: skip
    page = client.get("/api/matches/?limit=2").json()
    assert len(page["results"]) == 2 and page["next"]
    rest = client.get(page["next"]).json()
    assert [m["id"] for m in rest["results"]] == [world.match.pk] and rest["next"] is None
    assert client.get("/api/bots/?limit=1").json()["count"] == 2


def test_the_schema_is_valid_without_warnings(tmp_path: Any) -> None:
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    schema = yaml.safe_load(target.read_text())
    assert "/api/matches/{id}/replay/" in schema["paths"]
    assert schema["components"]["securitySchemes"]  # the token scheme is documented
