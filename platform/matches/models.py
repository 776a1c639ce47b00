"""Matches and their seats: one row per seat (N-seat by construction), the replay apart."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from bots.models import Bot, BotVersion


class SeedField(models.CharField):  # type: ignore[type-arg]
    """A match seed of up to 128 bits (``matches.seeds``), an ``int`` in Python and decimal
    text in the database (no database integer holds 128 bits, and SQLite's decimals are
    floats)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["max_length"] = 40
        super().__init__(*args, **kwargs)

    def deconstruct(self) -> Any:
        name, path, args, kwargs = super().deconstruct()
        del kwargs["max_length"]
        return name, path, args, kwargs

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> int | None:
        return None if value is None else int(value)

    def to_python(self, value: Any) -> int | None:
        return None if value is None else int(value)

    def get_prep_value(self, value: Any) -> str | None:
        return None if value is None else str(int(value))


class MatchStatus(models.TextChoices):
    QUEUED = "queued", "queued"
    """Waiting for a worker (its task is in the broker)."""
    RUNNING = "running", "running"
    """Claimed by a worker; the reaper re-queues it once that worker's heartbeat stops
    (``WorkerHeartbeat``), or at the latest when the claim's ``deadline`` passes."""
    FINISHED = "finished", "finished"
    """Played to the end; seats and replay recorded."""
    ERROR = "error", "error"
    """The platform failed (never a bot's fault); not rated, can be re-queued."""
    CANCELLED = "cancelled", "cancelled"
    """Withdrawn before it ran."""


#: The only status changes a match may make; ``matches.services`` enforces them with
#: compare-and-swap updates. running -> queued is the reaper's; error/cancelled -> queued is an
#: administrator's re-queue.
MATCH_TRANSITIONS: dict[str, set[str]] = {
    MatchStatus.QUEUED: {MatchStatus.RUNNING, MatchStatus.CANCELLED},
    MatchStatus.RUNNING: {MatchStatus.FINISHED, MatchStatus.ERROR, MatchStatus.QUEUED},
    MatchStatus.FINISHED: set(),
    MatchStatus.ERROR: {MatchStatus.QUEUED},
    MatchStatus.CANCELLED: {MatchStatus.QUEUED},
}
UNFINISHED = (MatchStatus.QUEUED, MatchStatus.RUNNING)


class MatchOrigin(models.TextChoices):
    TOURNAMENT = "tournament", "tournament"
    LADDER = "ladder", "ladder"
    CHALLENGE = "challenge", "challenge"


