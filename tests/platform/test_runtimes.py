"""Runtimes on the platform (issue 17): ``GET /api/runtimes/``, C++ versions compiled once at
validation (the executable stored content-addressed, then what every match runs), and a compile
error's messages kept for the version's owner only."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

import bots.builds
from api.services import token_create
from bots.models import BUILD_FILENAME, Bot, BotVersion, BotVersionStatus, Build, Package
from bots.services import bot_create_with_version
from matches.models import MatchStatus
from sandbox import pysci
from sandbox.compile import CompileError, toolchain
from sandbox.elf import elf_interpreter
from sandbox.runtimes import RuntimeUnavailable
from tests.platform.conftest import unavailable
from tests.platform.factories import UserFactory, active_bot
from tests.platform.test_matches import queued_match

KIT = Path(settings.BASE_DIR) / "examples" / "cpp" / "bot.cpp"
BROKEN = b"#include <vector>\nint main() { return secret_identifier_42; }\n"


@pytest.fixture
def compiler() -> None:
    try:
        toolchain()
    except RuntimeUnavailable as err:
        unavailable(str(err))


@pytest.mark.django_db
def test_runtimes_endpoint_lists_every_runtime_with_versions(client: Any) -> None:
    body = client.get("/api/runtimes/").json()
    runtimes = {r["name"]: r for r in body["results"]}
    assert list(runtimes) == ["python3", "node", "native", "cpp"]
    python = runtimes["python3"]
    assert python["available"] and python["version"].startswith("CPython 3.")
    [numpy] = python["libraries"]
    assert numpy["name"] == "numpy" and pysci.PINS[0].partition("==")[2] in numpy["version"]
    if runtimes["cpp"]["available"]:
        assert "-O2 -std=c++20" in runtimes["cpp"]["version"]
        assert "nlohmann/json" in [lib["name"] for lib in runtimes["cpp"]["libraries"]]


def _upload(owner: Any, name: str, data: bytes, filename: str = "bot.cpp") -> BotVersion:
    version = bot_create_with_version(
        owner=owner, name=name, game="belote", chunks=[data], filename=filename
    )
    version.refresh_from_db()  # inline execution: validated on commit
    return version


@pytest.mark.django_db(transaction=True)
def test_a_cpp_version_compiles_once_and_its_executable_plays(
    compiler: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The starter kit validates; the same sources uploaded by someone else reuse the build
    (the compiler does not run again); a match between them runs the stored executable on a
    worker whose package cache is empty."""
    calls: list[str] = []
    real = bots.builds.compile_sources

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append("compile")
        return real(*args, **kwargs)

    monkeypatch.setattr(bots.builds, "compile_sources", counting)
    data = KIT.read_bytes()
    first = _upload(UserFactory(), "cpp-one", data)
    assert (first.status, first.runtime, first.fault) == (BotVersionStatus.ACTIVE, "cpp", "")
    second = _upload(UserFactory(), "cpp-two", data)
    assert second.status == BotVersionStatus.ACTIVE
    assert calls == ["compile"]
    assert first.build_id == second.build_id is not None
    build = Build.objects.get()
    assert build.source_id == first.sha256 and build.toolchain == toolchain().identity
    binary = Package.objects.get(pk=build.binary_id)
    assert first.run_package == (binary.sha256, BUILD_FILENAME)
    path = Path(settings.ARENA_PACKAGE_CACHE) / binary.sha256 / BUILD_FILENAME
    assert elf_interpreter(path) is None  # static
    shutil.rmtree(settings.ARENA_PACKAGE_CACHE)  # a fresh worker: everything from the database
    match = queued_match("belote", [Bot.objects.get(name="cpp-one"), active_bot("belote")])
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED, match.error
    assert set(match.seats.values_list("fault", flat=True)) == {""}
    assert calls == ["compile"]


@pytest.mark.django_db(transaction=True)
def test_a_compile_error_rejects_the_version_and_only_its_owner_reads_the_messages(
    compiler: None,
) -> None:
    owner, other = UserFactory(), UserFactory()
    version = _upload(owner, "broken", BROKEN)
    assert version.status == BotVersionStatus.REJECTED and version.fault == "compile_error"
    assert "secret_identifier_42" in version.log
    assert "secret_identifier_42" not in version.reason
    assert version.build_id is None and not Build.objects.exists()
    clients = {}
    for name, user in (("owner", owner), ("other", other)):
        clients[name] = APIClient()
        secret = token_create(user=user, name="tests")[1]
        clients[name].credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    public = clients["other"].get(f"/api/bots/{version.bot_id}/")
    assert public.status_code == 200 and "secret_identifier_42" not in public.content.decode()
    assert "compile" in public.json()["versions"][0]["reason"]
    log_url = f"/api/bots/{version.bot_id}/versions/{version.pk}/log/"
    assert clients["other"].get(log_url).status_code == 404
    mine = clients["owner"].get(log_url).json()
    assert mine["fault"] == "compile_error" and "secret_identifier_42" in mine["log"]


def test_compile_errors_are_package_errors_with_a_separate_log() -> None:
    error = CompileError("the C++ sources did not compile (exit 1)", "bot.cpp:1: error: x")
    assert str(error).endswith("bot.cpp:1: error: x") and "error: x" not in error.reason
