"""Reads for bots: which bots can play a match now, and a version's private logs."""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import QuerySet

from arena.errors import ApplicationError
from bots.models import Bot, BotVersion, BotVersionStatus
from matches.models import MatchSeat

RECENT_LOGS = 10


def bots_ready_to_play(*, game: str, bot_ids: Sequence[int], field: str = "bots") -> list[Bot]:
    """The bots ``bot_ids`` in that order, each of ``game`` with a validated current version;
    otherwise an :class:`ApplicationError` on ``field`` listing every problem."""
    if len(set(bot_ids)) != len(bot_ids):
        raise ApplicationError("a bot is listed twice", code="duplicate_bot", field=field)
    found = {
        b.pk: b
        for b in Bot.objects.filter(pk__in=bot_ids).select_related("owner", "current_version")
    }
    problems = []
    for bot_id in bot_ids:
        bot = found.get(bot_id)
        if bot is None:
            problems.append(f"bot {bot_id} does not exist")
        elif bot.game != game:
            problems.append(f"{bot} plays {bot.game}, not {game}")
        elif bot.current_version is None or bot.current_version.status != BotVersionStatus.ACTIVE:
            problems.append(f"{bot} has no validated version yet")
    if problems:
        raise ApplicationError("; ".join(problems), code="invalid_bots", field=field)
    return [found[bot_id] for bot_id in bot_ids]


def botversion_recent_match_logs(
    *, version: BotVersion, limit: int = RECENT_LOGS
) -> QuerySet[MatchSeat]:
    """The version's seats with something on stderr, newest match first (owner and staff
    only: stderr may hold anything the bot printed)."""
    return (
        MatchSeat.objects.filter(bot_version=version)
        .exclude(log="")
        .order_by("-match_id", "seat")[:limit]
    )


def bot_with_versions(*, bot_id: int) -> Bot:
    """The bot, its owner and current version, its versions prefetched (newest first);
    ``Bot.DoesNotExist`` if there is none."""
    return (
        Bot.objects.select_related("owner", "current_version")
        .prefetch_related("versions")
        .get(pk=bot_id)
    )


def playable_bots(*, game: str) -> QuerySet[Bot]:
    """The game's bots whose current version is validated (they can enter matches)."""
    return (
        Bot.objects.filter(game=game, current_version__status=BotVersionStatus.ACTIVE)
        .select_related("owner")
        .order_by("owner__username", "name")
    )


def bots_filtered(*, game: str | None = None, owner: str | None = None) -> QuerySet[Bot]:
    """Bots (of one game, of one owner by username), with what a listing shows loaded."""
    bots = Bot.objects.select_related("owner", "current_version").prefetch_related("ratings")
    if game is not None:
        bots = bots.filter(game=game)
    if owner is not None:
        bots = bots.filter(owner__username=owner)
    return bots.order_by("id")
