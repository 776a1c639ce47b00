"""The site's pages through Django's test client: status, content, permissions, forms, queries.

Matches are real: created and recorded by the platform's services, played by the engine's
heuristic house agents in-process (no sandbox needed), so every replay is the engine's own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from pytest_django import DjangoCaptureOnCommitCallbacks

from api.services import token_create
from bots.models import Bot, BotVersion, BotVersionStatus
from matches import formats
from matches.execution import play
from matches.models import Match, MatchOrigin, MatchSeat
from matches.services import MatchSpec, match_claim, match_record_result, matches_create
from ratings.models import Ladder
from ratings.services import ladder_for_game
from tests.platform.factories import FIRST_LEGAL, UserFactory, active_bot, add_version
from tournaments.models import Tournament
from tournaments.services import tournament_create, tournament_schedule

pytestmark = pytest.mark.django_db
SEATS_HAND = re.compile(r'"hands":\s*(\[\[.*?\]\])')


def record_played(match: Match, *, logs: Sequence[str] = ()) -> Match:
    """Claim ``match`` and record it as played by the engine's house agents."""
    token = match_claim(match_id=match.pk, worker="test")
    assert token is not None
    seats = list(MatchSeat.objects.filter(match=match).order_by("seat"))
    played = play(game=match.game, params=match.params, seed=match.seed,
                  duplicate=match.duplicate, seats=[None] * len(seats))  # fmt: skip
    played.logs = list(logs) or [""] * len(seats)
    assert match_record_result(match=match, token=token, played=played, seats=seats)
    return Match.objects.get(pk=match.pk)


def new_match(game: str, versions: Sequence[BotVersion], params: dict[str, Any] | None = None,
              seed: int = 5) -> Match:  # fmt: skip
    """A rated match: the ladder's rules are set to ``params`` first. Its fresh random seed is
    replaced by ``seed``, so that the pages tests look at the same deals every run."""
    Ladder.objects.filter(pk=ladder_for_game(game=game).pk).update(params=params or {})
    (match,) = matches_create(
        game=game, params=params or {}, duplicate=True, origin=MatchOrigin.LADDER,
        specs=[MatchSpec(entrants=list(versions))],
    )  # fmt: skip
    assert match.rated
    Match.objects.filter(pk=match.pk).update(seed=seed)
    match.refresh_from_db()
    return match


SHORT = {"belote": {"target": 300}, "bauer": {"start_points": 2}, "barbu": {"mode": "base"},
         "badugi": {"hands": 4}}  # fmt: skip


def played_match(game: str, *, logs: Sequence[str] = (), owner: User | None = None) -> Match:
    """A finished, rated match of ``game`` between fresh bots (the first one owned by
    ``owner`` if given)."""
    size = formats.entrants_per_match(formats.load(game, SHORT[game]))
    bots = [active_bot(game, owner=owner) if owner and i == 0 else active_bot(game)
            for i in range(size)]  # fmt: skip
    versions = [b.current_version for b in bots]
    match = new_match(game, [v for v in versions if v is not None], SHORT[game])
    return record_played(match, logs=logs)


@pytest.fixture
def recorded(held_matches: list[int], django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks):  # type: ignore[no-untyped-def]  # noqa: E501
    """Make matches with their ratings applied (the on-commit rating task runs inline)."""

    def make(game: str, **kwargs: Any) -> Match:
        with django_capture_on_commit_callbacks(execute=True):
            return played_match(game, **kwargs)

    return make


# -- home, ladder -----------------------------------------------------------------------------


def test_home_lists_the_four_games_with_rules_links_leaders_and_recent_matches(
    client: Client, recorded: Any
) -> None:
    match = recorded("barbu")
    html = client.get("/").content.decode()
    for game in ("belote", "bauer", "barbu", "badugi"):
        assert f'href="/rules/{game}/"' in html
        assert f'href="/ladder/{game}/"' in html
    assert f'href="/matches/{match.pk}/"' in html
    leader = match.seats.order_by("place").first()
    assert leader is not None and f'href="/bots/{leader.bot_id}/"' in html
    assert 'action="/language/"' in html and "csrfmiddlewaretoken" not in html


