"""Bots and versions: package checks before storing, duplicates, the version status table, and
validation in the real sandbox (inline here; through a worker in test_platform_flow.py)."""

from __future__ import annotations

import itertools

import pytest
from pytest_django import DjangoCaptureOnCommitCallbacks

from arena.errors import ApplicationError
from bots.models import VERSION_TRANSITIONS, Bot, BotVersion, BotVersionStatus, Package
from bots.services import (
    MAX_UPLOAD_BYTES,
    bot_create,
    bot_create_with_version,
    botversion_create,
    botversion_transition,
    botversion_validate,
    botversions_reap,
)
from tests.platform.factories import CRASHES, FIRST_LEGAL, BotFactory, UserFactory, add_version

pytestmark = pytest.mark.django_db


def upload(bot: Bot, source: str, filename: str = "bot.py") -> BotVersion:
    return botversion_create(bot=bot, chunks=[source.encode()], filename=filename)


def test_bot_names_games_and_duplicates_are_checked() -> None:
    owner = UserFactory()
    bot_create(owner=owner, name="greedy", game="barbu")
    cases = [("greedy", "barbu", "duplicate_name"), ("bad name!", "barbu", "invalid_name"),
             ("other", "poker", "unknown_game")]  # fmt: skip
    for name, game, code in cases:
        with pytest.raises(ApplicationError) as caught:
            bot_create(owner=owner, name=name, game=game)
        assert caught.value.code == code
    assert bot_create(owner=UserFactory(), name="greedy", game="barbu")  # per user


@pytest.mark.parametrize(
    ("filename", "content", "code", "words"),
    [
        ("notes.txt", b"hello", "bad_package", "cannot tell the runtime"),
        ("bot.zip", b"PK\x03\x04 broken", "bad_package", "not a zip archive"),
        ("bot.py", b"", "empty_file", "empty"),
        ("bot.py", b"#" * (MAX_UPLOAD_BYTES + 1), "too_large", "MiB"),
    ],
)
def test_a_refused_upload_stores_nothing(
    filename: str, content: bytes, code: str, words: str
) -> None:
    owner = UserFactory()
    with pytest.raises(ApplicationError) as caught:
        bot_create_with_version(
            owner=owner, name="x", game="belote", chunks=[content], filename=filename
        )
    assert caught.value.code == code and words in caught.value.message
    assert not Bot.objects.exists() and not Package.objects.exists()


