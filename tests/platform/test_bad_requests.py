"""Bad requests get a 4xx, never a 5xx: an HTML Accept header on the API (its browsable HTML
form answered 500 on views without a queryset) and JSON nested deeper than Python's decoder
follows (a RecursionError answered 500, anonymously on the token endpoint)."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.platform.api_fixtures import World, world_fixture  # noqa: F401

READS = ["/api/games/", "/api/runtimes/", "/api/ladders/belote/", "/api/ladders/belote/history/",
         "/api/ladders/belote/strengths/", "/api/matches/", "/api/bots/", "/api/tournaments/"]


@pytest.mark.parametrize("url", READS)
def test_an_html_accept_header_on_the_api_is_not_a_server_error(world: World, url: str) -> None:
    html = Client(raise_request_exception=False).get(url, HTTP_ACCEPT="text/html")
    assert html.status_code == 406, (url, html.status_code)
    browser = Client().get(url, HTTP_ACCEPT="text/html,application/xhtml+xml,*/*;q=0.8")
    assert browser.status_code in (200, 400) and browser["Content-Type"] == "application/json"


DEEP = "[" * 5000 + "]" * 5000


@pytest.mark.parametrize(
    ("persona", "url"),
    [("anonymous", "/api/auth/token/"), ("owner", "/api/tournaments/"),
     ("owner", "/api/challenges/")],
)  # fmt: skip
def test_json_nested_5000_deep_is_a_400(world: World, persona: str, url: str) -> None:
    client = world.client(persona)
    client.raise_request_exception = False
    response = client.post(url, DEEP, content_type="application/json")
    assert response.status_code == 400, (url, response.status_code)
    assert response.json()["error"]["code"] == "parse_error"
