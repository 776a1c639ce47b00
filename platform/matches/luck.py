"""Each seat's luck (``engine.luck``): computed once per finished match, summed per bot.

A seat's luck is what the cards gave it over the match, in the units of its score: the sum, over
every chance event of every deal it played, of the change the event made to its estimated value.
Its expectation is zero whoever plays, so the score minus the luck (the luck-corrected score)
ranks bots with less noise and the same mean. Luck is shown only once a match has finished,
when its replay shows every card anyway.

It is computed after recording, not in it, so that the worker's path from one match to the
next stays as short as it can be (a fitted value of the hands: a few milliseconds a match, see
docs/ranking.md): a periodic task (``arena.matches.luck``; in the quick start the ladder's loop)
fills it in for the newest finished matches first, a few seconds of CPU at a time, old matches
included.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Avg, Count, StdDev
from django.utils import timezone

from engine.luck import seat_luck
from matches.models import Match, MatchReplay, MatchSeat, MatchStatus
from matches.selectors import match_replay

logger = logging.getLogger(__name__)

#: two-sided 95 % normal quantile, for a bot's mean luck
Z95 = 1.959964


def match_luck(replay: dict[str, Any]) -> Sequence[float | None]:
    """Each entrant's luck in a finished match's replay (docs/replay-format.md). A failure to
    compute it is a bug of ours that must not cost the match its result: it is logged and the
    match is recorded without luck."""
    try:
        return seat_luck(replay)
    except Exception:
        logger.exception("the luck of a %s match could not be computed", replay.get("game"))
        return [None] * len(replay["entrants"])


def matches_luck_fill(*, cpu_budget_s: float = 5.0, batch: int = 10) -> int:
    """Compute the luck of finished matches that have none yet, newest first, until about
    ``cpu_budget_s`` of CPU is spent (one match at least); the number of matches done.
    Idempotent: two passes that overlap compute a match twice and write the same values."""
    done = 0
    started = time.process_time()
    while True:  # at least one match per pass, whatever the budget
        pending = list(
            Match.objects.filter(status=MatchStatus.FINISHED, luck_at__isnull=True)
            .order_by("-finished_at")
            .values_list("pk", flat=True)[:batch]
        )
        if not pending:
            break
        for match_id in pending:
            match_luck_record(match_id=match_id)
            done += 1
            if time.process_time() - started >= cpu_budget_s:
                return done
    return done


def match_luck_record(*, match_id: int) -> None:
    """Compute and store one finished match's luck per seat (``None`` where it failed)."""
    try:
        replay = match_replay(match_id=match_id)
    except MatchReplay.DoesNotExist:  # removed by an operator: nothing to value
        luck: Sequence[float | None] = []
    else:
        luck = match_luck(replay)
    with transaction.atomic():
        for seat, value in enumerate(luck):
            MatchSeat.objects.filter(match_id=match_id, seat=seat).update(luck=value)
        Match.objects.filter(pk=match_id).update(luck_at=timezone.now())


@dataclass(frozen=True)
class LuckSummary:
    """A bot's luck per finished match: the mean and its 95 % interval's half-width."""

    matches: int
    mean: float
    half_width: float | None  # None below two matches


def bot_luck(*, bot_id: int) -> LuckSummary | None:
    """The bot's mean luck per match over its finished matches (one query), or None if none
    has any recorded."""
    row = MatchSeat.objects.filter(bot_id=bot_id, luck__isnull=False).aggregate(
        n=Count("luck"), mean=Avg("luck"), sd=StdDev("luck", sample=True)
    )
    if not row["n"]:
        return None
    n = int(row["n"])
    half = Z95 * row["sd"] / math.sqrt(n) if n > 1 and row["sd"] is not None else None
    return LuckSummary(matches=n, mean=float(row["mean"]), half_width=half)
