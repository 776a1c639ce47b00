"""Access control and hardening of the site: a permission matrix over the pages, CSRF on every
form, rate limits, security headers (CSP without inline scripts, frame denial), Django's password
validators on sign-up and ``manage.py check --deploy`` clean with production settings."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings

from tests.platform.api_fixtures import World, world_fixture  # noqa: F401
from tests.platform.factories import FIRST_LEGAL

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "a-long-Unusual-passphrase-42"


def client_for(world: World, persona: str, *, enforce_csrf_checks: bool = False) -> Client:
    client = Client(enforce_csrf_checks=enforce_csrf_checks)
    if persona != "anonymous":
        client.force_login(world.users[persona])
    return client


Page = tuple[str, Callable[[World], str], tuple[int, int, int, int]]

# page -> expected status for anonymous, owner, other, staff (302: to the log-in page)
PAGES: list[Page] = [
    ("home", lambda w: "/", (200, 200, 200, 200)),
    ("ladder", lambda w: "/ladder/belote/", (200, 200, 200, 200)),
    ("bot page", lambda w: f"/bots/{w.bot.pk}/", (200, 200, 200, 200)),
    ("bot logs", lambda w: f"/bots/{w.bot.pk}/logs/", (302, 200, 404, 404)),
    ("new bot", lambda w: "/bots/new/", (302, 200, 200, 200)),
    ("tournaments", lambda w: "/tournaments/", (200, 200, 200, 200)),
    ("new tournament", lambda w: "/tournaments/new/", (302, 200, 200, 200)),
    ("match", lambda w: f"/matches/{w.match.pk}/", (200, 200, 200, 200)),
    ("replay", lambda w: f"/matches/{w.match.pk}/replay.json", (200, 200, 200, 200)),
    ("rules", lambda w: "/rules/belote/", (200, 200, 200, 200)),
    ("sign up", lambda w: "/accounts/signup/", (200, 200, 200, 200)),
    ("log in", lambda w: "/accounts/login/", (200, 200, 200, 200)),
]  # fmt: skip


@pytest.mark.parametrize("persona", ["anonymous", "owner", "other", "staff"])
def test_page_permission_matrix(world: World, persona: str) -> None:
    index = ["anonymous", "owner", "other", "staff"].index(persona)
    client = client_for(world, persona)
    got = {name: client.get(url(world)).status_code for name, url, _codes in PAGES}
    assert got == {name: codes[index] for name, _url, codes in PAGES}
    page = client.get(f"/bots/{world.bot.pk}/").content.decode()
    owner_forms = (f'action="/bots/{world.bot.pk}/versions/"', f"/bots/{world.bot.pk}/logs/")
    assert all((form in page) == (persona == "owner") for form in owner_forms)


def forms(world: World) -> list[tuple[str, dict[str, object]]]:
    """Every form of the site (URL, a valid-looking body)."""
    return [
        ("/accounts/signup/", {"username": "newcomer", "password1": PASSWORD,
                               "password2": PASSWORD}),
        ("/accounts/login/", {"username": "olga", "password": PASSWORD}),
        ("/accounts/logout/", {}),
        ("/bots/new/", {"name": "x", "game": "belote",
                        "file": SimpleUploadedFile("bot.py", FIRST_LEGAL.encode())}),
        (f"/bots/{world.bot.pk}/versions/",
         {"file": SimpleUploadedFile("bot.py", FIRST_LEGAL.encode() + b"#2\n")}),
        (f"/bots/{world.bot.pk}/challenge/", {"opponents": [world.rival.pk]}),
        ("/tournaments/new/", {"name": "t", "game": "belote", "rounds": 1,
                               "bots": [world.bot.pk, world.rival.pk]}),
    ]  # fmt: skip


def test_every_form_refuses_a_post_without_the_csrf_token(world: World) -> None:
    client = client_for(world, "owner", enforce_csrf_checks=True)
    for url, body in forms(world):
        assert client.post(url, body).status_code == 403, url
    assert not User.objects.filter(username="newcomer").exists()


def test_pages_send_a_csp_without_inline_scripts_and_deny_framing(world: World) -> None:
    for url in ("/", f"/matches/{world.match.pk}/", "/api/docs/", "/accounts/login/"):
        response = Client().get(url)
        policy = response["Content-Security-Policy"]
        script_src = re.search(r"script-src ([^;]*)", policy)
        assert script_src and "unsafe-inline" not in script_src.group(1), url
        assert "frame-ancestors 'none'" in policy
        assert response["X-Frame-Options"] == "DENY"
        assert response["X-Content-Type-Options"] == "nosniff"
        body = response.content.decode()
        # only external scripts and JSON data blocks: nothing the CSP would have to block
        for tag in re.findall(r"<script\b[^>]*>", body):
            assert "src=" in tag or 'type="application/json"' in tag, (url, tag)
        assert not re.search(r"\son[a-z]+\s*=", body), url


def test_templates_hold_no_inline_script_or_event_handler() -> None:
    for path in (ROOT / "platform" / "templates").rglob("*.html"):
        text = path.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            assert "src=" in tag, (path, tag)
        assert not re.search(r"\son[a-z]+\s*=", text), path


def test_sign_up_applies_djangos_password_validators(client: Client, db: None) -> None:
    for weak in ("password", "12345678", "short", "newcomer1"):
        response = client.post("/accounts/signup/", {
            "username": "newcomer", "password1": weak, "password2": weak})  # fmt: skip
        assert response.status_code == 400, weak
    assert not User.objects.filter(username="newcomer").exists()


@override_settings(ARENA_SIGNUPS_PER_HOUR=2)
def test_sign_ups_are_rate_limited_per_address(client: Client, db: None) -> None:
    codes = []
    for n in range(3):
        client.logout()
        codes.append(client.post("/accounts/signup/", {
            "username": f"user{n}", "password1": PASSWORD, "password2": PASSWORD,
        }).status_code)  # fmt: skip
    assert codes == [302, 302, 429]
    assert User.objects.filter(username__startswith="user").count() == 2


@override_settings(ARENA_LOGINS_PER_HOUR=3)
def test_page_log_ins_are_rate_limited_per_address(client: Client, db: None) -> None:
    User.objects.create_user("olga", password=PASSWORD)
    codes = [client.post("/accounts/login/", {"username": "olga", "password": "wrong"}).status_code
             for _ in range(3)]  # fmt: skip
    assert codes == [200, 200, 200]  # the form again, with its error
    right = client.post("/accounts/login/", {"username": "olga", "password": PASSWORD})
    assert right.status_code == 429 and "_auth_user_id" not in client.session


@override_settings(ARENA_UPLOADS_PER_HOUR=2)
def test_uploads_are_rate_limited_per_user_on_the_api_and_the_pages(
    world: World, held_matches: list[int]
) -> None:
    api = world.client("owner")
    codes = [
        api.post(f"/api/bots/{world.bot.pk}/versions/",
                 {"file": SimpleUploadedFile("bot.py", f"{FIRST_LEGAL}#{n}\n".encode())},
                 format="multipart").status_code
        for n in range(3)
    ]  # fmt: skip
    assert codes == [201, 201, 429]
    assert api.post(f"/api/bots/{world.bot.pk}/versions/", {}, format="multipart").json()[
        "error"]["code"] == "rate_limited"  # fmt: skip
    page = client_for(world, "owner")
    response = page.post(f"/bots/{world.bot.pk}/versions/",
                         {"file": SimpleUploadedFile("bot.py", b"print(1)\n#x")})  # fmt: skip
    assert response.status_code == 429
    assert world.bot.versions.count() == 3  # the fixture's and two uploads


def test_challenges_are_rate_limited(world: World, held_matches: list[int]) -> None:
    api = world.client("owner")
    with override_settings(ARENA_CHALLENGES_PER_HOUR=1):
        body = {"bot": world.bot.pk, "opponents": [world.rival.pk]}
        codes = [api.post("/api/challenges/", body, format="json").status_code for _ in range(2)]
    assert codes == [201, 429]


def test_check_deploy_is_clean_with_production_settings(tmp_path: Path) -> None:
    env = os.environ | {
        "DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(50), "ALLOWED_HOSTS": "arena.example",
        "ARENA_HTTPS": "1", "DATABASE_URL": f"sqlite:///{tmp_path}/deploy.sqlite3",
    }  # fmt: skip
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_api_token_requests_are_rate_limited_per_address(db: None) -> None:
    """DRF's "login" throttle: ARENA_TOKENS_PER_MINUTE (30) requests, then 429."""
    from rest_framework.test import APIClient

    User.objects.create_user("olga", password=PASSWORD)
    client = APIClient()
    body = {"username": "olga", "password": "wrong", "name": "t"}
    codes = [client.post("/api/auth/token/", body, format="json").status_code for _ in range(31)]
    assert codes == [400] * 30 + [429]
    assert client.post("/api/auth/token/", {**body, "password": PASSWORD},
                       format="json").status_code == 429  # fmt: skip
