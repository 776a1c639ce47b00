"""The OpenAPI schema generates a working client (issue 30): ``openapi-python-client`` (a dev
dependency; it runs offline) generates a package from ``manage.py spectacular``'s schema, and
the generated code, unmodified, logs in for a token, uploads a bot, challenges, runs a
tournament, reads the ladder and downloads a replay against a live server. Before, each JSON
body was offered as JSON, form and multipart at once: the generated client sent every field
twice in one multipart body, and the challenge and tournament were refused."""

from __future__ import annotations

import importlib
import inspect
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

import pytest
from django.core.management import call_command

from tests.platform.factories import FIRST_LEGAL, UserFactory, active_bot

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.fixture
def generated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The generated client's package, importable."""
    schema = tmp_path / "schema.yaml"
    call_command("spectacular", "--file", str(schema))
    bin_dir = Path(sys.executable).parent  # its formatter (ruff) is the venv's
    done = subprocess.run(
        [str(bin_dir / "openapi-python-client"), "generate", "--path", str(schema),
         "--output-path", str(tmp_path / "client")],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env=os.environ | {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stdout + done.stderr, done.stdout + done.stderr
    monkeypatch.syspath_prepend(str(tmp_path / "client"))
    return importlib.import_module("card_arena_api_client")


def module(package: Any, name: str) -> Any:
    return importlib.import_module(f"{package.__name__}.{name}")


@pytest.mark.timeout(600)
def test_the_generated_client_works_unmodified(generated: Any, live_server: Any) -> None:
    client_module = module(generated, "client")
    models = module(generated, "models")
    types = module(generated, "types")
    api = {name: module(generated, f"api.{name}") for name in ("auth", "bots", "challenges",
                                                               "tournaments", "ladders",
                                                               "matches")}  # fmt: skip
    user = UserFactory(username="author")
    user.set_password("a long enough password")
    user.save()
    rival = active_bot("belote")

    # log in: the token endpoint takes no credentials but the body's, so the generated code
    # takes a client without a token for it
    token_create = module(generated, "api.auth.auth_token_create")
    client_type = inspect.signature(token_create.sync).parameters["client"].annotation
    assert set(get_args(client_type)) == {client_module.AuthenticatedClient, client_module.Client}
    anonymous = client_module.Client(base_url=live_server.url, raise_on_unexpected_status=True)
    login = token_create.sync(
        client=anonymous,
        body=models.TokenRequestRequest(username="author", password="a long enough password"),
    )
    assert isinstance(login, models.TokenCreated), login
    client = client_module.AuthenticatedClient(
        base_url=live_server.url, token=login.token, prefix="Token",
        raise_on_unexpected_status=True, timeout=120,
    )  # fmt: skip
    assert api["auth"]  # the package's modules import (they once failed: NameError: Unset)

    # upload a bot (multipart: the one body that is not JSON)
    upload = module(generated, "api.bots.bots_create").sync(
        client=client,
        body=models.BotCreateRequest(
            name="mine", game="belote",
            file=types.File(payload=io.BytesIO(FIRST_LEGAL.encode()), file_name="bot.py"),
        ),
    )  # fmt: skip
    assert isinstance(upload, models.BotCreated), upload
    detail = module(generated, "api.bots.bots_retrieve").sync(id=upload.id, client=client)
    assert detail.current_version.status == models.VersionStatusEnum.ACTIVE, detail

    # a challenge and a tournament: JSON bodies, each field sent once
    challenge = module(generated, "api.challenges.challenges_create").sync(
        client=client,
        body=models.ChallengeCreateRequest(bot=upload.id, opponents=[rival.pk]),
    )
    assert isinstance(challenge, models.Match), challenge
    tournament = module(generated, "api.tournaments.tournaments_create").sync(
        client=client,
        body=models.TournamentCreateRequest(game="belote", bots=[upload.id, rival.pk],
                                            name="generated"),
    )  # fmt: skip
    assert isinstance(tournament, models.Created), tournament
    shown = module(generated, "api.tournaments.tournaments_retrieve").sync(
        id=tournament.id, client=client
    )
    assert shown.name == "generated"

    # the ladder and a replay
    ladder = module(generated, "api.ladders.ladders_list").sync(game="belote", client=client)
    assert isinstance(ladder, models.PaginatedLadderRowList), ladder
    matches = module(generated, "api.matches.matches_list").sync(client=client, bot=upload.id)
    finished = [m for m in matches.results if m.status == models.MatchStatusEnum.FINISHED]
    assert finished, [m.status for m in matches.results]
    replay = module(generated, "api.matches.matches_replay_retrieve").sync(
        id=finished[0].id, client=client
    )
    assert replay["format"] == "card-arena-replay" and replay["game"] == "belote", replay
