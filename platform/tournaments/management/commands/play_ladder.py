"""The continuous ladder without Celery: what beat and a worker do in a deployment, in one loop.

The quick start (``scripts/run.sh``) executes tasks inline and has no beat scheduler, so nothing
else would top the ladders up: this command does it every ``--every`` seconds, and with inline
execution each match it queues is played and rated right here, in this process, while the site
serves the results as they are recorded, and the seats' luck is computed after them
(``matches.luck``, beat's ``compute-luck`` in a deployment). Under ``ARENA_EXECUTION=celery``
it only queues (the workers play and compute), which is what beat's ``schedule-ladders`` job
does.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from matches.luck import matches_luck_fill
from matches.services import matches_reap
from tournaments.services import ladders_schedule


class Command(BaseCommand):
    help = "Keep every ladder's queue topped up (and, with inline execution, play it) in a loop."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--every", type=float, default=10.0, metavar="SECONDS",
                            help="pause between two top-ups")  # fmt: skip
        parser.add_argument("--rounds", type=int, default=0,
                            help="stop after this many top-ups (0: never)")  # fmt: skip

    def handle(self, *args: object, **opts: Any) -> None:
        inline = settings.ARENA_EXECUTION == "inline"
        done = 0
        while opts["rounds"] == 0 or done < opts["rounds"]:
            started = time.monotonic()
            matches_reap()  # a match left running by an earlier loop that was stopped
            created = ladders_schedule()
            played = sum(created.values())
            if played:
                verb = "played" if inline else "queued"
                counts = ", ".join(f"{game} {n}" for game, n in created.items() if n)
                self.stdout.write(f"ladder: {verb} {played} matches ({counts})")
            if inline:  # a second of CPU a pass: the ladder's matches come first
                matches_luck_fill(cpu_budget_s=1.0)
            done += 1
            if opts["rounds"] == 0 or done < opts["rounds"]:
                time.sleep(max(0.0, opts["every"] - (time.monotonic() - started)))
