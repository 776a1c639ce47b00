"""The few seconds of cache for anonymous visitors' public pages (``arena.pagecache``)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.core.cache import cache
from django.http import HttpResponse
from django.test import Client

from api.services import token_create
from arena.pagecache import IMMUTABLE_SECONDS, rendering_lock
from bots.models import Bot
from tests.platform.factories import UserFactory, active_bot
from tests.platform.test_web_pages import played_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def cached_pages(settings: Any) -> None:
    settings.ARENA_PAGE_CACHE_SECONDS = 60
    cache.clear()


def rename(bot: Bot, name: str) -> None:
    Bot.objects.filter(pk=bot.pk).update(name=name)


def test_an_anonymous_visitor_gets_the_page_the_previous_one_got(cached_pages: None) -> None:
    bot = active_bot("belote")
    rename(bot, "before")
    assert "before" in Client().get(f"/bots/{bot.pk}/").content.decode()
    rename(bot, "after")
    again = Client().get(f"/bots/{bot.pk}/")
    assert again.status_code == 200 and "before" in again.content.decode()
    assert "Content-Security-Policy" in again  # the outer middleware still applies


def test_without_the_cache_every_request_renders_afresh() -> None:
    bot = active_bot("belote")
    rename(bot, "before")
    Client().get(f"/bots/{bot.pk}/")
    rename(bot, "after")
    assert "after" in Client().get(f"/bots/{bot.pk}/").content.decode()


def test_signed_in_authors_and_token_holders_always_see_the_current_page(
    cached_pages: None,
) -> None:
    bot = active_bot("belote")
    rename(bot, "before")
    Client().get(f"/bots/{bot.pk}/")
    Client().get(f"/api/bots/{bot.pk}/")
    rename(bot, "after")
    author = Client()
    author.force_login(bot.owner)
    assert "after" in author.get(f"/bots/{bot.pk}/").content.decode()
    token = token_create(user=UserFactory(), name="t")[1]
    api = Client().get(f"/api/bots/{bot.pk}/", HTTP_AUTHORIZATION=f"Token {token}")
    assert api.json()["name"] == "after"


def test_the_language_the_format_and_htmx_partials_are_cached_apart(cached_pages: None) -> None:
    korean = Client().get("/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    english = Client().get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="ko">' in korean and '<html lang="en">' in english
    chosen = Client()
    chosen.cookies["django_language"] = "ko"
    assert '<html lang="ko">' in chosen.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    bot = active_bot("belote")
    as_json = Client().get(f"/api/bots/{bot.pk}/", HTTP_ACCEPT="application/json")
    as_html = Client().get(f"/api/bots/{bot.pk}/", HTTP_ACCEPT="text/html")
    assert as_json["Content-Type"].startswith("application/json")
    assert as_html.status_code == 406  # the API speaks JSON only: not the cached JSON page


def test_only_public_successful_cookie_free_pages_are_stored(cached_pages: None) -> None:
    Client().get("/bots/999999/")  # 404
    Client().get("/accounts/login/")  # not a public page, and it sets the CSRF cookie
    bot = active_bot("belote")
    Client().get(f"/bots/{bot.pk}/")
    stored = [key for key in cache._cache if ":page:" in key]  # type: ignore[attr-defined]
    assert len(stored) == 1


def test_a_visitor_with_a_session_or_a_message_bypasses_the_cache(cached_pages: None) -> None:
    bot = active_bot("belote")
    rename(bot, "before")
    Client().get(f"/bots/{bot.pk}/")
    rename(bot, "after")
    visitor = Client()
    visitor.cookies["messages"] = "anything"
    assert "after" in visitor.get(f"/bots/{bot.pk}/").content.decode()


def test_a_finished_matchs_replay_is_kept_longer_than_a_page(
    cached_pages: None, settings: Any, held_matches: list[int]
) -> None:
    settings.ARENA_PAGE_CACHE_SECONDS = 5
    match = played_match("belote")
    Client().get(f"/matches/{match.pk}/")
    Client().get(f"/api/matches/{match.pk}/replay/")
    fresh = [fresh_until - time.time() for _, fresh_until in stored_pages().values()]
    assert sorted(round(seconds, -1) for seconds in fresh) == [0, IMMUTABLE_SECONDS]


def test_while_one_request_renders_a_page_again_the_others_get_the_previous_copy(
    cached_pages: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = active_bot("belote")
    rename(bot, "before")
    url = f"/bots/{bot.pk}/"
    Client().get(url)
    rename(bot, "after")
    now = time.time
    monkeypatch.setattr(time, "time", lambda: now() + 61)  # the copy is no longer fresh
    (key,) = stored_pages()
    assert cache.add(rendering_lock(key), 1)  # another request is rendering it
    assert "before" in Client().get(url).content.decode()
    cache.delete(rendering_lock(key))
    assert "after" in Client().get(url).content.decode()  # this one rendered it
    assert cache.get(rendering_lock(key)) is None  # and released the lock
    rename(bot, "later")
    assert "after" in Client().get(url).content.decode()  # the new copy is fresh


def stored_pages() -> dict[str, tuple[HttpResponse, float]]:
    """The cached pages by key (as given to the cache): each with the time it is fresh until."""
    keys = [key.split(":", 2)[2] for key in cache._cache if ":page:" in key]  # type: ignore[attr-defined]
    return {key: cache.get(key) for key in keys if not key.endswith(rendering_lock(""))}
