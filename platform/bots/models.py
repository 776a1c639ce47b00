"""Bots, their immutable versions and the package bytes behind them.

A version's bytes live in the database (``Package``, keyed by sha256), so any worker on any host
can run any bot with nothing but a database connection; workers keep unpacked copies keyed by the
same hash (``matches.package_cache``). A compiled runtime's version also points at its ``Build``,
whose executable is a package as well: what workers run.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Bot(models.Model):
    """One author's bot for one game; it plays with its current (last validated) version."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bots"
    )
    name = models.CharField(max_length=64)
    game = models.CharField(max_length=32)
    current_version = models.ForeignKey(
        "BotVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="bot_unique_name")]
        ordering = ["game", "name"]

    def __str__(self) -> str:
        return f"{self.owner}/{self.name}"


class Package(models.Model):
    """Uploaded bytes, stored once per content; private to the owners of versions using them."""

    sha256 = models.CharField(max_length=64, primary_key=True)
    data = models.BinaryField()
    size = models.PositiveIntegerField()

    def __str__(self) -> str:
        return self.sha256[:12]


class Build(models.Model):
    """A compiled runtime's sources built once (``sandbox.compile``): the static executable is a
    ``Package`` too, so it is stored once and reaches workers like any package. Keyed by the
    sources and the toolchain's identity: the same sources never compile twice."""

    source = models.ForeignKey(Package, on_delete=models.PROTECT, related_name="builds")
    toolchain = models.CharField(max_length=200, help_text="compiler, version and flags")
    binary = models.ForeignKey(Package, on_delete=models.PROTECT, related_name="+")
    log = models.TextField(blank=True, help_text="the compiler's warnings: owners only")
    seconds = models.FloatField(help_text="how long the compilation took")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "toolchain"], name="build_unique_source")
        ]

    def __str__(self) -> str:
        return f"{self.source_id[:12]} -> {self.binary_id[:12]}"


#: the file name of a built executable in a worker's package cache
BUILD_FILENAME = "bot"


class BotVersionStatus(models.TextChoices):
    PENDING = "pending", "pending"
    """Stored, waiting for its validation task."""
    VALIDATING = "validating", "validating"
    """A worker is playing its smoke match."""
    ACTIVE = "active", "active"
    """Validated: it can play tournaments and the ladder."""
    REJECTED = "rejected", "rejected"
    """It faulted in its smoke match; ``reason`` says how."""


#: The only status changes a version may make (``bots.services.botversion_transition``).
#: validating -> pending: the validation could not run (platform failure, lost worker); retried.
VERSION_TRANSITIONS: dict[str, set[str]] = {
    BotVersionStatus.PENDING: {BotVersionStatus.VALIDATING},
    BotVersionStatus.VALIDATING: {
        BotVersionStatus.ACTIVE,
        BotVersionStatus.REJECTED,
        BotVersionStatus.PENDING,
    },
    BotVersionStatus.ACTIVE: set(),
    BotVersionStatus.REJECTED: set(),
}


class BotVersion(models.Model):
    """An immutable upload of a bot. Matches pin versions, so results never change owner."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    package = models.ForeignKey(Package, on_delete=models.PROTECT, related_name="versions")
    filename = models.CharField(max_length=200, help_text="the uploaded file's name")
    runtime = models.CharField(max_length=32)
    entry = models.CharField(max_length=200)
    size = models.PositiveIntegerField()
    status = models.CharField(
        max_length=16, choices=BotVersionStatus.choices, default=BotVersionStatus.PENDING
    )
    reason = models.TextField(blank=True, help_text="why it was rejected (or why it waits)")
    fault = models.CharField(max_length=32, blank=True, help_text="the smoke match's verdict")
    log = models.TextField(blank=True, help_text="the bot's stderr in validation: owner only")
    validation = models.JSONField(
        null=True, blank=True,
        help_text="what the smoke match played: game, params, games, the bot's decisions and "
        "its mean and max time per decision (ms)",
    )  # fmt: skip
    build = models.ForeignKey(
        Build, null=True, blank=True, on_delete=models.PROTECT, related_name="versions",
        help_text="the executable compiled from the sources (compiled runtimes)",
    )  # fmt: skip
    attempts = models.PositiveSmallIntegerField(default=0)
    run_token = models.UUIDField(null=True, blank=True, help_text="the current validation claim")
    worker = models.CharField(
        max_length=255, blank=True, help_text="the claim's worker (its WorkerHeartbeat name)"
    )
    deadline = models.DateTimeField(null=True, blank=True, help_text="validation lease")
    created_at = models.DateTimeField(auto_now_add=True)
    validated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bot", "package"], name="version_unique_bytes"),
            models.UniqueConstraint(fields=["bot", "number"], name="version_unique_number"),
        ]
        ordering = ["bot", "-number"]

    def __str__(self) -> str:
        return f"{self.bot} v{self.number}"

    @property
    def sha256(self) -> str:
        return str(self.package_id)

    @property
    def run_package(self) -> tuple[str, str]:
        """(sha256, file name) of what runs: the build's executable, else the upload itself."""
        if self.build_id is not None:
            assert self.build is not None
            return str(self.build.binary_id), BUILD_FILENAME
        return self.sha256, self.filename


class ValidationReplay(models.Model):
    """The replay JSON of a version's smoke match, zlib-compressed: kept apart from the
    version so that listing versions never loads it (as ``MatchReplay`` for matches)."""

    version = models.OneToOneField(BotVersion, on_delete=models.CASCADE, primary_key=True,
                                   related_name="validation_replay")  # fmt: skip
    data = models.BinaryField()

    def __str__(self) -> str:
        return f"validation replay of {self.version_id}"
