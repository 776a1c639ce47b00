"""Writes for challenges: unranked matches a user asks for, limited per user and hour.

A challenge is a match of origin ``challenge`` on no ladder, so the rating task never sees it
(``ratings.services`` rates only matches of a ladder) and the ladder scheduler never counts it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

import engine
from arena.errors import ApplicationError
from bots.models import Bot, BotVersion
from bots.selectors import bots_ready_to_play
from matches import formats
from matches.models import Challenge, Match, MatchOrigin
from matches.quotas import unrated_quota_check
from matches.services import MatchSpec, matches_create

CHALLENGE_WINDOW = timedelta(hours=1)


def challenge_create(
    *,
    user: User,
    bot_id: int,
    opponent_ids: Sequence[int],
    duplicate: bool = True,
    params: dict[str, Any] | None = None,
) -> Match:
    """An unranked match of the user's bot against the opponents' current versions, queued
    once the transaction commits.

    Each user may ask for ``ARENA_CHALLENGES_PER_HOUR`` of them per hour (staff without limit),
    within the quotas on all their unrated matches (``matches.quotas``); the counts are taken
    under a lock on the user's row, so concurrent requests cannot both slip under them.
    """
    bot = Bot.objects.filter(pk=bot_id).first()
    if bot is None or bot.owner_id != user.pk:
        raise ApplicationError(f"you have no bot {bot_id}", code="not_your_bot", field="bot")
    try:
        rules = formats.load(bot.game, params)
    except engine.InvalidParams as err:
        raise ApplicationError(str(err), code="invalid_params", field="params") from None
    needed = formats.entrants_per_match(rules) - 1
    if len(opponent_ids) != needed:
        raise ApplicationError(
            f"a {bot.game} match with these rules has {needed + 1} entrants: name {needed} "
            f"opponent(s), not {len(opponent_ids)}",
            code="wrong_number_of_bots", field="opponents",
        )  # fmt: skip
    if bot_id in opponent_ids:
        raise ApplicationError(
            "your bot cannot be its own opponent", code="duplicate_bot", field="opponents"
        )
    entrants = [
        *bots_ready_to_play(game=bot.game, bot_ids=[bot_id], field="bot"),
        *bots_ready_to_play(game=bot.game, bot_ids=opponent_ids, field="opponents"),
    ]
    versions: list[BotVersion] = [b.current_version for b in entrants if b.current_version]
    with transaction.atomic():
        unrated_quota_check(user=user, count=1)  # locks the user's row for the count below
        limit: int = settings.ARENA_CHALLENGES_PER_HOUR
        since = timezone.now() - CHALLENGE_WINDOW
        recent = Challenge.objects.filter(requested_by=user, created_at__gte=since).count()
        if not user.is_staff and recent >= limit:
            raise ApplicationError(
                f"at most {limit} challenges per hour; try again later", code="rate_limited"
            )
        [match] = matches_create(
            game=bot.game, params=rules.params_dict(), duplicate=duplicate,
            origin=MatchOrigin.CHALLENGE, specs=[MatchSpec(entrants=versions)],
            requested_by_id=user.pk,
        )  # fmt: skip
        Challenge.objects.create(requested_by=user, match=match)
    return match
