"""Round-robin tournaments: the entrants (with the versions pinned at creation) and a status."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from bots.models import Bot, BotVersion


class TournamentStatus(models.TextChoices):
    RUNNING = "running", "running"
    """Its matches are queued or being played."""
    FINISHED = "finished", "finished"
    """The service recording its last match closed it."""
    CANCELLED = "cancelled", "cancelled"
    """Stopped; unplayed matches were cancelled."""


TOURNAMENT_TRANSITIONS: dict[str, set[str]] = {
    TournamentStatus.RUNNING: {TournamentStatus.FINISHED, TournamentStatus.CANCELLED},
    TournamentStatus.FINISHED: {TournamentStatus.RUNNING},  # an operator re-queued a match
    TournamentStatus.CANCELLED: set(),
}


class Tournament(models.Model):
    name = models.CharField(max_length=100)
    game = models.CharField(max_length=32)
    params = models.JSONField(default=dict)
    rounds = models.PositiveSmallIntegerField(default=1)
    duplicate = models.BooleanField(default=True)
    seed = models.BigIntegerField(help_text="shuffles the schedule (match seeds are apart)")
    official = models.BooleanField(
        default=False, help_text="staff made it count: rated if played under the ladder's rules"
    )
    rated = models.BooleanField(default=False, help_text="its matches are rated")
    planned_matches = models.PositiveIntegerField(default=0, help_text="its schedule's size")
    scheduled_at = models.DateTimeField(
        null=True, blank=True, help_text="when its matches were created (by a task)"
    )
    status = models.CharField(
        max_length=16, choices=TournamentStatus.choices, default=TournamentStatus.RUNNING
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                   related_name="tournaments")  # fmt: skip
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.game})"


class TournamentEntry(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    index = models.PositiveSmallIntegerField()
    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="entries")
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="entries")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "bot"], name="entry_unique_bot"),
            models.UniqueConstraint(fields=["tournament", "index"], name="entry_unique_index"),
        ]
        ordering = ["tournament", "index"]

    def __str__(self) -> str:
        return f"{self.tournament}: {self.bot}"
