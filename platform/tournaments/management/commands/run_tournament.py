import time
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.errors import ApplicationError
from bots.house import HOUSE_USERNAME, house_user
from bots.models import Bot, BotVersionStatus
from engine.options import parse_option_words
from tournaments.models import Tournament, TournamentStatus
from tournaments.selectors import tournament_progress, tournament_table
from tournaments.services import tournament_create


class Command(BaseCommand):
    help = (
        "Create a round-robin tournament and, with --wait, follow it to the end and print the "
        "standings (with inline execution it is played before this command returns)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", required=True)
        who = parser.add_mutually_exclusive_group(required=True)
        who.add_argument("--house", action="store_true", help="every active house bot")
        who.add_argument("--bot", type=int, action="append", help="bot id (repeatable)")
        parser.add_argument("--name", default="")
        parser.add_argument("--rounds", type=int, default=1)
        parser.add_argument("--seed", type=int, help="shuffles the schedule only")
        parser.add_argument(
            "--official", action="store_true",
            help="rated on the game's ladder if played under the ladder's rules",
        )  # fmt: skip
        parser.add_argument("--single", action="store_true", help="no duplicate deals")
        parser.add_argument("--param", action="append", default=[], metavar="NAME=JSON")
        parser.add_argument("--by", default=HOUSE_USERNAME, help="username creating it")
        parser.add_argument("--wait", type=float, default=0, metavar="SECONDS")

    def handle(self, *args: object, **opts: Any) -> None:
        game: str = opts["game"]
        creator = house_user() if opts["by"] == HOUSE_USERNAME else (
            User.objects.filter(username=opts["by"]).first()
        )  # fmt: skip
        if creator is None:
            raise CommandError(f"no user {opts['by']!r}")
        if opts["house"]:
            bot_ids = list(
                Bot.objects.filter(
                    owner__username=HOUSE_USERNAME, game=game,
                    current_version__status=BotVersionStatus.ACTIVE,
                ).order_by("name").values_list("id", flat=True)
            )  # fmt: skip
        else:
            bot_ids = opts["bot"]
        try:
            params = parse_option_words(opts["param"])
        except ValueError as err:
            raise CommandError(f"--param {str(err)!r}: expected NAME=VALUE") from None
        try:
            tournament = tournament_create(
                created_by=creator, name=opts["name"] or f"{game} round robin", game=game,
                bot_ids=bot_ids, params=params, rounds=opts["rounds"],
                duplicate=not opts["single"], seed=opts["seed"], official=opts["official"],
            )  # fmt: skip
        except ApplicationError as err:
            raise CommandError(err.message) from None
        rated = "rated" if tournament.rated else "unrated"
        self.stdout.write(f"tournament {tournament.pk}: {tournament}, {rated}")
        deadline = time.monotonic() + opts["wait"]
        while True:
            tournament.refresh_from_db()
            if tournament.status != TournamentStatus.RUNNING or time.monotonic() >= deadline:
                break
            time.sleep(0.5)
        self.report(tournament)

    def report(self, tournament: Tournament) -> None:
        progress = tournament_progress(tournament=tournament)
        self.stdout.write(
            f"{tournament.status}: {progress.done}/{progress.total} matches done, "
            f"{progress.running} running, {progress.failed} failed"
        )
        table = tournament_table(tournament=tournament)
        standings = table.standings
        width = max([len(s.bot) for s in standings] + [8])
        self.stdout.write(f"{'#':>2}  {'bot':<{width}}  {'points':>6}  {'avg place':>9}  "
                          f"{'score':>9}  {'matches':>7}  faults")  # fmt: skip
        for rank, s in enumerate(standings, start=1):
            avg = f"{s.average_place:.2f}" if s.average_place is not None else "-"
            self.stdout.write(
                f"{rank:>2}  {s.bot:<{width}}  {s.points:>6.1f}  {avg:>9}  "
                f"{s.total_score:>9.1f}  {s.matches:>7}  {s.faults}"
            )
        cross = table.cross
        names = {s.bot_id: f"{i + 1}" for i, s in enumerate(standings)}
        order = [s.bot_id for s in standings]
        self.stdout.write("cross-table (points of the row against the column):")
        self.stdout.write("    " + "".join(f"{names[b]:>6}" for b in order))
        for a in order:
            cells = "".join(
                f"{cross.points[a, b]:>6.1f}" if (a, b) in cross.points else f"{'-':>6}"
                for b in order
            )
            self.stdout.write(f"{names[a]:>2}  {cells}")