def test_home_shows_running_tournaments_with_progress(client: Client, held_matches: list[int]) -> None:  # noqa: E501
    bots = [active_bot("belote") for _ in range(3)]
    tournament = tournament_create(created_by=UserFactory(), name="Spring cup", game="belote",
                                   bot_ids=[b.pk for b in bots])  # fmt: skip
    html = client.get("/").content.decode()
    assert "Spring cup" in html and f'href="/tournaments/{tournament.pk}/"' in html
    assert '<progress max="3" value="0"' in html


def test_ladder_ranks_bots_with_stats_trend_and_plot(client: Client, recorded: Any) -> None:
    for _ in range(2):
        recorded("badugi")
    response = client.get("/ladder/badugi/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<polyline" in html  # the rating history plot
    rows = re.findall(r'<tr>\s*<td class="num">(\d+)</td>', html)
    assert rows[:2] == ["1", "2"]
    assert client.get("/ladder/chess/").status_code == 404


def test_ladder_and_tournament_pages_use_a_fixed_number_of_queries(
    client: Client, held_matches: list[int]
) -> None:
    from ratings.services import ladder_recompute
    from tests.platform.factories import finished_match

    def ladder_queries() -> int:
        # the first view after new results hands the figures' refresh to a worker (issue 35):
        # count a view that serves the page alone
        client.get("/ladder/barbu/")
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/ladder/barbu/").status_code == 200
        return len(queries)

    bots = [active_bot("barbu") for _ in range(8)]
    versions = [b.current_version for b in bots]
    finished_match("barbu", versions[:4], [1, 2, 3, 4])
    ladder_recompute(ladder_id=ladder_for_game(game="barbu").pk)
    few = ladder_queries()
    for i in range(6):
        finished_match("barbu", versions[i % 4: i % 4 + 4], [4, 3, 2, 1])
    ladder_recompute(ladder_id=ladder_for_game(game="barbu").pk)
    assert ladder_queries() == few

    tournament = tournament_create(created_by=UserFactory(), name="t", game="barbu",
                                   bot_ids=[b.pk for b in bots[:5]])  # fmt: skip
    with CaptureQueriesContext(connection) as small:
        client.get(f"/tournaments/{tournament.pk}/")
    big_t = tournament_create(created_by=UserFactory(), name="t2", game="barbu",
                              bot_ids=[b.pk for b in bots])  # fmt: skip
    with CaptureQueriesContext(connection) as big:
        client.get(f"/tournaments/{big_t.pk}/")
    assert len(big) == len(small) <= 15


# -- bot page ---------------------------------------------------------------------------------


def test_bot_page_shows_versions_record_and_matches_and_hides_owner_parts(
    client: Client, recorded: Any
) -> None:
    owner = UserFactory()
    match = recorded("bauer", owner=owner, logs=["secret-stderr-0", "", "secret-stderr-2", ""])
    bot = Bot.objects.get(owner=owner)
    add_version(bot, FIRST_LEGAL, status=BotVersionStatus.REJECTED)
    BotVersion.objects.filter(bot=bot, number=2).update(
        fault="timeout", reason="seat 0, decision 3: no answer within 1000 ms"
    )
    url = f"/bots/{bot.pk}/"
    html = client.get(url).content.decode()
    assert f'href="/matches/{match.pk}/"' in html
    assert "Too slow" in html and "no answer within 1000 ms" in html  # the fault in plain words
    opponent = match.seats.exclude(bot=bot).first()
    assert opponent is not None and f'href="/bots/{opponent.bot_id}/"' in html  # the record
    assert "Upload a new version" not in html and "secret-stderr" not in html
    assert f"/bots/{bot.pk}/logs/" not in html

    client.force_login(owner)
    html = client.get(url).content.decode()
    assert "Upload a new version" in html and f"/bots/{bot.pk}/logs/" in html
    logs = client.get(f"/bots/{bot.pk}/logs/").content.decode()
    assert "secret-stderr-0" in logs


def test_private_logs_are_a_404_for_everyone_but_the_owner(client: Client) -> None:
    bot = active_bot("belote")
    assert client.get(f"/bots/{bot.pk}/logs/").status_code == 302  # log in first
    client.force_login(UserFactory())
    assert client.get(f"/bots/{bot.pk}/logs/").status_code == 404
    assert client.post(f"/bots/{bot.pk}/versions/").status_code == 404
    assert client.get("/bots/999999/").status_code == 404


def test_upload_of_a_new_version_shows_the_services_refusal(client: Client, held_matches: list[int]) -> None:  # noqa: E501
    bot = active_bot("belote")
    client.force_login(bot.owner)
    version = bot.current_version
    assert version is not None
    same = SimpleUploadedFile("bot.py", bytes(version.package.data))
    response = client.post(f"/bots/{bot.pk}/versions/", {"file": same})
    assert response.status_code == 400
    assert "these exact bytes are already version 1" in response.content.decode()

    fresh = SimpleUploadedFile("bot.py", (FIRST_LEGAL + "# v2\n").encode())
    response = client.post(f"/bots/{bot.pk}/versions/", {"file": fresh})
    assert response.status_code == 302 and bot.versions.count() == 2


def test_challenge_form_queues_a_match_or_says_why_not(client: Client, held_matches: list[int]) -> None:  # noqa: E501
    mine, other, third = (active_bot("bauer") for _ in range(3))
    client.force_login(mine.owner)
    response = client.post(f"/bots/{mine.pk}/challenge/", {"opponents": [other.pk, third.pk]})
    assert response.status_code == 400
    assert "name 1 opponent(s), not 2" in response.content.decode()
    response = client.post(f"/bots/{mine.pk}/challenge/", {"opponents": [other.pk]})
    assert response.status_code == 302
    match = Match.objects.get(origin=MatchOrigin.CHALLENGE)
    assert response["Location"] == f"/matches/{match.pk}/"


def test_new_bot_form_refuses_a_bad_package_and_creates_a_good_one(
    client: Client, held_matches: list[int]
) -> None:
    client.force_login(UserFactory())
    assert client.get("/bots/new/").status_code == 200
    bad = SimpleUploadedFile("notes.txt", b"hello")
    response = client.post("/bots/new/", {"name": "first", "game": "barbu", "file": bad})
    assert response.status_code == 400 and "errorlist" in response.content.decode()
    assert not Bot.objects.filter(name="first").exists()
    good = SimpleUploadedFile("bot.py", FIRST_LEGAL.encode())
    response = client.post("/bots/new/", {"name": "first", "game": "barbu", "file": good})
    bot = Bot.objects.get(name="first")
    assert response.status_code == 302 and response["Location"] == f"/bots/{bot.pk}/"


# -- tournaments ------------------------------------------------------------------------------


def test_tournament_page_progress_partial_standings_and_create_form(
    client: Client, held_matches: list[int], django_capture_on_commit_callbacks: Any
) -> None:
    bots = [active_bot("belote") for _ in range(3)]
    user = UserFactory()
    client.force_login(user)
    form = {"name": "Cup", "game": "belote", "bots": [bots[0].pk], "rounds": 1, "duplicate": "on"}
    response = client.post("/tournaments/new/", form)
    assert response.status_code == 400  # one bot: the service says why
    assert "errorlist" in response.content.decode()
    form = {"name": "Cup", "game": "belote", "bots": [b.pk for b in bots], "rounds": 1}
    response = client.post("/tournaments/new/", form)
    tournament = Tournament.objects.get(name="Cup")
    assert response.status_code == 302 and response["Location"] == f"/tournaments/{tournament.pk}/"
    tournament_schedule(tournament_id=tournament.pk)  # its task, queued on commit
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f'hx-get="/tournaments/{tournament.pk}/progress/"' in page
    assert "0 of 3 matches played" in page

    with django_capture_on_commit_callbacks(execute=True):
        record_played(tournament.matches.order_by("id").first())
    partial = client.get(f"/tournaments/{tournament.pk}/progress/", HTTP_HX_REQUEST="true")
    text = partial.content.decode()
    assert partial.status_code == 200 and "<html" not in text
    assert "1 of 3 matches played" in text and "left" in text
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert page.count('href="/bots/') >= 3  # standings


def test_the_tournament_s_match_list_names_each_bot_once_with_its_place_and_counts_the_rest(
    client: Client, held_matches: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("web.views.TOURNAMENT_MATCHES", 2)
    bots = [active_bot("belote") for _ in range(3)]
    tournament = tournament_create(created_by=UserFactory(), name="Listed", game="belote",
                                   bot_ids=[b.pk for b in bots])  # fmt: skip
    tournament_schedule(tournament_id=tournament.pk)  # its task, queued on commit
    first, second, _ = tournament.matches.order_by("id")
    record_played(first)
    html = client.get(f"/tournaments/{tournament.pk}/matches/").content.decode()
    rows = dict(re.findall(r'<tr data-match="(\d+)">(.*?)</tr>', html, re.S))
    assert list(rows) == [str(first.pk), str(second.pk)]  # the first two, oldest first
    places = {s.bot_id: s.place for s in first.seats.all()}  # a bot holds both seats of its side
    for bot_id, place in places.items():
        name = Bot.objects.get(pk=bot_id).name
        assert rows[str(first.pk)].count(f'<a href="/bots/{bot_id}/">{name}</a> ({place})') == 1
    assert f'<a href="/matches/{first.pk}/">Replay</a>' in rows[str(first.pk)]
    assert "queued" in rows[str(second.pk)] and "Replay" not in rows[str(second.pk)]
    assert "and 1 more match (the API lists every one)" in html


# -- match page and replays -------------------------------------------------------------------


@pytest.mark.parametrize("game", ["belote", "bauer", "barbu", "badugi"])
def test_match_page_points_the_viewer_at_the_apis_replay_and_seat_views(
    client: Client, recorded: Any, game: str
) -> None:
    match = recorded(game)
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert f'data-replay-url="/api/matches/{match.pk}/replay/"' in html
    assert 'src="/static/web/replay/viewer.js"' in html
    assert '"hands"' not in html and '"deck"' not in html  # the page embeds no replay
    whole = client.get(f"/api/matches/{match.pk}/replay/").json()
    assert whole["game"] == game and "deck" in whole["games"][0]["deals"][0]

    page = client.get(f"/matches/{match.pk}/?seat=1").content.decode()
    assert f'data-replay-url="/api/matches/{match.pk}/replay/?seat=1"' in page
    view = client.get(f"/api/matches/{match.pk}/replay/?seat=1").json()
    assert view["viewpoint"] == {"seat": 1} and "deck" not in view["games"][0]["deals"][0]
    hands = view["games"][0]["deals"][0]["hands"]
    assert all(card == "??" for seat, hand in enumerate(hands) if seat != 1 for card in hand)

    download = client.get(f"/matches/{match.pk}/replay.json?seat=1")
    assert download["Content-Disposition"] == f'attachment; filename="match-{match.pk}-seat1.json"'
    assert download.json() == view  # the API's document, byte for byte the same data
    assert client.get(f"/matches/{match.pk}/replay.json?seat=9").status_code == 404
    assert client.get(f"/matches/{match.pk}/?seat=9").status_code == 404


def test_an_unfinished_match_shows_no_replay(client: Client, held_matches: list[int]) -> None:
    versions = [active_bot("belote").current_version for _ in range(2)]
    match = new_match("belote", [v for v in versions if v is not None])
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert "data-replay-url" not in html and '"hands"' not in html
    assert client.get(f"/matches/{match.pk}/replay.json").status_code == 404
    assert client.get(f"/api/matches/{match.pk}/replay/").status_code == 409


# -- API tokens -------------------------------------------------------------------------------


def test_token_page_needs_a_signed_in_user(client: Client) -> None:
    response = client.get("/accounts/tokens/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_token_page_creates_a_token_shown_once_that_the_api_accepts(client: Client) -> None:
    client.force_login(UserFactory(username="ada"))
    created = client.post("/accounts/tokens/", {"name": "laptop"})
    assert created.status_code == 201 and "no-store" in created["Cache-Control"]
    secret = re.search(r'<code id="token-secret">(\w+)</code>', created.content.decode())
    assert secret is not None
    api = Client(HTTP_AUTHORIZATION=f"Token {secret.group(1)}")
    assert [t["name"] for t in api.get("/api/auth/tokens/").json()["results"]] == ["laptop"]
    listed = client.get("/accounts/tokens/").content.decode()
    assert "laptop" in listed and secret.group(1) not in listed  # the secret is shown once


def test_token_page_refuses_a_blank_name(client: Client) -> None:
    client.force_login(UserFactory())
    response = client.post("/accounts/tokens/", {"name": ""})
    assert response.status_code == 400 and "token-secret" not in response.content.decode()


def test_token_page_says_why_the_service_refuses_a_token(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("api.services.MAX_TOKENS_PER_USER", 1)
    client.force_login(UserFactory())
    assert client.post("/accounts/tokens/", {"name": "one"}).status_code == 201
    refused = client.post("/accounts/tokens/", {"name": "two"})
    assert refused.status_code == 400 and "revoke some first" in refused.content.decode()


def test_revoking_a_token_ends_it_and_others_tokens_are_a_404(client: Client) -> None:
    ada, bob = UserFactory(username="ada"), UserFactory(username="bob")
    token, secret = token_create(user=ada, name="ci")
    client.force_login(bob)
    assert client.post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 404
    assert client.get(f"/accounts/tokens/{token.pk}/revoke/").status_code == 405
    client.force_login(ada)
    response = client.post(f"/accounts/tokens/{token.pk}/revoke/", follow=True)
    assert response.redirect_chain == [("/accounts/tokens/", 302)]
    assert "is revoked" in response.content.decode()
    assert Client(HTTP_AUTHORIZATION=f"Token {secret}").get("/api/auth/tokens/").status_code == 401
    assert client.post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 404


# -- accounts, documents ----------------------------------------------------------------------


def test_sign_up_logs_the_new_author_in(client: Client) -> None:
    account = {"username": "newbie", "password1": "a-Long-pass-77", "password2": "a-Long-pass-77"}
    response = client.post("/accounts/signup/", account)
    assert response.status_code == 302 and response["Location"] == "/bots/new/"
    assert client.get("/bots/new/").status_code == 200
    bad = {"username": "x", "password1": "1", "password2": "2"}
    response = client.post("/accounts/signup/", bad)
    assert response.status_code == 400


def test_rules_and_docs_pages_render_the_projects_markdown(client: Client) -> None:
    html = client.get("/rules/barbu/").content.decode()
    assert "<h1" in html and "<table>" in html
    assert client.get("/docs/protocol/").status_code == 200
    assert client.get("/docs/secrets/").status_code == 404
    assert client.get("/rules/poker/").status_code == 404


# -- languages --------------------------------------------------------------------------------


def test_accept_language_korean_gives_korean_pages_on_the_same_urls(client: Client) -> None:
    html = client.get("/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert '<html lang="ko">' in html
    assert "바둑이" in html and "바흐뷰" in html and "벨로테" in html and "바우어" in html
    assert "진행 중인 토너먼트" in html
    english = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="en">' in english and "Running tournaments" in english


def test_the_language_switch_is_remembered(client: Client) -> None:
    response = client.get("/language/", {"language": "ko", "next": "/ladder/barbu/"})
    assert response.status_code == 302 and response["Location"] == "/ladder/barbu/"
    html = client.get("/ladder/barbu/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "바흐뷰 래더" in html


def test_the_language_switch_goes_back_only_to_this_site_and_knows_its_languages(
    client: Client,
) -> None:
    away = client.get("/language/", {"language": "ko", "next": "https://evil.example/"})
    assert away.status_code == 302 and away["Location"] == "/"
    unknown = client.get("/language/", {"language": "xx", "next": "/"})
    assert unknown.status_code == 302 and "django_language" not in unknown.cookies
    assert client.post("/language/", {"language": "ko"}).status_code == 405


def test_rules_page_follows_the_language(client: Client) -> None:
    korean = client.get("/rules/belote/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "벨로테" in korean and "not translated yet" not in korean
    english = client.get("/rules/belote/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "<h1" in english and "Belote" in english and "벨로테 (Belote)" not in english


def test_docs_pages_follow_the_language(client: Client) -> None:
    """/docs/<name>/ serves docs/<name>.ko.md to a Korean reader (Accept-Language or the language
    cookie); its links to the other documents, .ko.md ones included, lead to the site's pages, and
    its anchors are the English page's (scripts/check_doc_twins.py keeps the twins in step)."""
    protocol = client.get("/docs/protocol/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert '<article class="document" lang="ko">' in protocol and 'class="note"' not in protocol
    assert "봇 프로토콜" in protocol and "채널 규칙" in protocol
    assert 'id="rules-of-the-channel"' in protocol and 'href="#rules-of-the-channel"' in protocol

    client.cookies["django_language"] = "ko"
    platform = client.get("/docs/platform/").content.decode()
    assert '<article class="document" lang="ko">' in platform and "레이팅 반영" in platform
    assert 'href="/docs/protocol/"' in platform and 'href="/docs/replay-format/"' in platform
    assert ".ko.md" not in platform
    assert 'id="rated-and-unrated-play"' in platform
    assert 'href="#rated-and-unrated-play"' in platform

    client.cookies["django_language"] = "en"
    english = client.get("/docs/platform/").content.decode()
    assert '<article class="document" lang="en">' in english and "Rated and unrated play" in english
    assert "레이팅" not in english


def test_service_refusals_and_numbers_render_in_korean(client: Client) -> None:
    client.force_login(UserFactory())
    response = client.post("/bots/new/", {"name": "x"}, HTTP_ACCEPT_LANGUAGE="ko")
    assert response.status_code == 400
    assert "필수 항목입니다" in response.content.decode()  # Django's own Korean catalogue


def test_long_ladders_are_paged_by_a_hundred(client: Client, held_matches: list[int]) -> None:
    from ratings.services import ladder_recompute
    from tests.platform.factories import finished_match

    versions = [active_bot("badugi").current_version for _ in range(102)]
    for first in range(0, 102, 2):
        finished_match("badugi", versions[first:first + 2], [1, 2])
    ladder_recompute(ladder_id=ladder_for_game(game="badugi").pk)
    ranks = re.compile(r'<tr>\s*<td class="num">(\d+)</td>')
    first = client.get("/ladder/badugi/").content.decode().split("Strength with 95 %")[0]
    assert ranks.findall(first) == [str(n) for n in range(1, 101)]
    assert "Page 1 of 2" in first and 'href="?page=2"' in first
    second = client.get("/ladder/badugi/?page=2").content.decode().split("Strength with 95 %")[0]
    assert ranks.findall(second) == ["101", "102"] and 'href="?page=1"' in second
    assert client.get("/ladder/badugi/?page=99").status_code == 200  # the last page


def test_dates_follow_the_readers_language(client: Client, recorded: Any) -> None:
    """Not Django's American 12/05/2026 in English; Korean as Korean writes it."""
    match = recorded("barbu")
    assert match.finished_at is not None
    day = match.finished_at
    english = client.get(f"/matches/{match.pk}/").content.decode()
    assert f"{day.day} {day:%b} {day.year}, {day:%H:%M}" in english
    assert f"{day:%m/%d/%Y}" not in english
    client.cookies["django_language"] = "ko"
    korean = client.get(f"/matches/{match.pk}/").content.decode()
    assert f"{day.year}-{day.month}-{day.day}" in korean


def test_upload_banners_say_the_state_the_version_is_in(
    client: Client, transactional_db: None
) -> None:
    """Inline execution validates the upload before the page answers: the banner says so."""
    from tests.platform.factories import FIRST_LEGAL

    client.force_login(UserFactory())
    page = client.post("/bots/new/", {
        "name": "banner", "game": "belote",
        "file": SimpleUploadedFile("bot.py", FIRST_LEGAL.encode()),
    }, follow=True).content.decode()  # fmt: skip
    assert "passed its validation: it plays now" in page and "being validated" not in page


def test_score_columns_name_their_unit(client: Client, held_matches: list[int]) -> None:
    bots = [active_bot("badugi") for _ in range(2)]
    tournament = tournament_create(created_by=UserFactory(), name="units", game="badugi",
                                   bot_ids=[b.pk for b in bots])  # fmt: skip
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Total score (chips won)" in page
    match = played_match("belote")
    assert "Score (game points)" in client.get(f"/matches/{match.pk}/").content.decode()
