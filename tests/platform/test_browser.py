"""What a person sees in headless Chromium (Debian's, driven by Playwright)."""

import re
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect, sync_playwright
from pytest_django.live_server_helper import LiveServer

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
def page(chromium_path: str, live_server: LiveServer) -> Iterator[Page]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        try:
            yield browser.new_page(base_url=live_server.url)
        finally:
            browser.close()


@pytest.fixture
def admin_user(django_user_model: type[User]) -> User:
    return django_user_model.objects.create_superuser("admin", "admin@example.org", "pw-admin-1")


def test_visitor_goes_from_home_page_to_admin_and_logs_in(admin_user: User, page: Page) -> None:
    page.goto("/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Card Arena")
    page.get_by_role("link", name="Admin").click()
    expect(page).to_have_url(re.compile(r"/admin/login/\?next=/admin/$"))
    page.get_by_label("Username").fill("admin")
    page.get_by_label("Password").fill("pw-admin-1")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Site administration")).to_be_visible()
    expect(page.get_by_role("link", name="Heartbeats")).to_be_visible()
