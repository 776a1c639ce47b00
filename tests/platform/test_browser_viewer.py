"""The replay viewer a bot author debugs with and a spectator enjoys (issue 31), in headless
Chromium at a desktop (1366×900) and a phone (390×844) width: the board first and the result,
navigation by decision, trick, deal and game with keys, the fit on the felt and on a phone,
Badugi at the table, the decision inspector (the owner's stderr only to the owner), duplicate
boards side by side, the tournament's matches and a running match's live box. Positions are
measured in the DOM."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from playwright.sync_api import Browser, Page, expect
from pytest_django.live_server_helper import LiveServer

from matches.models import Match
from matches.progress import MatchProgress
from matches.selectors import match_replay
from matches.services import match_claim
from tests.platform.factories import UserFactory, active_bot
from tests.platform.test_browser import (  # noqa: F401  # browser: the fixture
    CHROMIUM_ARGS,
    browser,
    serious_violations,
)
from tests.platform.test_web_pages import new_match, played_match, record_played
from tournaments.services import tournament_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
VIEWPORTS = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}
assert CHROMIUM_ARGS


@pytest.fixture(params=list(VIEWPORTS))
def page(request: pytest.FixtureRequest, browser: Browser, live_server: LiveServer) -> Page:  # noqa: F811
    context = browser.new_context(base_url=live_server.url, locale="en-GB",
                                  viewport=VIEWPORTS[request.param])  # type: ignore[arg-type]  # fmt: skip
    return context.new_page()


def counter(page: Page) -> int:
    return int(page.locator("#counter").inner_text().split("/")[0])


def box(page: Page, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, selector
    return found


def open_match(page: Page, match: Match, query: str = "") -> None:
    page.goto(f"/matches/{match.pk}/{query}")
    seats = len(match_replay(match_id=match.pk)["games"][0]["seats"])
    expect(page.locator("#board .seat")).to_have_count(seats)


def assert_fits(page: Page) -> None:
    """No horizontal scroll, and every seat of the table inside the window."""
    width = page.evaluate("window.innerWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for seat in page.locator("#board .seat").all():
        edge = seat.bounding_box()
        assert edge is not None and edge["x"] >= 0 and edge["x"] + edge["width"] <= width + 0.5


# -- the board first, the result ---------------------------------------------------------------


def test_the_board_comes_first_and_the_result_shows_in_the_header_and_at_the_end(
    page: Page, held_matches: list[int]
) -> None:
    match = played_match("belote")
    open_match(page, match)
    viewport = page.viewport_size
    assert viewport is not None
    # the table starts within the first screen, above the seat list and the boards' explanation
    table = box(page, "#board .table")
    assert table["y"] < viewport["height"] - 250  # a good part of the table on the first screen
    assert table["y"] < box(page, "h2:has-text('Seats')")["y"]
    expect(page.locator("details.boards-explained")).not_to_have_attribute("open", "")
    banner = page.locator("#match-result")
    expect(banner).to_contain_text("Result")
    winner = match.seats.get(seat=0 if match.seats.get(seat=0).place == 1 else 1).bot
    assert box(page, "#match-result")["y"] < table["y"]
    expect(banner.locator("li").first).to_contain_text(winner.name)
    expect(page.locator("#step-result")).to_have_count(0)
    page.locator("body").press("End")
    result = match_replay(match_id=match.pk)["result"]
    best = result["placings"].index(1)
    expect(page.locator("#step-result .match-result")).to_contain_text(
        f"1. house heuristic + house heuristic {result['scores'][best]:g}"
    )
    expect(page.locator("#step-result .game-result")).to_contain_text("Game 2/2 over")
    assert_fits(page)


# -- navigation --------------------------------------------------------------------------------


def stops(replay: dict[str, Any]) -> dict[str, list[int]]:
    """The steps the jump keys land on, computed from the replay as the page must."""
    step, deals, games, rounds = 0, [], [], []
    card = re.compile(r"^[2-9TJQKA][shdc]$")
    for played in replay["games"]:
        games.append(step)
        n = len(played["seats"])
        for deal in played["deals"]:
            deals.append(step)
            step += 1
            cards = 0
            events = deal["events"]
            for e, event in enumerate(events):
                is_card = bool(card.match(event["action"]))
                cards += is_card
                following = events[e + 1]["action"] if e + 1 < len(events) else None
                if (following is None or (cards % n == 0 if is_card
                                           else bool(card.match(following)))):  # fmt: skip
                    rounds.append(step)
                step += 1
    return {"deals": deals, "games": games, "rounds": rounds, "last": [step - 1]}


def test_navigation_by_decision_trick_deal_and_game_with_keys_and_buttons(
    page: Page, held_matches: list[int]
) -> None:
    match = played_match("belote")
    expected = stops(match_replay(match_id=match.pk))
    open_match(page, match)
    body = page.locator("body")
    body.press("Shift+ArrowRight")  # the end of the bidding
    assert counter(page) == expected["rounds"][0]
    body.press("Shift+ArrowRight")  # the first trick
    assert counter(page) == expected["rounds"][1]
    body.press("Shift+ArrowLeft")
    assert counter(page) == expected["rounds"][0]
    body.press("]")
    assert counter(page) == expected["deals"][1]
    expect(page).to_have_url(re.compile(rf"step={expected['deals'][1]}\b"))
    body.press("[")
    assert counter(page) == expected["deals"][0]
    body.press("}")
    assert counter(page) == expected["games"][1]
    page.get_by_role("button", name="Previous game").click()
    assert counter(page) == 0
    page.get_by_role("button", name="Next deal").click()
    assert counter(page) == expected["deals"][1]
    page.get_by_role("button", name="Next trick or round").click()
    assert (
        counter(page)
        == expected["rounds"][
            next(i for i, s in enumerate(expected["rounds"]) if s > expected["deals"][1])
        ]
    )
    # a deep link opens at its step; instant speed plays to the end without waiting
    page.goto(f"/matches/{match.pk}/?step={expected['games'][1]}")
    expect(page.locator("#counter")).to_contain_text(f"{expected['games'][1]} /")
    page.locator("#speed").select_option(label="instant")
    page.get_by_role("button", name="Play").click()
    end = expected["last"][0]
    expect(page.locator("#counter")).to_contain_text(f"{end} / {end}", timeout=30_000)
    # the keys are written on the page
    page.locator("details.keys summary").click()
    for key in ("Space", "Shift", "[", "]", "{", "}", "Home", "End"):
        expect(page.locator("details.keys")).to_contain_text(key)


# -- fit and finish ----------------------------------------------------------------------------


def contrast(page: Page, selector: str, background_selector: str) -> float:
    return float(page.evaluate(
        """([fg, bg]) => {
            const rgb = (el, prop) => getComputedStyle(el)[prop].match(/[\\d.]+/g).map(Number);
            const lum = ([r, g, b]) => {
                const c = [r, g, b].map((v) => {
                    v /= 255;
                    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
                });
                return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
            };
            const a = lum(rgb(document.querySelector(fg), "color"));
            const b = lum(rgb(document.querySelector(bg), "backgroundColor"));
            return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        }""",
        [selector, background_selector],
    ))  # fmt: skip


def text_right(cell: Any) -> float:
    """Where the text of a table cell ends, in the page."""
    return float(
        cell.evaluate("""e => {
        const range = document.createRange();
        range.selectNodeContents(e);
        return range.getBoundingClientRect().right;
    }""")
    )


def test_fit_and_finish_list_numbers_winner_contrast_width_and_cross_table(
    page: Page, held_matches: list[int]
) -> None:
    match = played_match("belote")
    expected = stops(match_replay(match_id=match.pk))
    open_match(page, match, f"?step={expected['rounds'][5]}")  # the bidding and five tricks
    expect(page.locator("#board .story-list li")).not_to_have_count(0)
    assert page.locator("#board .story-list li").count() >= 12
    room = page.evaluate("""() => {
        const list = document.querySelector('#board .story-list');
        const style = getComputedStyle(list);
        const canvas = document.createElement('canvas').getContext('2d');
        canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        return [parseFloat(style.paddingLeft), canvas.measureText('100. ').width];
    }""")
    assert room[0] >= room[1], room  # "100." fits left of the items
    expect(page.locator("#board .centre .muted")).to_be_visible()
    assert contrast(page, "#board .centre .muted", "#board .table") >= 4.5
    assert serious_violations(page) == []  # axe-core: contrast on the felt included
    assert_fits(page)
    original = page.viewport_size
    assert original is not None
    page.set_viewport_size({"width": 360, "height": 740})  # the narrowest phone we support
    assert_fits(page)
    page.set_viewport_size(original)

    bots = [active_bot("belote") for _ in range(3)]
    tournament = tournament_create(created_by=UserFactory(), name="Aligned", game="belote",
                                   bot_ids=[b.pk for b in bots])  # fmt: skip
    for played in tournament.matches.order_by("id"):
        record_played(played)
    page.goto(f"/tournaments/{tournament.pk}/")
    headers = page.locator("table.cross thead th").all()[1:]
    cells = page.locator("table.cross tbody tr").first.locator("td").all()
    assert len(headers) == len(cells) == 3
    for header, cell in zip(headers, cells, strict=True):
        h, c = header.bounding_box(), cell.bounding_box()
        assert h and c and abs((h["x"] + h["width"]) - (c["x"] + c["width"])) < 1
        # the header's number sits over its column's numbers
        assert abs(text_right(header) - text_right(cell)) < 2
    assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate("innerWidth")


# -- Badugi at the table -----------------------------------------------------------------------


def test_badugi_shows_draws_as_cards_hand_labels_money_and_seats_around_the_table(
    page: Page, held_matches: list[int]
) -> None:
    versions = [active_bot("badugi").current_version for _ in range(5)]
    params = {"players": 5, "hands": 3}
    match = record_played(new_match("badugi", [v for v in versions if v], params))
    replay = match_replay(match_id=match.pk)
    deal = replay["games"][0]["deals"][0]
    last_draw = max(i for i, e in enumerate(deal["events"]) if e["action"].startswith("draw:"))
    open_match(page, match, f"?step={last_draw + 1}")
    draws = page.locator("#board .story-list .draw-cards")
    assert draws.count() >= 1
    known = draws.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    assert known and "??" not in known  # all cards: the thrown and the drawn cards themselves
    facts = page.locator("#board .seat .facts").all_inner_texts()
    label = re.compile(r"(made|base|two-base|no base): [2-9TJQKA](-[2-9TJQKA])*")
    assert any(label.search(f) for f in facts), facts
    assert all("stack: " in f and "in the pot: " in f for f in facts), facts
    expect(page.locator("#board .pot")).to_contain_text("Pot")
    # five seats around the centre: some above it, some beside it, one below
    expect(page.locator("#inspector .legal li").first).to_be_visible()  # the page has settled
    centre = box(page, "#board .centre")
    seats = [s.bounding_box() for s in page.locator("#board .seat").all()]
    assert len(seats) == 5 and all(seats)
    assert serious_violations(page) == []
    below = [s for s in seats if s and s["y"] >= centre["y"] + centre["height"] - 1]
    above = [s for s in seats if s and s["y"] + s["height"] <= centre["y"] + 1]
    assert len(below) >= 1 and len(above) >= 2, (centre, seats)
    assert_fits(page)

    open_match(page, match, f"?step={last_draw + 1}&seat=0")  # a seat's view: others' draws hidden
    hidden = page.locator('#board .hand:not([data-seat="0"]) [data-card]')
    assert set(hidden.evaluate_all("els => els.map(e => e.dataset.card)")) == {"??"}


# -- the decision inspector --------------------------------------------------------------------


def test_the_inspector_shows_what_the_bot_was_sent_and_answered(
    page: Page, held_matches: list[int]
) -> None:
    match = played_match("bauer")
    replay = match_replay(match_id=match.pk)
    event = replay["games"][0]["deals"][0]["events"][2]
    open_match(page, match, "?step=3")  # the third decision of the first deal
    inspector = page.locator("#inspector")
    expect(inspector.locator(".answer")).to_have_text(event["action"])
    expect(inspector.locator(".decision-time")).to_contain_text("ms")
    expect(inspector.locator(".legal li")).not_to_have_count(0)
    expect(inspector.locator(".legal li.chosen")).to_have_text(event["action"])
    inspector.locator(".observation-box summary").click()
    expect(inspector.locator(".observation")).to_contain_text('"hand"')
    expect(inspector.locator(".stderr")).to_have_count(0)  # an anonymous visitor: no stderr
    assert serious_violations(page) == []
    # beside the board at a desktop width, below it on a phone; never off the page
    inspect, table = box(page, "#inspector"), box(page, "#board .table")
    if page.viewport_size and page.viewport_size["width"] > 800:
        assert inspect["x"] >= table["x"] + table["width"] - 1  # to its right
        assert inspect["y"] < table["y"] + table["height"]
    assert_fits(page)
    page.locator("body").press("Home")
    expect(inspector).to_contain_text("no decision yet")
    # a seat's view asks for its own decisions only: another's observation shows its hand
    seat = event["seat"]
    open_match(page, match, f"?step=3&seat={seat}")
    expect(inspector.locator(".legal li").first).to_be_visible()
    other = (seat + 1) % 4
    open_match(page, match, f"?step=3&seat={other}")
    expect(inspector.locator(".other-seat")).to_be_visible()
    expect(inspector.locator(".legal, .observation")).to_have_count(0)


def test_only_the_bots_owner_sees_its_stderr_at_a_decision(
    browser: Browser,  # noqa: F811
    live_server: LiveServer,
    held_matches: list[int],
) -> None:
    owner = UserFactory(username="author")
    owner.set_password("a-Long-pass-77")
    owner.save()
    other = UserFactory(username="nosy")
    other.set_password("a-Long-pass-77")
    other.save()
    secret = "--- game 1 ---\nstarting\n--- act 3 ---\nthinking hard about act 3\n"
    match = played_match("belote", owner=owner, logs=[secret, "", "", ""])
    replay = match_replay(match_id=match.pk)
    # the step of seat 0's third decision in the first game (seat 0 is the owner's bot)
    steps = stops(replay)["deals"]
    acts = [(d, e) for d, deal in enumerate(replay["games"][0]["deals"])
            for e, event in enumerate(deal["events"]) if event["seat"] == 0]  # fmt: skip
    where = acts[2]  # the third act of seat 0 (the owner's bot) in the first game
    decision = f"/matches/{match.pk}/?step={steps[where[0]] + where[1] + 1}"
    api = f"/matches/{match.pk}/decision/?game=0&deal={where[0]}&event={where[1]}"
    for client, sees in ((Client(), False), (logged_in(other), False), (logged_in(owner), True)):
        body = client.get(api).json()
        assert body["action"] == replay["games"][0]["deals"][where[0]]["events"][where[1]]["action"]
        assert ("stderr" in body) is sees and (
            body.get("stderr") == "thinking hard about act 3\n"
        ) is sees
    for who in ("author", "nosy", None):
        context = browser.new_context(base_url=live_server.url, locale="en-GB",
                                      viewport=VIEWPORTS["desktop"])  # type: ignore[arg-type]  # fmt: skip
        page = context.new_page()
        if who is not None:
            login(page, User.objects.get(username=who))
        open_match(page, match, decision[decision.index("?") :])
        expect(page.locator("#inspector .legal li").first).to_be_visible()
        if who == "author":
            expect(page.locator("#inspector .stderr")).to_have_text("thinking hard about act 3\n")
            page.locator("body").press("ArrowRight")  # the next decision, another seat's
            expect(page.locator("#inspector .legal li").first).to_be_visible()
            expect(page.locator("#inspector .stderr")).to_have_count(0)
        else:
            expect(page.locator("#inspector .stderr")).to_have_count(0)
            expect(page.locator("#inspector")).not_to_contain_text("stderr")
            assert "thinking hard" not in page.content()
        context.close()


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def login(page: Page, user: User) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill("a-Long-pass-77")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name=f"Log out ({user.username})")).to_be_visible()


# -- duplicate boards side by side -------------------------------------------------------------


CONTRACTS = {"no_tricks": "No tricks", "no_hearts": "No hearts", "no_queens": "No queens",
             "no_king_of_hearts": "No king of hearts", "no_last_two": "No last two tricks",
             "trumps": "Trumps", "domino": "Domino", "salad": "Salad"}  # fmt: skip


def test_a_duplicate_board_shows_every_rotation_side_by_side_with_links(
    page: Page, held_matches: list[int]
) -> None:
    match = played_match("barbu")
    replay = match_replay(match_id=match.pk)
    expected = stops(replay)
    open_match(page, match, "?step=1")
    traveller = page.locator("#board table.traveller")
    expect(traveller.locator("tbody tr")).to_have_count(len(replay["games"]))
    for g, played in enumerate(replay["games"]):
        row = traveller.locator(f'tbody tr[data-game="{g}"]')
        deal = played["deals"][0]
        for seat, entrant in enumerate(played["seats"]):
            cell = row.locator("td").nth(seat)
            expect(cell.locator(".holder")).to_have_text(replay["entrants"][entrant])
            expect(cell.locator(".points")).to_contain_text(f"({deal['scores'][seat]})")
        contract = CONTRACTS[deal["info"]["contract"]]
        expect(row.locator("td").nth(len(played["seats"]))).to_contain_text(contract)
    expect(page.locator("#board .board-total")).to_contain_text("score on the board")
    assert serious_violations(page) == []
    traveller.locator('tbody tr[data-game="2"] a').click()
    assert counter(page) == expected["games"][2]
    expect(page.locator("#board .info-line")).to_contain_text("Game 3/4")
    assert_fits(page)


# -- the tournament's matches; a running match ------------------------------------------------


def test_the_tournament_lists_its_matches_with_status_result_and_replay_links(
    page: Page, held_matches: list[int]
) -> None:
    bots = [active_bot("belote") for _ in range(3)]
    tournament = tournament_create(created_by=UserFactory(), name="Linked", game="belote",
                                   bot_ids=[b.pk for b in bots])  # fmt: skip
    first, *rest = tournament.matches.order_by("id")
    record_played(first)
    page.goto(f"/tournaments/{tournament.pk}/")
    rows = page.locator("#tournament-matches tbody tr")
    expect(rows).to_have_count(3)
    done = page.locator(f'#tournament-matches tr[data-match="{first.pk}"]')
    expect(done).to_contain_text("finished")
    replay_link = done.get_by_role("link", name="Replay")
    expect(replay_link).to_have_attribute("href", f"/matches/{first.pk}/")
    waiting = page.locator(f'#tournament-matches tr[data-match="{rest[0].pk}"]')
    expect(waiting).to_contain_text("queued")
    expect(waiting.get_by_role("link", name="Replay")).to_have_count(0)
    page.evaluate("window.notReloaded = true")
    record_played(rest[0])  # the list follows the tournament by itself
    expect(waiting.get_by_role("link", name="Replay")).to_have_count(1, timeout=20_000)
    expect(waiting).to_contain_text("finished")
    assert page.evaluate("window.notReloaded") is True
    assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate("innerWidth")


def test_a_queued_match_page_follows_the_match_and_shows_the_replay_once_over(
    page: Page, held_matches: list[int]
) -> None:
    versions = [active_bot("belote").current_version for _ in range(2)]
    match = new_match("belote", [v for v in versions if v], {"target": 300})
    page.goto(f"/matches/{match.pk}/")
    expect(page.locator("#live-text")).to_contain_text("waits for a worker")
    assert page.locator("#board").count() == 0
    page.evaluate("window.notReloaded = true")
    record_played(match)
    expect(page.locator("#board .seat")).to_have_count(4, timeout=20_000)  # reloaded by htmx
    expect(page.locator("#match-result")).to_be_visible()


def test_bot_pages_mark_rated_and_unrated_matches(client: Client, held_matches: list[int]) -> None:
    rated = played_match("barbu")
    bot = rated.seats.get(seat=0).bot
    others = [active_bot("barbu") for _ in range(3)]
    tournament = tournament_create(created_by=UserFactory(), name="Own", game="barbu",
                                   bot_ids=[bot.pk, *(b.pk for b in others)])  # fmt: skip
    unrated = record_played(tournament.matches.get())
    assert not unrated.rated and rated.rated
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    rows = {
        m: page.split(f'href="/matches/{m}/"', 1)[1].split("</td>", 1)[0]
        for m in (rated.pk, unrated.pk)
    }
    assert ">Rated<" in rows[rated.pk] and ">Unrated<" in rows[unrated.pk]


def test_a_running_match_page_shows_its_public_progress_without_a_reload(
    page: Page, held_matches: list[int]
) -> None:
    versions = [active_bot("belote").current_version for _ in range(2)]
    match = new_match("belote", [v for v in versions if v], {"target": 300})
    assert match_claim(match_id=match.pk, worker="test") is not None
    counts = MatchProgress(match.pk)
    counts.game_started(1)
    counts.decisions = 11
    counts.game_started(1)  # written
    page.goto(f"/matches/{match.pk}/")
    expect(page.locator("#live-text")).to_contain_text("being played now")
    expect(page.locator("#live-progress")).to_have_text("Game 1 of 2, 11 decisions so far.")
    page.evaluate("window.notReloaded = true")
    counts.decisions = 250
    counts.game_started(2)
    expect(page.locator("#live-progress")).to_have_text(
        "Game 2 of 2, 250 decisions so far.", timeout=20_000
    )
    assert page.evaluate("window.notReloaded") is True
    assert page.locator("#board").count() == 0  # nothing of the deals until it is over
