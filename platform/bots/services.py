"""Writes for bots and versions: create, check the package, validate in the sandbox.

An upload is checked with every package check of the sandbox before anything is stored, so a
refused upload leaves nothing behind; a stored version then waits for its validation task, a
smoke match in the sandbox against the engine's heuristic house agents (every seat, via
duplicate play), which makes it ``active`` or ``rejected`` with the fault explained. A compiled
runtime's sources are built first (``bots.builds``, once per source package); a compile error
rejects the version, the compiler's messages going to its owner-only log.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
import uuid
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import F, Max, Q
from django.utils import timezone

import engine
from arena.dispatch import send_on_commit
from arena.errors import ApplicationError
from bots.builds import build_for_version
from bots.models import (
    VERSION_TRANSITIONS,
    Bot,
    BotVersion,
    BotVersionStatus,
    Package,
    ValidationReplay,
)
from engine.options import SMOKE_PARAMS
from matches import formats
from matches.execution import PlatformFailure, SeatBot, fault_summary, play
from matches.heartbeats import workers_lost
from sandbox import BotPackageError, PackageCaps, load_bot
from sandbox.compile import CompileError
from sandbox.runtimes import RUNTIMES

MAX_UPLOAD_BYTES = PackageCaps().max_archive_bytes
BOT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
VALIDATION_LEASE = timedelta(minutes=10)
VALIDATION_ATTEMPTS = 3
COMPILE_ERROR = "compile_error"  # a version's fault when its sources did not build


def bot_create(*, owner: User, name: str, game: str) -> Bot:
    """A new, empty bot (it plays once a version validates)."""
    if not BOT_NAME.match(name):
        raise ApplicationError(
            "a bot name has 1 to 64 letters, digits, '.', '_' or '-' and starts with a letter "
            "or digit",
            code="invalid_name",
            field="name",
        )
    if game not in engine.available_games():
        raise ApplicationError(
            f"unknown game {game!r} (one of {', '.join(engine.available_games())})",
            code="unknown_game",
            field="game",
        )
    duplicate = ApplicationError(
        f"you already have a bot named {name!r}", code="duplicate_name", field="name"
    )
    if Bot.objects.filter(owner=owner, name=name).exists():
        raise duplicate
    try:
        with transaction.atomic():  # a concurrent request may have taken the name meanwhile
            return Bot.objects.create(owner=owner, name=name, game=game)
    except IntegrityError:
        raise duplicate from None


def bot_create_with_version(
    *, owner: User, name: str, game: str, chunks: Iterable[bytes], filename: str
) -> BotVersion:
    """A bot and its first version, or nothing at all if the package is refused."""
    checked = _check_package(chunks, filename)
    with transaction.atomic():
        bot = bot_create(owner=owner, name=name, game=game)
        return _store_version(bot=bot, checked=checked)


def botversion_create(*, bot: Bot, chunks: Iterable[bytes], filename: str) -> BotVersion:
    """Store a new version of ``bot`` and queue its validation (after commit)."""
    checked = _check_package(chunks, filename)
    with transaction.atomic():
        return _store_version(bot=bot, checked=checked)


@dataclass(frozen=True)
class _Checked:
    """An upload the sandbox accepted, not stored yet."""

    data: bytes
    sha256: str
    filename: str
    runtime: str
    entry: str


def _check_package(chunks: Iterable[bytes], filename: str) -> _Checked:
    """Read the upload once (refusing it past the size cap) and run the sandbox's checks."""
    safe = _safe_filename(filename)
    parts: list[bytes] = []
    size = 0
    hasher = hashlib.sha256()
    for chunk in chunks:
        size += len(chunk)
        if size > MAX_UPLOAD_BYTES:
            raise ApplicationError(
                f"the upload is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MiB",
                code="too_large", field="file",
            )  # fmt: skip
        parts.append(chunk)
        hasher.update(chunk)
    data = b"".join(parts)
    if not data:
        raise ApplicationError("the upload is empty", code="empty_file", field="file")
    with tempfile.TemporaryDirectory(prefix="arena-upload-") as folder:
        path = Path(folder) / safe
        path.write_bytes(data)
        try:
            with load_bot(path) as package:
                return _Checked(data, hasher.hexdigest(), safe, package.runtime, package.entry)
        except BotPackageError as err:
            raise ApplicationError(str(err), code="bad_package", field="file") from None


