"""Give the matches recorded before their game's ladder read luck-corrected scores their
corrected boards, then rate those ladders again (docs/ranking.md, "Luck on the ladder")."""

import time

from django.core.management.base import BaseCommand, CommandParser

from matches.luck import CORRECTED_GAMES, corrected_boards_fill
from ratings.models import Ladder
from ratings.services import ladder_recompute


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
        for ladder in Ladder.objects.filter(game__in=games):
            started = time.perf_counter()
            done = ladder_recompute(ladder_id=ladder.pk)
            elapsed = time.perf_counter() - started
            agreed = "it agreed" if not done.rewritten else f"{done.rewritten} rows rewritten"
            self.stdout.write(
                f"{ladder}: {done.matches} matches rated again in {elapsed:.2f} s; {agreed}"
            )
