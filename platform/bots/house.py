"""The bundled example bots as the "house" user's bots: the first opponents on every ladder
and the quick start's tournament field. Loading is idempotent (same bytes, no new version)."""

from __future__ import annotations

import io
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User

import engine
from arena.errors import ApplicationError
from bots.models import Bot, BotVersion
from bots.services import bot_create, botversion_create

HOUSE_USERNAME = "house"
EXAMPLES = Path(settings.BASE_DIR) / "examples"


@dataclass(frozen=True)
class HouseBot:
    name: str  # without the game prefix
    source: Path  # a file, or a folder that is zipped


def house_bots(game: str) -> list[HouseBot]:
    """What the house fields in ``game``: the example heuristic and minimal bots and the
    packaged random bot (plus its Node.js twin where Node.js is installed)."""
    bots = [
        HouseBot("heuristic", EXAMPLES / game / "heuristic.py"),
        HouseBot("minimal", EXAMPLES / game / "minimal.py"),
        HouseBot("random", EXAMPLES / "random"),
    ]
    if shutil.which("node"):
        bots.append(HouseBot("random-node", EXAMPLES / "random-node"))
    return [b for b in bots if b.source.exists()]


def package_bytes(source: Path) -> tuple[bytes, str]:
    """The upload for ``source``: a file as it is, a folder as a reproducible zip."""
    if source.is_file():
        return source.read_bytes(), source.name
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in source.rglob("*") if p.is_file()):
            info = zipfile.ZipInfo(str(path.relative_to(source)), date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes(), zipfile.ZIP_DEFLATED)
    return buffer.getvalue(), f"{source.name}.zip"


def house_user() -> User:
    user, created = User.objects.get_or_create(username=HOUSE_USERNAME)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def house_load(*, games: list[str] | None = None) -> list[BotVersion]:
    """Create (or update) the house bots of ``games`` (default: all); the versions created."""
    owner = house_user()
    created: list[BotVersion] = []
    for game in games or engine.available_games():
        for spec in house_bots(game):
            name = f"{game}-{spec.name}"
            bot = Bot.objects.filter(owner=owner, name=name).first()
            if bot is None:
                bot = bot_create(owner=owner, name=name, game=game)
            data, filename = package_bytes(spec.source)
            try:
                created.append(botversion_create(bot=bot, chunks=[data], filename=filename))
            except ApplicationError as err:
                if err.code != "duplicate_version":
                    raise
    return created