def _safe_filename(filename: str) -> str:
    """The upload's own name (its suffix tells the runtime), reduced to harmless characters."""
    base = Path(filename.replace("\\", "/")).name
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", base).lstrip(".")[:100]
    return cleaned or "bot"


def _store_version(*, bot: Bot, checked: _Checked) -> BotVersion:
    Bot.objects.select_for_update().filter(pk=bot.pk).first()  # numbers versions one at a time
    existing = BotVersion.objects.filter(bot=bot, package_id=checked.sha256).first()
    if existing is not None:
        raise ApplicationError(
            f"these exact bytes are already version {existing.number} of {bot.name} "
            f"({existing.status})",
            code="duplicate_version", field="file",
        )  # fmt: skip
    Package.objects.get_or_create(
        sha256=checked.sha256, defaults={"data": checked.data, "size": len(checked.data)}
    )
    number = (bot.versions.aggregate(n=Max("number"))["n"] or 0) + 1
    version = BotVersion.objects.create(
        bot=bot, number=number, package_id=checked.sha256, filename=checked.filename,
        runtime=checked.runtime, entry=checked.entry, size=len(checked.data),
    )  # fmt: skip
    _enqueue_validation(version.pk)
    return version


def _enqueue_validation(version_id: int, *, countdown_s: int = 0) -> None:
    from bots.tasks import validate_version_task

    def resend_soon() -> None:  # due for the reaper's next re-send, not a period later
        pending = BotVersion.objects.filter(pk=version_id, status=BotVersionStatus.PENDING)
        pending.update(deadline=timezone.now())

    send_on_commit(validate_version_task, version_id, countdown=countdown_s, unsent=resend_soon)


def botversion_transition(
    *, version_id: int, frm: str, to: str, token: uuid.UUID | None = None, **fields: Any
) -> bool:
    """Move a version from ``frm`` to ``to`` if it is still in ``frm`` and, given a claim's
    token, still held by that claim (compare-and-swap)."""
    if to not in VERSION_TRANSITIONS[frm]:
        raise ValueError(f"a bot version cannot go from {frm} to {to}")
    matching = BotVersion.objects.filter(pk=version_id, status=frm)
    if token is not None:
        matching = matching.filter(run_token=token)
    return matching.update(status=to, **fields) == 1


def botversion_validate(*, version_id: int, worker: str = "inline") -> str | None:
    """Claim a pending version, play its smoke match, record the verdict; the new status, or
    ``None`` if another worker had it (a task delivered twice does nothing the second time).
    The verdict is recorded only by the claim that still holds its token: a claim the reaper
    gave back (its ``worker``'s heartbeat stopped, or the lease ended) records nothing."""
    token = uuid.uuid4()
    claimed = botversion_transition(
        version_id=version_id, frm=BotVersionStatus.PENDING, to=BotVersionStatus.VALIDATING,
        attempts=F("attempts") + 1, deadline=timezone.now() + VALIDATION_LEASE,
        run_token=token, worker=worker[:255],
    )  # fmt: skip
    if not claimed:
        return None
    version = BotVersion.objects.select_related("bot", "build").get(pk=version_id)
    if RUNTIMES[version.runtime].compiled and version.build_id is None:
        try:
            version.build = build_for_version(version=version)
        except CompileError as err:  # the compiler's messages: the owner's log, not the reason
            botversion_transition(
                version_id=version_id, frm=BotVersionStatus.VALIDATING, token=token,
                to=BotVersionStatus.REJECTED, fault=COMPILE_ERROR,
                reason=f"{err.reason} (the compiler's messages are in the version's log)",
                log=err.log, deadline=None, validated_at=timezone.now(),
            )  # fmt: skip
            return BotVersionStatus.REJECTED
        except PlatformFailure as err:
            _validation_failed(version, str(err))
            return BotVersionStatus.PENDING
        BotVersion.objects.filter(pk=version_id).update(build=version.build)
    game = formats.load(version.bot.game, SMOKE_PARAMS.get(version.bot.game, {}))
    own_seats = [s for s, e in enumerate(formats.seat_entrants(game)) if e == 0]
    me = SeatBot(str(version), *version.run_package)
    try:
        played = play(
            game=game.name, params=game.params_dict(), seed=version.pk, duplicate=True,
            seats=[me if s in own_seats else None for s in range(game.num_players)],
        )  # fmt: skip
    except PlatformFailure as err:
        _validation_failed(version, str(err))
        return BotVersionStatus.PENDING
    evidence = {"validation": validation_summary(played.result)}
    replay = json.dumps(played.result.replay, separators=(",", ":")).encode()
    ValidationReplay.objects.update_or_create(
        version_id=version_id, defaults={"data": zlib.compress(replay, 1)}
    )
    for seat in own_seats:
        verdict, message = fault_summary(played.result, seat)
        if verdict:
            botversion_transition(
                version_id=version_id, frm=BotVersionStatus.VALIDATING, token=token,
                to=BotVersionStatus.REJECTED, fault=verdict, reason=message,
                log=played.logs[seat], deadline=None, validated_at=timezone.now(), **evidence,
            )  # fmt: skip
            return BotVersionStatus.REJECTED
    with transaction.atomic():
        if not botversion_transition(
            version_id=version_id, frm=BotVersionStatus.VALIDATING, to=BotVersionStatus.ACTIVE,
            token=token, reason="", log=played.logs[own_seats[0]], deadline=None,
            validated_at=timezone.now(), **evidence,
        ):  # fmt: skip
            return None  # the reaper gave this claim back meanwhile
        newer = Q(current_version__isnull=True) | Q(current_version__number__lt=version.number)
        Bot.objects.filter(newer, pk=version.bot_id).update(current_version=version)
    return BotVersionStatus.ACTIVE


