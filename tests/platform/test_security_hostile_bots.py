"""Hostile bots through the whole platform path: uploaded, validated by a real worker (its own
home, package cache and temp dir), then matched. Each gets its verdict and a rejected version
never plays; the honest bot's results are untouched; a snooping bot that knows exactly where the
worker keeps the other bots' packages, its media folder and the database and broker addresses
finds nothing (it plays legally and reports what it saw on stderr, its owner's log)."""

from __future__ import annotations

import pytest

from bots.models import BotVersion, BotVersionStatus
from bots.services import bot_create_with_version
from matches.models import MatchOrigin, MatchStatus
from matches.services import MatchSpec, matches_create
from tests.platform.factories import CRASHES, FIRST_LEGAL, UserFactory
from tests.platform.test_reliability import wait_until
from tests.platform.workers import StartWorker

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

LOOP = """\
import json, os, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        ACT
"""
HOSTILE = {  # name -> (the bot's act, the verdict it must get)
    "sleeper": ("time.sleep(10**6)", "timeout"),
    "cheater": ('print(json.dumps({"id": message["id"], "action": "Zz"}), flush=True)',
                "illegal_action"),
    "babbler": ('print("this is not json", flush=True)', "protocol_error"),
    "flooder": ('sys.stdout.write("x" * 10**8); sys.stdout.flush()', None),
}  # fmt: skip
SNOOP = """\
import glob, json, os, socket, sys
found = []
for path in PATHS:
    for probe in (os.listdir, lambda p: open(p, "rb").read(1)):
        try:
            probe(path)
            found.append(path)
        except Exception:
            pass
found += glob.glob("/tmp/**/*.py", recursive=True) + glob.glob("/**/bot-*", recursive=False)
for port in (5432, 6379):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        found.append(f"port {port}")
    except OSError:
        pass
SECRETS = ("DATABASE", "CELERY", "ARENA", "SECRET", "postgres://", "redis://")
found += [k for k in os.environ if k.startswith(SECRETS)]
for environ in glob.glob("/proc/*/environ"):  # every process it can see (its own namespace)
    try:
        text = open(environ, "rb").read().decode("utf-8", "replace")
    except OSError:
        continue
    found += [f"{environ}: {s}" for s in SECRETS if s in text]
sys.stderr.write(f"SNOOPED {json.dumps(found)}\\n")
sys.stderr.flush()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"id": message["id"], "action": message["legal"][0]}), flush=True)
"""


def upload(name: str, source: str) -> BotVersion:
    return bot_create_with_version(owner=UserFactory(username=name), name=name, game="belote",
                                   chunks=[source.encode()], filename="bot.py")  # fmt: skip


def settled() -> bool:
    return not BotVersion.objects.filter(status__in=["pending", "validating"]).exists()


@pytest.mark.timeout(600)
def test_hostile_bots_get_their_verdicts_and_a_snooper_finds_nothing(
    start_worker: StartWorker,
) -> None:
    worker = start_worker("w")
    honest = upload("honest", FIRST_LEGAL)
    wait_until(settled, [worker], "the honest bot's validation")
    cache = worker.package_cache
    paths = [str(cache), str(cache / honest.sha256), str(worker.home / "media"),
             str(worker.home / "cwd"), str(worker.log), "/etc/shadow"]
    hostile = {name: upload(name, LOOP.replace("ACT", act)) for name, (act, _v) in
               HOSTILE.items()}  # fmt: skip
    hostile["crasher"] = upload("crasher", CRASHES)
    snooper = upload("snooper", SNOOP.replace("PATHS", repr(paths)))
    wait_until(settled, [worker], "the validations", timeout_s=400)

    for name, version in hostile.items():
        version.refresh_from_db()
        expected = HOSTILE.get(name, ("", "crash"))[1]
        assert version.status == BotVersionStatus.REJECTED, (name, version.reason)
        if expected is not None:
            assert version.fault == expected, (name, version.fault, version.reason)
        assert version.reason.strip() and version.bot.current_version is None
    snooper.refresh_from_db()
    honest.refresh_from_db()
    assert snooper.status == honest.status == BotVersionStatus.ACTIVE, snooper.reason
    assert "SNOOPED []" in snooper.log, snooper.log[-2000:]

    [match] = matches_create(
        game="belote", params={"target": 300}, duplicate=True, origin=MatchOrigin.CHALLENGE,
        specs=[MatchSpec(entrants=[honest, snooper])],
    )  # fmt: skip
    wait_until(lambda: (match.refresh_from_db() or match.status) != MatchStatus.QUEUED
               and match.status != MatchStatus.RUNNING, [worker], "the match")  # fmt: skip
    assert match.status == MatchStatus.FINISHED
    assert set(match.seats.values_list("fault", flat=True)) == {""}
    assert all("SNOOPED []" in log for log in
               match.seats.filter(bot=snooper.bot).values_list("log", flat=True))  # fmt: skip
