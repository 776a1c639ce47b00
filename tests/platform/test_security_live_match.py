"""No hidden card of a running match is reachable by anyone: a real worker plays a match slowly
(its bots think a little per decision) while this test scrapes every public surface (the API's
match list, match, replay and per-seat replays, the tournament and bot resources; the match
page, its replay JSON, its live box and decisions, the tournament page and its htmx partial, the
bot page) as an anonymous visitor and as another author. Until the match is over no card at all
may appear; afterwards the replay shows them (so the scraper would have seen them)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from matches.models import MatchStatus
from tests.platform.factories import SLOW, UserFactory
from tests.platform.test_reliability import finished, slow_tournament, wait_playing
from tests.platform.workers import StartWorker

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
THINKING = SLOW.replace("time.sleep(0.03)", "time.sleep(0.06)")
# a card as data: "As" in JSON, or HTML-escaped in a page
CARD = re.compile(r"""(?:["']|&quot;|&#x27;|&#39;)([2-9TJQKA][shdc])(?:["']|&quot;|&#x27;|&#39;)""")


def surfaces(match_id: int, tournament_id: int, bot_id: int) -> list[str]:
    api = [f"/api/matches/?tournament={tournament_id}", f"/api/matches/{match_id}/",
           f"/api/matches/{match_id}/replay/", f"/api/tournaments/{tournament_id}/",
           f"/api/bots/{bot_id}/", f"/api/matches/?bot={bot_id}&status=running"]
    api += [f"/api/matches/{match_id}/replay/?seat={s}" for s in range(4)]
    pages = [f"/matches/{match_id}/", f"/matches/{match_id}/replay.json",
             f"/tournaments/{tournament_id}/", f"/tournaments/{tournament_id}/progress/",
             f"/bots/{bot_id}/", "/", "/tournaments/", "/ladder/belote/"]
    pages += [f"/matches/{match_id}/?seat={s}" for s in range(4)]
    pages += [f"/matches/{match_id}/replay.json?seat={s}" for s in range(4)]
    # the running match's live box (htmx) and the replay inspector's decisions
    pages += [f"/matches/{match_id}/live/"]
    pages += [f"/matches/{match_id}/decision/?game=0&deal=0&event={e}" for e in (0, 5)]
    return api + pages  # fmt: skip


@pytest.mark.timeout(600)
def test_no_card_of_a_running_match_reaches_any_public_surface(start_worker: StartWorker) -> None:
    tournament = slow_tournament(2, source=THINKING)
    [match] = tournament.matches.all()
    bot_id = match.seats.first().bot_id  # type: ignore[union-attr]
    visitors = {"anonymous": Client(), "other": Client()}
    visitors["other"].force_login(UserFactory(username="nosy"))
    worker = start_worker("w")
    wait_playing(worker, [])
    urls = surfaces(match.pk, tournament.pk, bot_id)
    rounds = 0
    while True:
        match.refresh_from_db()
        if match.status != MatchStatus.RUNNING:
            break
        for who, client in visitors.items():
            for url in urls:
                htmx = "progress" in url or "live" in url
                response = client.get(url, HTTP_HX_REQUEST="true" if htmx else "")
                assert response.status_code < 500, url
                body = response.content.decode()
                match.refresh_from_db()
                if match.status != MatchStatus.RUNNING:
                    break  # it ended meanwhile: what this answer shows may be public now
                assert not CARD.search(body), f"{who} saw a card at {url}: {CARD.search(body)}"
        rounds += 1
        worker.assert_alive()
    assert rounds >= 2, "the match ended before the surfaces could be scraped while it ran"
    assert finished(tournament) and match.status == MatchStatus.FINISHED
    after = visitors["anonymous"].get(f"/api/matches/{match.pk}/replay/").content.decode()
    assert CARD.search(after)  # the scraper does see cards where they are public
