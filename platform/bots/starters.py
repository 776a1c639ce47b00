"""Starter kits: the bundled example bots (``examples/``) as ready-to-upload zip packages.

Each kit is one folder with a ``bot.toml`` (the manifest the upload checks read), the bot's
source and a short README naming the game, the local commands to try it and the pages to read
next. The zips are built from ``examples/`` when first asked for and kept in memory: the same
files the repository's own tests validate, so a kit the site offers is a kit that plays.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from django.conf import settings

EXAMPLES = Path(settings.BASE_DIR) / "examples"
#: every file of a kit gets this date, so a kit's bytes depend on its sources only
ZIP_DATE = (2026, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Kit:
    key: str
    language: str  # what the author writes in
    runtime: str  # bot.toml's runtime
    what: str  # one line, English (the page translates its own copy)
    folder: str | None  # an example folder holding a bot.toml, or None: ``<game>/<file>``
    file: str | None = None  # the game's own example file, for per-game kits


KITS: tuple[Kit, ...] = (
    Kit("python-minimal", "Python", "python3", "the protocol explained line by line", None,
        "minimal.py"),
    Kit("python-heuristic", "Python", "python3", "a reasonable player that beats random", None,
        "heuristic.py"),
    Kit("python-numpy", "Python + numpy", "python3", "numpy and a vendored module", "numpy"),
    Kit("node-random", "JavaScript (Node.js)", "node", "a random player", "random-node"),
    Kit("cpp", "C++", "cpp", "a commented minimal bot, compiled on upload", "cpp"),
)  # fmt: skip
KITS_BY_KEY = {kit.key: kit for kit in KITS}


def kit_zip(*, game: str, key: str) -> bytes:
    """The kit ``key`` for ``game`` as a zip (``KeyError`` for an unknown kit)."""
    return _build(game, KITS_BY_KEY[key])


@lru_cache(maxsize=64)
def _build(game: str, kit: Kit) -> bytes:
    folder = f"{game}-{kit.key}"
    files: dict[str, bytes] = {}
    if kit.folder is not None:
        source = EXAMPLES / kit.folder
        for path in sorted(p for p in source.rglob("*") if p.is_file()):
            if "__pycache__" not in path.parts:
                files[path.relative_to(source).as_posix()] = path.read_bytes()
    else:
        assert kit.file is not None
        entry = "bot.py"
        files[entry] = (EXAMPLES / game / kit.file).read_bytes()
        files["bot.toml"] = (
            f'name = "{game}-{kit.key}"\nruntime = "{kit.runtime}"\nentry = "{entry}"\n'
        ).encode()
    files["README.md"] = _readme(game, kit).encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in sorted(files.items()):
            info = zipfile.ZipInfo(f"{folder}/{name}", date_time=ZIP_DATE)
            info.external_attr = 0o644 << 16
            archive.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def _readme(game: str, kit: Kit) -> str:
    return f"""# A {kit.language} starter bot for {game.capitalize()}

{kit.what.capitalize()}. Runtime `{kit.runtime}` (see `bot.toml`).

Try it locally, in the same sandbox the platform uses (`pip install card-arena` from the
repository gives the `arena` command):

    arena validate . --game {game}
    arena play {game} . builtin:heuristic --duplicate --matches 10

Upload it: zip this folder (or use this very zip) on the site's "New bot" page, or

    arena submit . --bot my-{game}-bot --game {game}

Read next: the rules of {game.capitalize()} (/rules/{game}/) and the bot protocol
(/docs/protocol/): one JSON object per line on stdin, one per line on stdout, debugging output
on stderr.
"""
