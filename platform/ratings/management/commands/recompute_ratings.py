import time

from django.core.management.base import BaseCommand, CommandParser

from ratings.models import Ladder
from ratings.services import ladder_recompute


class Command(BaseCommand):
    help = "Rebuild every ladder's ratings and history from the recorded match results."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", action="append", help="only this game's ladder")

    def handle(self, *args: object, game: list[str] | None, **options: object) -> None:
        ladders = Ladder.objects.all()
        if game:
            ladders = ladders.filter(game__in=game)
        for ladder in ladders:
            started = time.perf_counter()
            done = ladder_recompute(ladder_id=ladder.pk)
            elapsed = time.perf_counter() - started
            agreed = "it agreed" if not done.rewritten else f"{done.rewritten} rows rewritten"
            self.stdout.write(
                f"{ladder}: {done.matches} matches rated again in {elapsed:.2f} s; {agreed}"
            )