class Match(models.Model):
    """A match to play. It is rated exactly when it has a ``ladder``: ``ratings.policy`` decides
    that once, when the match is created (``matches.services.matches_create``)."""

    game = models.CharField(max_length=32)
    params = models.JSONField(default=dict)
    seed = SeedField(help_text="128 random bits; published with the replay once finished")
    duplicate = models.BooleanField(default=True)
    origin = models.CharField(max_length=16, choices=MatchOrigin.choices)
    tournament = models.ForeignKey(
        "tournaments.Tournament", null=True, blank=True, on_delete=models.CASCADE,
        related_name="matches",
    )  # fmt: skip
    round = models.PositiveIntegerField(null=True, blank=True)
    ladder = models.ForeignKey(
        "ratings.Ladder", null=True, blank=True, on_delete=models.PROTECT, related_name="matches",
        help_text="the ladder that rates it; empty: unrated",
    )  # fmt: skip
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
        related_name="requested_matches", help_text="who asked for it (none: the ladder)",
    )  # fmt: skip
    status = models.CharField(max_length=16, choices=MatchStatus.choices, default="queued")
    attempts = models.PositiveSmallIntegerField(default=0, help_text="times a worker claimed it")
    run_token = models.UUIDField(null=True, blank=True, help_text="the current claim")
    deadline = models.DateTimeField(null=True, blank=True, help_text="lease of the current claim")
    worker = models.CharField(
        max_length=255, blank=True, help_text="the claim's worker (its WorkerHeartbeat name)"
    )
    error = models.TextField(blank=True, help_text="the platform failure, for operators")
    queued_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    rated_at = models.DateTimeField(null=True, blank=True)
    rating_seq = models.BigIntegerField(null=True, blank=True, help_text="order in its ladder")
    boards = models.JSONField(
        null=True, blank=True,
        help_text="a finished duplicate match's score per seat on each board "
        "(engine.board_scores)",
    )  # fmt: skip

    corrected_boards = models.JSONField(
        null=True, blank=True,
        help_text="its boards of luck-corrected scores, what the ladder reads instead of "
        "boards in the games matches.luck.CORRECTED_GAMES names",
    )  # fmt: skip
    luck_at = models.DateTimeField(
        null=True, blank=True, help_text="when its seats' luck was computed (matches.luck)"
    )

    class Meta:
        verbose_name_plural = "matches"
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["status", "deadline"], name="match_status_deadline"),
            models.Index(fields=["ladder", "status", "rated_at"], name="match_unrated"),
            models.Index(fields=["requested_by", "queued_at"], name="match_requested"),
            # a ladder's latest finished match, which stamps its cached figures (every ladder,
            # bot and home page asks): without it, a scan of the game's matches (0.5 s at 300k)
            models.Index(fields=["ladder", "status", "id"], name="match_ladder_latest"),
            # the latest finished matches (home, a bot's page): without it, a sort of every
            # finished match (0.5-0.8 s at 1M)
            models.Index(fields=["status", "finished_at", "id"], name="match_finished_recent"),
            # the finished matches whose luck is still to compute: a few at any time, however
            # many matches there are
            models.Index(
                fields=["finished_at"], name="match_luck_pending",
                condition=models.Q(status="finished", luck_at__isnull=True),
            ),  # fmt: skip
        ]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.game})"

    @property
    def rated(self) -> bool:
        return self.ladder_id is not None


class MatchSeat(models.Model):
    """One entrant slot of a match. ``seat`` is where it starts: in a duplicate match the engine
    rotates seats between the games of the set. Partners in team games share ``partnership``."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    partnership = models.PositiveSmallIntegerField(null=True, blank=True)
    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="seats")
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="seats")
    score = models.FloatField(null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    luck = models.FloatField(
        null=True, blank=True,
        help_text="what the cards gave it, in score units (engine.luck); the score minus it "
                  "is its luck-corrected score",
    )  # fmt: skip
    fault = models.CharField(max_length=32, blank=True, help_text="verdict, e.g. timeout")
    fault_message = models.TextField(blank=True)
    log = models.TextField(blank=True, help_text="the bot's stderr: its owner only")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="seat_unique")]
        ordering = ["match", "seat"]

    def __str__(self) -> str:
        return f"{self.match} seat {self.seat}"


class MatchReplay(models.Model):
    """The engine's replay JSON (docs/replay-format.md), zlib-compressed."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, primary_key=True,
                                 related_name="replay")  # fmt: skip
    data = models.BinaryField()
    size = models.PositiveIntegerField(help_text="uncompressed bytes")

    def __str__(self) -> str:
        return f"replay of match {self.match_id}"


class Challenge(models.Model):
    """An unranked match a user asked for (``matches.services.challenge_create``): who asked
    and when, for the per-user hourly limit."""

    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges"
    )
    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="challenge")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["requested_by", "created_at"], name="challenge_by_user")]

    def __str__(self) -> str:
        return f"challenge by {self.requested_by} ({self.match})"


class WorkerHeartbeat(models.Model):
    """A running worker process, beating every ``ARENA_WORKER_HEARTBEAT_S`` (``beat_at`` in the
    database's clock, so workers on other hosts compare fairly). ``name`` is unique per start of
    a worker (host name and a random part): a restarted worker, even with the same host name,
    is another row, so its predecessor's claims still look lost. A match or validation records
    this name in ``worker`` when it is claimed (``matches.heartbeats``). ``match_slots``: the
    rated matches it plays at once (its processes, if it serves the rated queue), which the
    ladders' queues follow (``tournaments.services.ladder_queue_depth``)."""

    name = models.CharField(max_length=255, unique=True)
    started_at = models.DateTimeField(auto_now_add=True)
    beat_at = models.DateTimeField(db_index=True)
    match_slots = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return self.name
