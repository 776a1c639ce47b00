"""What a person sees in headless Chromium (Debian's, driven by Playwright) against a live
server: the replay viewer of every game, the live progress bar, the two languages, sign-up, the
API token page, a whole author's journey with a real Celery worker, and an accessibility check
(axe-core, vendored under ``tests/platform/vendor/``) of the main pages, whose screenshots at
phone and desktop widths are kept under ``var/screenshots/``."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, Page, expect, sync_playwright
from pytest_django.live_server_helper import LiveServer

from bots.models import Bot, BotVersionStatus
from tests.platform.factories import UserFactory, active_bot
from tests.platform.test_web_pages import played_match, record_played
from tests.platform.workers import StartWorker, Worker
from tournaments.models import Tournament
from tournaments.services import tournament_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
SCREENSHOTS = ROOT / "var" / "screenshots"
WIDTHS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}

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


def test_token_page_creates_shows_once_and_revokes(page: Page, live_server: LiveServer) -> None:
    User.objects.create_user("tokenuser", password="a-Long-pass-77")
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("tokenuser")
    page.get_by_label("Password").fill("a-Long-pass-77")
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="API tokens").click()
    expect(page.get_by_text("You have no tokens yet.")).to_be_visible()
    page.get_by_label("Token name").fill("laptop")
    page.get_by_role("button", name="Create the token").click()
    secret = page.locator("#token-secret").inner_text()
    assert re.fullmatch(r"\w{20,}", secret)
    expect(page.get_by_role("cell", name="laptop", exact=True)).to_be_visible()
    page.goto("/accounts/tokens/")
    expect(page.locator("#token-secret")).to_have_count(0)  # shown once
    page.get_by_role("button", name="Revoke the token “laptop”").click()
    expect(page.get_by_text("The token “laptop” is revoked.")).to_be_visible()
    expect(page.get_by_text("You have no tokens yet.")).to_be_visible()


# -- a whole journey with a real worker -------------------------------------------------------


def wait_until(condition: Callable[[], bool], worker: Worker, what: str,
               timeout_s: float = 300) -> None:  # fmt: skip
    deadline = time.monotonic() + timeout_s
    while not condition():
        worker.assert_alive()
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout_s} s\n{worker.log.read_text()[-3000:]}")
        time.sleep(0.3)


@pytest.mark.integration
@pytest.mark.timeout(900)
def test_an_author_signs_up_uploads_runs_a_tournament_and_watches_a_replay(
    page: Page, start_worker: StartWorker
) -> None:
    house = [active_bot("belote") for _ in range(2)]  # runnable packages, validated already
    worker = start_worker("browser")
    page.goto("/accounts/signup/")
    page.get_by_label("Username").fill("journey")
    page.get_by_label("Password:", exact=True).fill("a-Long-pass-77")
    page.get_by_label("Password confirmation:").fill("a-Long-pass-77")
    page.get_by_role("button", name="Create the account").click()

    page.get_by_label("Bot name").fill("minimal")
    page.get_by_label("Game").select_option("belote")
    page.get_by_label("Program").set_input_files(ROOT / "examples" / "belote" / "minimal.py")
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("minimal")
    bot = Bot.objects.get(owner__username="journey", name="minimal")

    def validated() -> bool:
        version = bot.versions.get()
        assert version.status != BotVersionStatus.REJECTED, version.reason
        return version.status == BotVersionStatus.ACTIVE

    wait_until(validated, worker, "validation of the uploaded bot")
    page.goto("/tournaments/new/?game=belote")
    page.get_by_label("Name:", exact=True).fill("Journey cup")
    for entrant in [bot, *house]:
        page.get_by_label(f"{entrant.owner.username}/{entrant.name} (belote)").check()
    page.get_by_label("Duplicate deals").uncheck()
    page.get_by_role("button", name="Create", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Journey cup")
    page.evaluate("window.notReloaded = true")
    tournament = Tournament.objects.get(name="Journey cup")
    total = tournament.matches.count()
    expect(page.locator("#progress-text")).to_contain_text(
        f"{total} of {total} matches played", timeout=600_000
    )
    expect(page.locator("#progress-text")).to_contain_text("Finished")
    assert page.evaluate("window.notReloaded") is True  # htmx advanced it in place

    page.reload()  # the standings link each match's replay once it is over
    match = tournament.matches.order_by("id").first()
    assert match is not None
    page.goto(f"/matches/{match.pk}/")
    expect(page.locator("#board .seat")).to_have_count(match.seats.count())
    page.get_by_role("button", name="Step forward").click()
    expect(page.locator("#counter")).to_contain_text("1 /")
    worker.assert_alive()


# -- accessibility and screenshots ------------------------------------------------------------


def main_pages() -> dict[str, str]:
    """The main pages' addresses, with real rows behind them."""
    match = played_match("barbu")
    bot_id = match.seats.first().bot_id  # type: ignore[union-attr]
    bots = [active_bot("belote") for _ in range(3)]
    tournament = tournament_create(created_by=UserFactory(), name="Spring", game="belote",
                                   bot_ids=[b.pk for b in bots])  # fmt: skip
    record_played(tournament.matches.order_by("id")[0])
    return {
        "home": "/", "ladder": "/ladder/barbu/", "bot": f"/bots/{bot_id}/",
        "tournament": f"/tournaments/{tournament.pk}/", "match": f"/matches/{match.pk}/",
        "rules": "/rules/barbu/", "signup": "/accounts/signup/",
    }  # fmt: skip


