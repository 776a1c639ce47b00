"""Reads for ladders: the current standings and a bot's rating history."""

from __future__ import annotations

from django.db.models import QuerySet

from ratings.models import Rating, RatingChange


def ladder_standings(*, game: str) -> QuerySet[Rating]:
    """Current ratings of the game's ladder, best first, with bot and owner loaded."""
    return (
        Rating.objects.filter(ladder__game=game)
        .select_related("bot__owner", "version")
        .order_by("-rating", "bot_id")
    )


def rating_history(*, bot_id: int) -> QuerySet[RatingChange]:
    """The bot's rating after each rated match, oldest first."""
    return RatingChange.objects.filter(bot_id=bot_id).order_by("seq")
