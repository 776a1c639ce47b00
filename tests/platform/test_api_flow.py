"""End to end through the public API on a live server, with a real Celery worker process, Redis,
the database and the sandbox: four authors get tokens and upload bots (one is rejected with its
fault), a tournament runs, and standings, ladder, matches, replays (whole and seat-filtered),
the private log and an unranked challenge are checked over HTTP."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from pytest_django.live_server_helper import LiveServer

import engine
from arena_cli.client import Api, ClientError, Upload
from ratings.models import Ladder, RatingChange
from ratings.services import ladder_for_game
from tests.platform.factories import CRASHES, FIRST_LEGAL
from tests.platform.workers import StartWorker, Worker

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def wait_for(condition: Callable[[], Any], worker: Worker, what: str,
             timeout_s: float = 240) -> Any:  # fmt: skip
    deadline = time.monotonic() + timeout_s
    while not (value := condition()):
        worker.assert_alive()
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout_s} s\n{worker.log.read_text()[-3000:]}")
        time.sleep(0.3)
    return value


def login(url: str, username: str) -> Api:
    User.objects.create_user(username, password=f"{username}-secret-pw")
    answer = Api(url, None).call("POST", "/api/auth/token/", body={
        "username": username, "password": f"{username}-secret-pw", "name": "e2e"})  # fmt: skip
    return Api(url, answer["token"])


def upload_file(path: Path) -> Upload:
    return Upload(path.name, path.read_bytes())


@pytest.mark.timeout(900)
def test_the_whole_flow_through_the_api(live_server: LiveServer, start_worker: StartWorker) -> None:
    url = live_server.url
    ada, bob, cy, dee = (login(url, name) for name in ("ada", "bob", "cy", "dee"))
    anonymous = Api(url, None)
    uploads = [
        (ada, "heuristic", upload_file(EXAMPLES / "belote" / "heuristic.py")),
        (bob, "first-legal", Upload("bot.py", FIRST_LEGAL.encode())),
        (cy, "random", Upload("random.py", (EXAMPLES / "belote" / "minimal.py").read_bytes())),
        (dee, "crasher", Upload("bot.py", CRASHES.encode())),
    ]
    created = {}
    for api, name, upload in uploads:
        bot = api.call("POST", "/api/bots/", body={"name": name, "game": "belote"},
                       files={"file": upload})  # fmt: skip
        assert bot["name"] == name and bot["current_version"]["status"] == "pending"
        created[name] = bot
    worker = start_worker("api")

    def validated() -> dict[str, Any] | None:
        bots = {b["name"]: b for b in anonymous.pages("/api/bots/", game="belote")}
        versions = [
            v
            for name in created
            for v in anonymous.get(f"/api/bots/{bots[name]['id']}/")["versions"]
        ]
        done = all(v["status"] in ("active", "rejected") for v in versions)
        return bots if done else None

    bots = wait_for(validated, worker, "validation")
    crasher = anonymous.get(f"/api/bots/{created['crasher']['id']}/")
    [version] = crasher["versions"]
    assert (version["status"], version["fault"]) == ("rejected", "crash")
    assert crasher["current_version"] is None
    log_path = f"/api/bots/{crasher['id']}/versions/{version['id']}/log/"
    log = dee.get(log_path)
    assert "my bug is here" in log["log"] and log["fault"] == "crash"
    for stranger, code in ((ada, 404), (anonymous, 401)):
        with pytest.raises(ClientError) as refused:
            stranger.get(log_path)
        assert refused.value.exit_code == (4 if code == 401 else 1)
    assert "my bug is here" not in str(anonymous.get(f"/api/bots/{crasher['id']}/"))

    # a tournament of the three validated bots; the rejected one is refused by name
    players = [bots[n]["id"] for n in ("heuristic", "first-legal", "random")]
    with pytest.raises(ClientError, match="no validated version"):
        ada.call("POST", "/api/tournaments/", body={
            "game": "belote", "bots": [*players, crasher["id"]], "params": {"target": 300},
        })  # fmt: skip
    # ada is an operator here: her tournament is official, under the ladder's rules (which the
    # ladder fixes at target 300 for this test), so it is rated
    User.objects.filter(username="ada").update(is_staff=True)
    Ladder.objects.filter(pk=ladder_for_game(game="belote").pk).update(params={"target": 300})
    tournament = ada.call("POST", "/api/tournaments/", body={
        "name": "api e2e", "game": "belote", "bots": players, "params": {"target": 300},
        "rounds": 1, "duplicate": True, "official": True})  # fmt: skip
    assert anonymous.get(f"/api/tournaments/{tournament['id']}/")["rated"] is True
    detail = wait_for(
        lambda: (t := anonymous.get(f"/api/tournaments/{tournament['id']}/"))["status"]
        == "finished" and t, worker, "the tournament")  # fmt: skip
    assert detail["progress"] == {"done": 3, "total": 3, "running": 0, "failed": 0}
    standings = detail["standings"]
    assert [s["rank"] for s in standings] == [1, 2, 3]
    assert [s["matches"] for s in standings] == [2, 2, 2]
    assert sum(s["points"] for s in standings) == 3.0
    cross = detail["cross_table"]
    for i, a in enumerate(cross["bots"]):
        for j, b in enumerate(cross["bots"]):
            if a != b:
                assert cross["meetings"][i][j] == 1
                assert cross["points"][i][j] + cross["points"][j][i] == 1.0

    matches = list(anonymous.pages("/api/matches/", tournament=tournament["id"]))
    assert len(matches) == 3 and {m["status"] for m in matches} == {"finished"}
    for match in matches:
        places = {s["partnership"]: s["place"] for s in match["seats"]}  # partners share it
        assert len(places) == 2 and min(places.values()) == 1
        assert all(s["place"] == places[s["partnership"]] for s in match["seats"])
        replay = anonymous.get(f"/api/matches/{match['id']}/replay/")
        assert len(engine.resimulate(replay)) == 2
        seat = 1
        view = anonymous.get(f"/api/matches/{match['id']}/replay/", seat=seat)
        assert view["viewpoint"] == {"seat": seat} and view["seed"] is None
        for played in view["games"]:
            for deal in played["deals"]:
                assert "deck" not in deal
                for other in range(4):
                    if other != seat:
                        assert set(deal["hands"][other]) == {"??"}

    # the ladder rates every match of the official tournament
    def rated() -> list[dict[str, Any]] | None:
        rows = anonymous.get("/api/ladders/belote/")["results"]
        return rows if sorted(r["games"] for r in rows) == [2, 2, 2] else None

    rows = wait_for(rated, worker, "rating")
    assert [r["rank"] for r in rows] == [1, 2, 3]
    assert [r["rating"] for r in rows] == sorted((r["rating"] for r in rows), reverse=True)
    history = anonymous.get("/api/ladders/belote/history/", bot=players[1])["results"]
    assert len(history) == 2 and history[0]["after"] == history[1]["before"]

    # a challenge is played but never rated
    challenge = bob.call("POST", "/api/challenges/", body={
        "bot": players[1], "opponents": [players[0]], "params": {"target": 300}})  # fmt: skip
    assert challenge["origin"] == "challenge" and challenge["status"] == "queued"
    wait_for(lambda: anonymous.get(f"/api/matches/{challenge['id']}/")["status"] == "finished",
             worker, "the challenge")  # fmt: skip
    time.sleep(2)  # longer than a rating task's delay: a wrongly queued rating would show
    assert not RatingChange.objects.filter(match_id=challenge["id"]).exists()
    assert sorted(r["games"] for r in anonymous.get("/api/ladders/belote/")["results"]) == [2, 2, 2]
