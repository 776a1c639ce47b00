"""Each seat's luck (``engine.luck``), and the luck-corrected boards the ladder reads.

A seat's luck is what the cards gave it over the match, in the units of its score: the sum, over
every chance event of every deal it played, of the change the event made to its estimated value.
Its expectation is zero whoever plays, so the score minus the luck (the luck-corrected score)
ranks bots with less noise and the same mean. Luck is shown only once a match has finished,
when its replay shows every card anyway.

In the games of :data:`CORRECTED_GAMES` the ladder reads luck-corrected boards
(``Match.corrected_boards``, docs/ranking.md, "Luck on the ladder"), so a rated match's luck is
computed when the match is recorded, in the transaction that records it, from the audited replay
(:func:`luck_at_record`): the ladder never waits for it and never rates a match of those games
before its correction exists. A failure to compute it is logged and costs the match nothing: the
match is recorded, without luck, and the ladder reads its raw boards.

The other games' luck, and every unrated match's, is only shown; it is computed after
recording, so that the worker's path from one match to the next stays as short as it can be: a
periodic task (``arena.matches.luck``; in the quick start the ladder's loop) fills it in for the
newest finished matches first, a few seconds of CPU at a time, old matches included. It never writes
corrected boards: a rated match's result changes only with a recomputation of its ladder
(:func:`corrected_boards_fill`, ``manage.py fill_corrected_boards``, for the matches recorded
before their game was switched).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.db import transaction
from django.db.models import Avg, Count, Q, StdDev
from django.utils import timezone

import engine
from engine.luck import corrected_boards_of_replay, replay_luck, seat_luck
from matches.models import Match, MatchReplay, MatchSeat, MatchStatus
from matches.selectors import match_replay

logger = logging.getLogger(__name__)

#: two-sided 95 % normal quantile, for a bot's mean luck
Z95 = 1.959964


#: The games whose ladder reads luck-corrected boards: where the ranking benchmark showed that
#: duplicate sets scored by corrected boards reach the right order in fewer deals than the
#: duplicate sets (docs/ranking.md, "Luck on the ladder": Belote 0.92 and 0.98 of their deals;
#: Bauer, every deal its own board shared by its corrected margin, 0.88 and 0.87; Badugi, a
#: set's corrected total shared by its margin, 0.35 of its sets' deals with the deterministic
#: variants, per run sooner in 15 of 20 and later in 3). Barbu's corrected sets are its sets
#: (the deal's luck cancels in a set).
CORRECTED_GAMES: Final = frozenset({"belote", "bauer", "badugi"})


def rated_margin_scale(game: str, params: dict[str, Any]) -> float | None:
    """The scale on which the ladder shares the boards it rates (``matches.selectors
    .rated_boards``) by their margin, under the ladder's ``params`` (every match it rates is
    played under them): the luck-corrected scores' in the games of :data:`CORRECTED_GAMES`
    (``engine.margin_scale``, the ranking benchmark's choice too; Badugi's grows with the
    stakes and the hands). A match whose luck failed is rated by its raw boards on the same
    scale (in Bauer its paired boards, whose margins the deal's luck does not move: it cancels
    in a paired board; a Badugi match has none and keeps its one result, by its chip total)."""
    played = engine.load_game(game, **params)
    return engine.margin_scale(played, corrected=game in CORRECTED_GAMES)


@dataclass(frozen=True)
class MatchLuck:
    """A finished match's luck: per seat (``None`` where it could not be computed), and its
    boards of luck-corrected scores (``None`` without boards, or where it failed)."""

    seats: Sequence[float | None]
    corrected_boards: list[list[float]] | None


def match_luck(replay: dict[str, Any]) -> MatchLuck:
    """The luck of a finished match from its replay (docs/replay-format.md), computed by the
    platform from the replay alone. A failure to compute it is a bug of ours that must not cost
    the match its result: it is logged and the match is recorded without luck (and rated by its
    raw boards)."""
    try:
        per_deal = replay_luck(replay)
        return MatchLuck(seat_luck(replay, per_deal), corrected_boards_of_replay(replay, per_deal))
    except Exception:
        logger.exception(
            "the luck of a %s match could not be computed: it has none, and the ladder reads "
            "its raw boards", replay.get("game"),
        )  # fmt: skip
        return MatchLuck([None] * len(replay["entrants"]), None)


def luck_at_record(*, game: str, rated: bool, replay: dict[str, Any]) -> MatchLuck | None:
    """What recording a match stores of its luck: for a rated match of a game of
    :data:`CORRECTED_GAMES`, its luck (:func:`match_luck`), which its ladder reads; for the
    others ``None``, their luck is only shown and filled in later, off the worker's path (an
    unrated match is read by no ladder: its tournament ranks the raw scores). ``replay`` is the
    audited replay about to be stored, never anything a bot sent."""
    return match_luck(replay) if rated and game in CORRECTED_GAMES else None


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


def match_luck_record(*, match_id: int, boards: bool = False) -> None:
    """Compute and store one finished match's luck per seat (``None`` where it failed) and,
    with ``boards``, its corrected boards (:func:`corrected_boards_fill`'s; the periodic fill
    leaves them alone)."""
    try:
        replay = match_replay(match_id=match_id)
    except MatchReplay.DoesNotExist:  # removed by an operator: nothing to value
        luck = MatchLuck([], None)
    else:
        luck = match_luck(replay)
    with transaction.atomic():
        for seat, value in enumerate(luck.seats):
            MatchSeat.objects.filter(match_id=match_id, seat=seat).update(luck=value)
        fields: dict[str, Any] = {"luck_at": timezone.now()}
        if boards:
            fields["corrected_boards"] = luck.corrected_boards
        Match.objects.filter(pk=match_id).update(**fields)


def corrected_boards_fill(
    *, games: Sequence[str] = tuple(CORRECTED_GAMES), batch: int = 100
) -> int:
    """Compute the corrected boards (and the seats' luck) of the finished rated matches of
    ``games`` that have boards (every match of a game scored by its total: Badugi's one) but
    no corrected boards: those recorded before their game was switched, or whose luck failed
    then; the number of matches done, oldest first. A match whose luck fails again keeps its
    raw boards (logged). Its ladder's ratings must be computed again afterwards (``manage.py
    fill_corrected_boards`` does both)."""
    done, last = 0, 0
    by_total = [game for game in games if not engine.game_class(game).scored_by_boards]
    pending = Match.objects.filter(
        Q(boards__isnull=False) | Q(game__in=by_total), game__in=list(games),
        status=MatchStatus.FINISHED, corrected_boards__isnull=True, ladder__isnull=False,
    )  # fmt: skip
    while True:
        ids = list(pending.filter(pk__gt=last).order_by("pk").values_list("pk", flat=True)[:batch])
        if not ids:
            return done
        for match_id in ids:
            match_luck_record(match_id=match_id, boards=True)
        done += len(ids)
        last = ids[-1]


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