def test_versions_are_numbered_and_the_same_bytes_are_refused(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    bot = BotFactory(game="badugi")
    with django_capture_on_commit_callbacks() as callbacks:
        first = upload(bot, FIRST_LEGAL)
        second = upload(bot, FIRST_LEGAL + "\n# v2\n")
    assert len(callbacks) == 2  # one validation task each, sent after commit
    assert (first.number, second.number) == (1, 2)
    assert (first.status, first.runtime, first.entry) == ("pending", "python3", "bot.py")
    with pytest.raises(ApplicationError) as caught:
        upload(bot, FIRST_LEGAL, filename="again.py")
    assert caught.value.code == "duplicate_version"
    assert "already version 1" in caught.value.message
    assert bot.versions.count() == 2 and Package.objects.count() == 2


def test_every_status_change_outside_the_table_is_refused() -> None:
    version = add_version(BotFactory(), status=BotVersionStatus.PENDING)
    for frm, to in itertools.product(BotVersionStatus.values, repeat=2):
        if to in VERSION_TRANSITIONS[frm]:
            continue
        with pytest.raises(ValueError, match="cannot go from"):
            botversion_transition(version_id=version.pk, frm=frm, to=to)


@pytest.mark.django_db(transaction=True)
def test_validation_activates_a_good_bot_and_makes_it_current() -> None:
    bot = BotFactory(game="bauer")
    old = add_version(bot)
    new = upload(bot, FIRST_LEGAL + "# new\n")  # inline execution: validated on commit
    new.refresh_from_db()
    bot.refresh_from_db()
    assert new.status == BotVersionStatus.ACTIVE and new.validated_at is not None
    assert bot.current_version_id == new.pk != old.pk
    assert botversion_validate(version_id=new.pk) is None  # delivered twice: nothing happens


@pytest.mark.django_db(transaction=True)
def test_validation_rejects_a_crashing_bot_with_its_fault_and_private_stderr() -> None:
    bot = BotFactory(game="barbu")
    version = upload(bot, CRASHES)
    version.refresh_from_db()
    bot.refresh_from_db()
    assert version.status == BotVersionStatus.REJECTED
    assert version.fault == "crash"
    assert version.reason.startswith("game 1, at start-up:")
    assert "my bug is here" in version.log and "my bug" not in version.reason
    assert bot.current_version is None


@pytest.mark.django_db(transaction=True)
def test_a_lost_validation_goes_back_to_pending_and_is_retried() -> None:
    version = add_version(BotFactory(game="belote"), status=BotVersionStatus.PENDING)
    BotVersion.objects.filter(pk=version.pk).update(
        status=BotVersionStatus.VALIDATING, attempts=1, deadline="2000-01-01T00:00:00Z"
    )
    assert botversions_reap() == 1
    version.refresh_from_db()  # inline: the retry ran at once
    assert version.status == BotVersionStatus.ACTIVE
    assert version.attempts == 2


def test_a_pending_validation_whose_message_was_lost_is_sent_again_once_per_period(
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    from datetime import timedelta

    from django.conf import settings
    from django.utils import timezone

    import bots.services

    sent: list[int] = []
    monkeypatch.setattr(bots.services, "_enqueue_validation", sent.append)
    bot = BotFactory(game="barbu")
    lost = add_version(bot, status=BotVersionStatus.PENDING)
    fresh = add_version(bot, status=BotVersionStatus.PENDING)
    period = timedelta(seconds=settings.ARENA_MATCH_REDISPATCH_S)
    BotVersion.objects.filter(pk=lost.pk).update(created_at=timezone.now() - 2 * period)
    now = timezone.now()
    assert bots.services.botversions_redispatch(now=now) == 1
    assert sent == [lost.pk]  # the fresh one's message may still be on its way
    assert bots.services.botversions_redispatch(now=now + period / 2) == 0  # once per period
    later = now + period * 2
    assert bots.services.botversions_redispatch(now=later) == 2  # both now overdue
    assert sorted(sent[1:]) == sorted([lost.pk, fresh.pk])


@pytest.mark.django_db(transaction=True)
def test_a_validated_version_shows_what_its_smoke_match_played_and_its_replay() -> None:
    """Every result explained: the games, the bot's decisions and times, and the replay of the
    smoke match (which re-simulates), on the bot page and in the API."""
    from django.test import Client

    import engine

    bot = BotFactory(game="barbu")
    version = upload(bot, FIRST_LEGAL)
    version.refresh_from_db()
    summary = version.validation
    assert version.status == BotVersionStatus.ACTIVE and summary is not None
    assert summary["game"] == "barbu" and summary["games"] == 4  # every seat once
    assert summary["decisions"] > 0 and 0 <= summary["mean_ms"] <= summary["max_ms"]
    page = Client().get(f"/bots/{bot.pk}/").content.decode()
    assert f"{summary['decisions']} decisions" in page
    link = f"/bots/{bot.pk}/versions/{version.pk}/validation.json"
    assert f'href="{link}"' in page
    replay = Client().get(link).json()
    assert len(engine.resimulate(replay)) == 4 and replay["entrants"][0] == str(version)
    other_bot = f"/bots/{bot.pk + 1}/versions/{version.pk}/validation.json"
    assert Client().get(other_bot).status_code == 404
    rejected = upload(BotFactory(game="belote"), CRASHES)
    rejected.refresh_from_db()
    assert rejected.validation is not None and rejected.validation["games"] == 2
