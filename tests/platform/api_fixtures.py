"""Personas and objects shared by the API tests: an owner and another author with one active
Belote bot each, a staff user, a finished match between the two bots with a real replay."""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

import engine
from api.services import token_create
from bots.models import Bot, BotVersion
from matches.models import Match, MatchReplay
from tests.platform.factories import UserFactory, active_bot, finished_match

PERSONAS = ("anonymous", "owner", "other", "staff")


@dataclass
class World:
    users: dict[str, User]
    tokens: dict[str, str]
    bot: Bot  # the owner's
    version: BotVersion
    rival: Bot  # the other author's
    match: Match  # finished, with a replay

    def client(self, persona: str) -> APIClient:
        client = APIClient()
        if persona != "anonymous":
            client.credentials(HTTP_AUTHORIZATION=f"Token {self.tokens[persona]}")
        return client


def store_replay(match: Match) -> None:
    """Play the match's game in-process (engine agents) and store it as the match's replay."""
    game = engine.load_game(match.game, **match.params)
    agents = [engine.make_agent(match.game, "random", seed=s) for s in range(game.num_players)]
    result = engine.run_match(game, None, agents, match.seed, duplicate=match.duplicate)
    data = json.dumps(result.replay).encode()
    MatchReplay.objects.create(match=match, data=zlib.compress(data), size=len(data))


@pytest.fixture(name="world")
def world_fixture(db: None) -> World:
    """Import ``world_fixture`` into a test module to use the ``world`` fixture."""
    users = {
        "owner": UserFactory(username="olga"),
        "other": UserFactory(username="oscar"),
        "staff": UserFactory(username="sam", is_staff=True),
    }
    tokens = {name: token_create(user=user, name="tests")[1] for name, user in users.items()}
    bot = active_bot("belote", owner=users["owner"], name="mine")
    rival = active_bot("belote", owner=users["other"], name="theirs")
    assert bot.current_version is not None and rival.current_version is not None
    match = finished_match("belote", [bot.current_version, rival.current_version], [1, 2])
    Match.objects.filter(pk=match.pk).update(params={"target": 300})
    match.refresh_from_db()
    store_replay(match)
    return World(users, tokens, bot, bot.current_version, rival, match)
