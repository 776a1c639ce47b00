"""What a person sees in headless Chromium (Debian's, driven by Playwright) against a live
server: the replay viewer of every game, the live progress bar, the two languages, sign-up."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright
from pytest_django.live_server_helper import LiveServer

from tests.platform.factories import UserFactory, active_bot
from tests.platform.test_web_pages import played_match, record_played
from tournaments.services import tournament_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Flags for a root user on a machine without outside network access.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def browser(chromium_path: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Browser]:
    # Playwright's sync API keeps an event loop in this thread; the test's own database calls
    # (making matches while the page watches) are plain synchronous ones all the same
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(browser: Browser, live_server: LiveServer) -> Page:
    return browser.new_page(base_url=live_server.url, locale="en-GB")


def counter(page: Page) -> int:
    return int(page.locator("#counter").inner_text().split("/")[0])


@pytest.mark.parametrize("game", ["belote", "bauer", "barbu", "badugi"])
def test_replay_viewer_steps_seeks_switches_seat_and_downloads(
    page: Page, held_matches: list[int], game: str
) -> None:
    match = played_match(game)
    page.goto(f"/matches/{match.pk}/")
    expect(page.locator("#board .seat")).to_have_count(match.seats.count())
    expect(page.locator("#counter")).to_contain_text("0 /")
    page.locator("body").press("ArrowRight")
    page.locator("body").press("ArrowRight")
    expect(page.locator("#counter")).to_contain_text("2 /")
    page.get_by_role("button", name="Step back").click()
    expect(page.locator("#counter")).to_contain_text("1 /")
    assert page.locator('#board .hand [data-card="??"]').count() == 0  # all cards shown
    page.locator("#scrubber").fill("12")  # seek with the scrubber
    expect(page.locator("#counter")).to_contain_text("12 /")
    expect(page).to_have_url(re.compile(r"step=12"))
    assert page.locator("#board .story-list li").count() >= 2

    page.locator("#viewpoint").select_option("1")  # seat 1's view: a new page from the server
    expect(page).to_have_url(re.compile(r"seat=1"))
    expect(page.locator("#counter")).to_contain_text("12 /")
    others = page.locator('#board .hand:not([data-seat="1"]) [data-card]')
    for _ in range(3):
        cards = others.evaluate_all("els => els.map(e => e.dataset.card)")
        assert cards and set(cards) == {"??"}, cards
        assert page.locator('#board .hand[data-seat="1"] [data-card]').count() > 0
        page.get_by_role("button", name="Step forward").click()
    assert '"deck": [' not in page.content()
    with page.expect_download() as download:
        page.get_by_role("link", name="Download the replay (JSON)").click()
    assert download.value.suggested_filename == f"match-{match.pk}-seat1.json"

    page.locator("body").press("End")
    expect(page.locator("#board .info-line")).to_be_visible()
    page.locator("body").press("Space")  # play at the end restarts from the start
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    page.locator("body").press("Space")
    expect(page.get_by_role("button", name="Play")).to_be_visible()


def test_progress_bar_advances_without_a_reload(page: Page, held_matches: list[int]) -> None:
    bots = [active_bot("belote") for _ in range(3)]
    tournament = tournament_create(created_by=UserFactory(), name="Live", game="belote",
                                   bot_ids=[b.pk for b in bots])  # fmt: skip
    page.goto(f"/tournaments/{tournament.pk}/")
    expect(page.locator("#progress-text")).to_contain_text("0 of 3 matches played")
    page.evaluate("window.notReloaded = true")
    for match in tournament.matches.order_by("id"):
        record_played(match)
    expect(page.locator("#progress-text")).to_contain_text("3 of 3 matches played", timeout=20_000)
    expect(page.locator("#progress-text")).to_contain_text("Finished")
    assert page.evaluate("window.notReloaded") is True


def test_korean_browser_sees_korean_and_switches_to_english(
    browser: Browser, live_server: LiveServer
) -> None:
    page = browser.new_page(base_url=live_server.url, locale="ko-KR")
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    expect(page.get_by_role("heading", name="진행 중인 토너먼트")).to_be_visible()
    expect(page.get_by_role("heading", name="바둑이")).to_be_visible()
    page.get_by_label("언어").select_option("en")
    page.get_by_role("button", name="바꾸기").click()
    expect(page.get_by_role("heading", name="Running tournaments")).to_be_visible()
    page.goto("/ladder/barbu/")  # remembered
    expect(page.get_by_role("heading", level=1)).to_have_text("Barbu ladder")


def test_a_visitor_signs_up_and_reaches_the_upload_form(page: Page) -> None:
    page.goto("/")
    page.get_by_role("link", name="Sign up").click()
    page.get_by_label("Username").fill("newauthor")
    page.get_by_label("Password:", exact=True).fill("a-Long-pass-77")
    page.get_by_label("Password confirmation:").fill("a-Long-pass-77")
    page.get_by_role("button", name="Create the account").click()
    expect(page.get_by_role("heading", name="New bot")).to_be_visible()
    expect(page.get_by_role("button", name="Log out (newauthor)")).to_be_visible()
