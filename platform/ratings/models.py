"""Elo ladders: one per game. ``Rating`` is the current value, ``RatingChange`` the append-only
history (one row per match per bot); both are derived from finished matches and can be rebuilt
from them (``manage.py recompute_ratings``)."""

from __future__ import annotations

from django.db import models

from bots.models import Bot, BotVersion


class Ladder(models.Model):
    """The continuous ladder of one game: every finished match of the game is rated here; the
    ladder scheduler also plays matches of its own with ``params``."""

    game = models.CharField(max_length=32, unique=True)
    params = models.JSONField(default=dict, blank=True)
    duplicate = models.BooleanField(default=True)
    scheduling = models.BooleanField(default=True, help_text="the beat job adds matches")
    rated_count = models.BigIntegerField(default=0, help_text="matches rated so far")

    class Meta:
        ordering = ["game"]

    def __str__(self) -> str:
        return f"{self.game} ladder"


class RatingRequest(models.Model):
    """Whether a rating task for the ladder is queued, so that recorded matches need not queue
    more. Kept off the ladder row, which the rating task holds locked while it works: recording
    a match never waits for a rating task."""

    ladder = models.OneToOneField(Ladder, on_delete=models.CASCADE, primary_key=True,
                                  related_name="rating_request")  # fmt: skip
    requested = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"{self.ladder}: {'requested' if self.requested else 'idle'}"


class Rating(models.Model):
    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="ratings")
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="ratings")
    rating = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    version_games = models.PositiveIntegerField(default=0, help_text="games of ``version``")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["ladder", "bot"], name="rating_unique")]
        ordering = ["ladder", "-rating"]

    def __str__(self) -> str:
        return f"{self.bot}: {self.rating:.0f}"


class RatingChange(models.Model):
    """Append-only while live; a recomputation rewrites a ladder's rows in bulk, so the table
    carries only the indexes its reads need (single-column foreign-key indexes are covered by
    the composite ones, or, for versions, never looked up)."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="changes",
                               db_index=False)  # fmt: skip
    match = models.ForeignKey("matches.Match", on_delete=models.CASCADE,
                              related_name="rating_changes", db_index=False)  # fmt: skip
    seq = models.BigIntegerField(help_text="the match's place in the ladder's rating order")
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="rating_changes",
                            db_index=False)  # fmt: skip
    bot_version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+",
                                    db_index=False)  # fmt: skip
    before = models.FloatField()
    after = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match", "bot"], name="rating_change_unique")
        ]
        indexes = [
            models.Index(fields=["bot", "seq"], name="rating_change_history"),
            models.Index(fields=["ladder", "seq"], name="rating_change_order"),
        ]
        ordering = ["ladder", "seq", "bot"]

    def __str__(self) -> str:
        return f"{self.bot} {self.before:.0f} -> {self.after:.0f}"
