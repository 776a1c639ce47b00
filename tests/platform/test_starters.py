"""Starter kits from the site: the "Write a bot" page offers a zip per game and language, built
from ``examples/``; each names what may be uploaded from the table the upload checks use; and a
kit of every runtime, downloaded from the page, passes ``arena validate`` as it is."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from django.test import Client

from bots.starters import KITS
from sandbox import single_file_suffixes
from web.games import GAMES

ROOT = Path(__file__).resolve().parents[2]


def test_the_page_offers_every_kit_and_names_the_accepted_uploads(client: Client, db: None) -> None:
    html = client.get("/write-a-bot/").content.decode()
    for game in GAMES:
        assert f'href="/rules/{game.key}/"' in html
        for kit in KITS:
            assert f'href="/write-a-bot/{game.key}/{kit.key}.zip"' in html
    assert single_file_suffixes() in html and ".cpp" in html and ".js" in html
    assert 'href="/docs/protocol/"' in html
    assert 'href="/write-a-bot/"' in client.get("/").content.decode()  # the menu links it
    assert client.get("/write-a-bot/belote/nope.zip").status_code == 404
    assert client.get("/write-a-bot/chess/cpp.zip").status_code == 404


def test_each_kit_is_a_package_with_its_manifest_and_readme(client: Client) -> None:
    for game in GAMES:
        for kit in KITS:
            response = client.get(f"/write-a-bot/{game.key}/{kit.key}.zip")
            assert response.status_code == 200 and response["Content-Type"] == "application/zip"
            names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
            folder = f"{game.key}-{kit.key}"
            assert f"{folder}/bot.toml" in names and f"{folder}/README.md" in names, names
            assert all(name.startswith(folder + "/") for name in names)


@pytest.mark.parametrize(
    ("game", "kit"),
    [("belote", "python-minimal"), ("bauer", "python-heuristic"), ("barbu", "node-random"),
     ("badugi", "python-numpy"), ("belote", "cpp")],
)  # fmt: skip
def test_a_downloaded_kit_validates_as_it_is(
    client: Client, tmp_path: Path, game: str, kit: str
) -> None:
    data = client.get(f"/write-a-bot/{game}/{kit}.zip").content
    package = tmp_path / f"{game}-{kit}.zip"
    package.write_bytes(data)
    arena = Path(sys.executable).with_name("arena")
    env = os.environ | {"ARENA_SANDBOX_CGROUPS": "auto", "ARENA_BUILD_CACHE": str(tmp_path)}
    done = subprocess.run([str(arena), "validate", str(package), "--game", game],
                          capture_output=True, text=True, timeout=600, env=env)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "OK: no faults" in done.stdout
