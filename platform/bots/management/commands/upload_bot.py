from pathlib import Path

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.errors import ApplicationError
from bots.house import package_bytes
from bots.models import Bot, BotVersion
from bots.services import bot_create_with_version, botversion_create


class Command(BaseCommand):
    help = "Upload a bot file, .zip or folder as a new version of a user's bot (created if new)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument("--owner", required=True, help="username")
        parser.add_argument("--name", required=True, help="the bot's name")
        parser.add_argument("--game", required=True)

    def handle(
        self, *args: object, path: Path, owner: str, name: str, game: str, **options: object
    ) -> None:
        user = User.objects.filter(username=owner).first()
        if user is None:
            raise CommandError(f"no user {owner!r} (create it with create_author)")
        if not path.exists():
            raise CommandError(f"{path}: no such file or folder")
        data, filename = package_bytes(path)
        bot = Bot.objects.filter(owner=user, name=name).first()
        try:
            if bot is None:
                version = bot_create_with_version(
                    owner=user, name=name, game=game, chunks=[data], filename=filename
                )
            elif bot.game != game:
                raise CommandError(f"{bot} plays {bot.game}, not {game}")
            else:
                version = botversion_create(bot=bot, chunks=[data], filename=filename)
        except ApplicationError as err:
            raise CommandError(err.message) from None
        version = BotVersion.objects.get(pk=version.pk)
        self.stdout.write(f"{version}: {version.status} {version.reason}".rstrip())