def validation_summary(result: engine.MatchResult) -> dict[str, Any]:
    """What a smoke match played, for the version's page: the rules, the games, and the
    validated bot's (entrant 0's) decisions with their mean and max time."""
    times = [
        event["ms"]
        for played in result.replay["games"]
        for deal in played["deals"]
        for event in deal["events"]
        if played["seats"][event["seat"]] == 0
    ]
    return {
        "game": result.game, "params": result.params, "games": len(result.games),
        "decisions": len(times),
        "mean_ms": round(sum(times) / len(times), 2) if times else None,
        "max_ms": round(max(times), 2) if times else None,
    }  # fmt: skip


def _validation_failed(version: BotVersion, error: str) -> bool:
    """The platform could not validate: back to pending (if ``version``'s claim still holds),
    and retried while attempts remain."""
    retry = version.attempts < VALIDATION_ATTEMPTS
    reason = "validation could not run on our side" + ("; it will be retried" if retry else "")
    returned = botversion_transition(
        version_id=version.pk, frm=BotVersionStatus.VALIDATING, to=BotVersionStatus.PENDING,
        token=version.run_token, reason=f"{reason} ({error})", deadline=None,
    )  # fmt: skip
    if returned and retry:
        _enqueue_validation(version.pk, countdown_s=30)
    return returned


def botversions_redispatch(*, now: Any = None, everything: bool = False) -> int:
    """Send again the validation of versions ``pending`` for longer than
    ``ARENA_MATCH_REDISPATCH_S``, or of ``everything`` pending (the broker restarted empty:
    every queued message is gone); how many. A pending version's ``deadline`` says when it may
    be re-sent next, so a backlog is re-sent once per period; a message that was not lost after
    all only makes a claim that changes nothing."""
    now = now or timezone.now()
    period = timedelta(seconds=settings.ARENA_MATCH_REDISPATCH_S)
    overdue = Q(deadline__isnull=True, created_at__lt=now - period) | Q(deadline__lt=now)
    due = Q() if everything else overdue
    with transaction.atomic():
        ids = list(
            BotVersion.objects.select_for_update(skip_locked=True)
            .filter(due, status=BotVersionStatus.PENDING)
            .values_list("id", flat=True)
        )
        BotVersion.objects.filter(pk__in=ids).update(deadline=now + period)
        for version_id in ids:
            _enqueue_validation(version_id)
    return len(ids)


def botversions_reap(*, now: Any = None) -> int:
    """Return versions whose validation worker was lost (its heartbeat stopped, or the lease
    expired) to ``pending``; how many."""
    now = now or timezone.now()
    lost = Q(deadline__lt=now) | Q(worker__in=list(workers_lost()))
    stuck = BotVersion.objects.filter(lost, status=BotVersionStatus.VALIDATING)
    reason = "the worker validating it was lost"
    return sum(_validation_failed(version, reason) for version in stuck)
