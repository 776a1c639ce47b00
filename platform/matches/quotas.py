"""Quotas on the unrated matches an author may ask for (their tournaments and challenges): a
cap per request, per hour and queued at once, so that nobody can flood the workers. Staff
are not limited by the hourly and queued caps; the ladder asks for its matches itself."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Sum
from django.utils import timezone

from arena.errors import ApplicationError
from matches.models import UNFINISHED, Match

QUOTA_WINDOW = timedelta(hours=1)


def matches_per_request_check(*, count: int) -> None:
    """Refuse a request that would create more than ``ARENA_MATCHES_PER_REQUEST`` matches."""
    cap: int = settings.ARENA_MATCHES_PER_REQUEST
    if count > cap:
        raise ApplicationError(
            f"this would create {count} matches; one request may create at most {cap} "
            "(ARENA_MATCHES_PER_REQUEST): fewer bots or rounds",
            code="too_many_matches", field="rounds",
        )  # fmt: skip


def unrated_quota_check(*, user: User, count: int) -> None:
    """Refuse (429) ``count`` more unrated matches for ``user`` if that passes
    ``ARENA_UNRATED_MATCHES_PER_HOUR`` or ``ARENA_UNRATED_QUEUED_PER_USER``. Call it inside the
    transaction that creates them: it locks the user's row, so concurrent requests of one user
    cannot both slip under a cap."""
    matches_per_request_check(count=count)
    if user.is_staff:
        return
    User.objects.select_for_update().filter(pk=user.pk).first()
    pending = _planned_unscheduled(user)
    mine = Match.objects.filter(requested_by=user)
    recent = mine.filter(queued_at__gte=timezone.now() - QUOTA_WINDOW).count() + pending
    waiting = mine.filter(status__in=UNFINISHED).count() + pending
    caps = (
        ("ARENA_UNRATED_MATCHES_PER_HOUR", recent, "you asked for {used} matches in the last "
         "hour; at most {cap} per hour"),
        ("ARENA_UNRATED_QUEUED_PER_USER", waiting, "{used} of your matches are still to play; "
         "at most {cap} at once"),
    )  # fmt: skip
    for setting, used, said in caps:
        cap: int = getattr(settings, setting)
        if used + count > cap:
            message = said.format(used=used, cap=cap)
            raise ApplicationError(f"{message} ({setting}), so {count} more must wait",
                                   code="rate_limited")  # fmt: skip


def _planned_unscheduled(user: User) -> int:
    """Matches of the user's tournaments that their scheduling task has yet to create."""
    from tournaments.models import Tournament

    planned = Tournament.objects.filter(created_by=user, scheduled_at__isnull=True).aggregate(
        n=Sum("planned_matches")
    )["n"]
    return int(planned or 0)
