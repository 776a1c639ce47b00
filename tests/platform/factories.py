"""Factories for platform tests: users, bots with stored versions, finished matches.

Bot programs are real Python bots (they run in the sandbox when a test plays them); each factory
version gets distinct bytes through a comment, as distinct uploads would have.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from datetime import timedelta

import factory
from django.contrib.auth.models import User
from django.utils import timezone

from bots.models import Bot, BotVersion, BotVersionStatus, Package
from matches import formats
from matches.models import Match, MatchOrigin, MatchSeat, MatchStatus
from ratings.services import ladder_for_game

FIRST_LEGAL = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"id": message["id"], "action": message["legal"][0]}), flush=True)
"""
SLOW = """\
import json, random, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        time.sleep(0.03)  # 30 times under the decision limit: slow, never late
        action = random.choice(message["legal"])
        print(json.dumps({"id": message["id"], "action": action}), flush=True)
"""
CRASHES = """\
import sys
sys.stderr.write("Traceback: ZeroDivisionError: my bug is here\\n")
sys.exit(3)
"""
_unique = itertools.count(1)


class UserFactory(factory.django.DjangoModelFactory[User]):
    class Meta:
        model = User

    username = factory.Sequence(lambda n: f"author{n}")


class BotFactory(factory.django.DjangoModelFactory[Bot]):
    class Meta:
        model = Bot

    owner = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"bot{n}")
    game = "belote"


def add_version(
    bot: Bot, source: str = FIRST_LEGAL, *, status: str = BotVersionStatus.ACTIVE
) -> BotVersion:
    """A stored version of ``bot`` (active and current by default), bypassing validation."""
    data = f"{source}# {next(_unique)}\n".encode()
    sha = hashlib.sha256(data).hexdigest()
    package, _ = Package.objects.get_or_create(
        sha256=sha, defaults={"data": data, "size": len(data)}
    )
    number = bot.versions.count() + 1
    version = BotVersion.objects.create(
        bot=bot, number=number, package=package, filename="bot.py", runtime="python3",
        entry="bot.py", size=len(data), status=status,
    )  # fmt: skip
    if status == BotVersionStatus.ACTIVE:
        bot.current_version = version
        bot.save(update_fields=["current_version"])
    return version


def active_bot(game: str = "belote", source: str = FIRST_LEGAL, **kwargs: object) -> Bot:
    bot = BotFactory(game=game, **kwargs)
    add_version(bot, source)
    return bot


def finished_match(
    game: str,
    versions: Sequence[BotVersion],
    places: Sequence[int],
    *,
    faults: Sequence[str] = (),
    minutes_ago: float = 0,
    boards: Sequence[Sequence[float]] | None = None,
) -> Match:
    """A finished match (as if recorded) between entrants ``versions`` with these places
    (one per entrant); ``faults`` gives entrants' verdicts ("" for none); ``boards`` each
    board's score per entrant (stored per seat, as ``Match.boards``)."""
    rules = formats.load(game)
    layout = formats.seat_entrants(rules)
    match = Match.objects.create(
        game=game, params=rules.params_dict(), seed=next(_unique), duplicate=True,
        origin=MatchOrigin.LADDER, ladder=ladder_for_game(game=game),
        status=MatchStatus.FINISHED,
        finished_at=timezone.now() - timedelta(minutes=minutes_ago),
        boards=None if boards is None else [[b[e] for e in layout] for b in boards],
    )  # fmt: skip
    verdicts = list(faults) or [""] * len(versions)
    for seat, entrant in enumerate(layout):
        MatchSeat.objects.create(
            match=match, seat=seat, partnership=formats.seat_partnership(rules, seat),
            bot=versions[entrant].bot, bot_version=versions[entrant],
            score=float(10 - places[entrant]), place=places[entrant],
            fault=verdicts[entrant],
        )  # fmt: skip
    return match
