from django.core.management.base import BaseCommand, CommandParser

from bots.house import house_load
from bots.models import BotVersion


class Command(BaseCommand):
    help = "Load the bundled example bots as the 'house' user's bots (idempotent)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", action="append", help="only this game (repeatable)")

    def handle(self, *args: object, game: list[str] | None, **options: object) -> None:
        for version in house_load(games=game):
            version = BotVersion.objects.get(pk=version.pk)  # validation may have run inline
            detail = f": {version.reason}" if version.reason else ""
            self.stdout.write(f"{version}: {version.status}{detail}")
