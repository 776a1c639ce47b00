"""Give the matches recorded before their game's ladder read luck-corrected scores their
corrected boards, then rate those ladders again (docs/ranking.md, "Luck on the ladder")."""

import time

from django.core.management.base import BaseCommand, CommandParser

from matches.luck import CORRECTED_GAMES, corrected_boards_fill
from ratings.management.commands.recompute_ratings import recompute_ladders
from ratings.models import Ladder


class Command(BaseCommand):
    help = (
        "Compute the luck-corrected boards of the finished matches of the games whose ladder "
        "reads them (matches.luck.CORRECTED_GAMES) that have none yet, from their replays, "
        "then rebuild those ladders' ratings and history."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--game", action="append", choices=sorted(CORRECTED_GAMES),
            help="only this game (default: every game whose ladder reads corrected boards)",
        )  # fmt: skip

    def handle(self, *args: object, game: list[str] | None, **options: object) -> None:
        games = game or sorted(CORRECTED_GAMES)
        started = time.perf_counter()
        filled = corrected_boards_fill(games=games)
        self.stdout.write(
            f"{filled} matches given corrected boards in {time.perf_counter() - started:.2f} s"
        )
        recompute_ladders(Ladder.objects.filter(game__in=games), self.stdout.write)
