"""No link on the site's documents leads to a page that is not there.

The documents (``docs/<name>.md`` at ``/docs/<name>/``, the rules at ``/rules/<game>/``, each with
its Korean twin) are written for the repository, and ``web.documents`` rewrites their links for the
site. A link to a document the site does not serve, a relative link that only works on GitHub or
an anchor whose heading a translation renamed shows up only when someone follows it, so this
follows them all: every link and image inside every served document, in English and in Korean,
and every link to a document from the pages that point readers at them (the footer is on every
page).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from web.documents import DOC_PAGES
from web.games import GAMES

pytestmark = pytest.mark.django_db
LANGUAGES = ("en", "ko")
DOCUMENTS = [reverse("doc", args=[name]) for name in DOC_PAGES] + [
    reverse("rules", args=[game.key]) for game in GAMES
]
#: pages outside the documents that link to them
POINTERS = [reverse("home"), reverse("write_a_bot")] + [
    reverse("ladder", args=[game.key]) for game in GAMES
]
_ARTICLE = re.compile(r'<article class="document" lang="([a-z]+)">(.*?)</article>', re.DOTALL)
_TEMPLATE_DOC_LINK = re.compile(r"""{% url ["']doc["'] ["']([^"']+)["']""")


class _Links(HTMLParser):
    """The ``href``/``src`` targets and the element ids of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            elif name in ("href", "src") and value:
                self.targets.append(value)


def _parse(html: str) -> _Links:
    links = _Links()
    links.feed(html)
    return links


class _Site:
    """Fetches each page once per language and reports what does not resolve."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.pages: dict[tuple[str, str], tuple[int, str]] = {}
        self.broken: list[str] = []

    def get(self, url: str, language: str) -> tuple[int, str]:
        """The page at ``url`` after any redirect, for a reader of ``language``."""
        if (url, language) not in self.pages:
            response = self.client.get(url, HTTP_ACCEPT_LANGUAGE=language, follow=True)
            self.client.cookies.clear()  # a language link's choice must not outlive its check
            self.pages[url, language] = (response.status_code, response.content.decode())
        return self.pages[url, language]

    def follow(self, page: str, target: str, language: str) -> None:
        """Check one link found on ``page``: it answers 200 and has the ``#anchor`` it names."""
        parts = urlsplit(urljoin(page, target))
        if parts.scheme or parts.netloc:  # another site, mailto:, an inlined data: image
            return
        url = parts.path + (f"?{parts.query}" if parts.query else "")
        status, html = self.get(url, language)
        where = f"{page} ({language}) links {target}"
        if status != 200:
            self.broken.append(f"{where}: {url} answers {status}")
        elif parts.fragment and parts.fragment not in _parse(html).ids:
            self.broken.append(f"{where}: {url} has no #{parts.fragment}")


@pytest.fixture
def site(client: Client) -> _Site:
    return _Site(client)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_link_in_every_served_document_resolves(site: _Site, language: str) -> None:
    for page in DOCUMENTS:
        status, html = site.get(page, language)
        assert status == 200, page
        article = _ARTICLE.search(html)
        assert article is not None, page
        assert article.group(1) == language, f"{page} is not translated to {language}"
        for target in _parse(article.group(2)).targets:
            site.follow(page, target, language)
    assert site.broken == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_pages_pointing_at_the_documents_lead_to_served_ones(
    site: _Site, language: str
) -> None:
    followed = set()
    for page in POINTERS:
        status, html = site.get(page, language)
        assert status == 200, page
        for target in _parse(html).targets:
            path = urlsplit(urljoin(page, target)).path
            if path.startswith(("/docs/", "/rules/")):
                followed.add(path)
                site.follow(page, target, language)
    assert site.broken == []
    assert reverse("doc", args=["platform"]) in followed  # the footer
    assert reverse("doc", args=["protocol"]) in followed  # write a bot
    assert {reverse("rules", args=[game.key]) for game in GAMES} <= followed


@pytest.mark.parametrize(
    ("language", "other", "label"), [("en", "ko", "한국어"), ("ko", "en", "English")]
)
def test_a_rules_pages_link_to_its_other_language_switches_the_language(
    client: Client, language: str, other: str, label: str
) -> None:
    """Both languages of a page share its URL: "English · 한국어" atop the rules switches."""
    html = client.get("/rules/belote/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    switch = re.search(rf'<a href="([^"]*)">{label}</a>', html)
    assert switch is not None
    response = client.get(switch.group(1).replace("&amp;", "&"), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 302 and response["Location"] == "/rules/belote/"
    page = client.get("/rules/belote/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert f'<article class="document" lang="{other}">' in page


def test_every_template_links_to_a_served_document() -> None:
    """The pages behind a login are not crawled above: their templates' links to documents are
    read instead (``{% url 'doc' 'name' %}`` resolves for any name, served or not)."""
    templates = Path(settings.BASE_DIR) / "platform" / "templates"
    linked = {
        (path.name, name)
        for path in templates.rglob("*.html")
        for name in _TEMPLATE_DOC_LINK.findall(path.read_text(encoding="utf-8"))
    }
    assert ("base.html", "platform") in linked
    assert [link for link in linked if link[1] not in DOC_PAGES] == []


def test_a_document_the_site_does_not_serve_is_a_404(site: _Site) -> None:
    """The check above would pass if every /docs/ URL answered: a 404 is a 404."""
    site.follow("/docs/protocol/", "/docs/security/", "en")
    site.follow("/docs/protocol/", "img/ranking-deals.svg", "en")
    site.follow("/docs/platform/", "/docs/ranking/#no-such-heading", "en")
    assert len(site.broken) == 3