def serious_violations(page: Page) -> list[dict[str, object]]:
    """axe-core's serious and critical findings on the page as it is now."""
    page.evaluate(AXE.read_text(encoding="utf-8"))  # through the driver: the CSP allows no inline
    found: list[dict[str, object]] = page.evaluate("""async () => {
        const result = await axe.run(document, { resultTypes: ["violations"] });
        return result.violations.map((v) => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
        }));
    }""")
    return [v for v in found if v["impact"] in ("serious", "critical")]


def test_main_pages_have_no_serious_accessibility_problems_and_are_photographed(
    browser: Browser, live_server: LiveServer, held_matches: list[int]
) -> None:
    pages = main_pages()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    problems = {}
    for width, viewport in WIDTHS.items():
        context = browser.new_context(base_url=live_server.url, locale="en-GB",
                                      viewport=viewport)  # type: ignore[arg-type]  # fmt: skip
        page = context.new_page()
        for name, url in pages.items():
            page.goto(url)
            if name == "match":
                expect(page.locator("#board .seat")).to_have_count(4)
            found = serious_violations(page)
            if found:
                problems[f"{name} ({width})"] = found
            page.screenshot(path=SCREENSHOTS / f"{name}-{width}.png", full_page=True)
        context.close()
    assert problems == {}
    assert {p.name for p in SCREENSHOTS.glob("*.png")} >= {
        f"{name}-{width}.png" for name in pages for width in WIDTHS
    }


@pytest.mark.parametrize("locale", ["en-GB", "ko-KR"])
def test_documents_fit_a_phone_and_have_no_serious_accessibility_problems(
    browser: Browser, live_server: LiveServer, locale: str
) -> None:
    """Every served document and rules page: only a wide table, figure or code block scrolls
    sideways (the ranking tables have twelve columns, its plots are 680 px), never the page."""
    from tests.platform.test_document_links import DOCUMENTS

    problems: dict[str, object] = {}
    for width, viewport in WIDTHS.items():
        context = browser.new_context(base_url=live_server.url, locale=locale,
                                      viewport=viewport)  # type: ignore[arg-type]  # fmt: skip
        page = context.new_page()
        for url in DOCUMENTS:
            page.goto(url)
            overflow = page.evaluate("document.documentElement.scrollWidth - innerWidth")
            if overflow > 0:
                problems[f"{url} ({width})"] = f"the page scrolls {overflow} px sideways"
            found = serious_violations(page)
            if found:
                problems[f"{url} ({width}) axe"] = found
        context.close()
    assert problems == {}
