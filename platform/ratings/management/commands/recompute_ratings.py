import time
from collections.abc import Callable, Iterable

from django.core.management.base import BaseCommand, CommandParser

from ratings.models import Ladder
from ratings.services import ladder_recompute


def recompute_ladders(ladders: Iterable[Ladder], write: Callable[[str], object]) -> None:
    """Rate every match of each ladder again, saying for each what it took and found."""
    for ladder in ladders:
        started = time.perf_counter()
        done = ladder_recompute(ladder_id=ladder.pk)
        elapsed = time.perf_counter() - started
        agreed = "it agreed" if not done.rewritten else f"{done.rewritten} rows rewritten"
        write(f"{ladder}: {done.matches} matches rated again in {elapsed:.2f} s; {agreed}")


class Command(BaseCommand):
    help = "Rebuild every ladder's ratings and history from the recorded match results."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", action="append", help="only this game's ladder")

    def handle(self, *args: object, game: list[str] | None, **options: object) -> None:
        ladders = Ladder.objects.all()
        if game:
            ladders = ladders.filter(game__in=game)
        recompute_ladders(ladders, self.stdout.write)
