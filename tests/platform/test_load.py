"""The load test's short form (benchmarks/load.py for the full one): the site under gunicorn on
loopback, simulated users browsing ladders, replays and tournaments and others uploading bots,
while a tournament runs on 2 worker processes. Zero errors and zero 5xx; latency is reported by
the benchmark, never asserted."""

from __future__ import annotations

import os

import pytest
import redis
from django.db import connection

from api.services import token_create
from arena.celery import app
from benchmarks.load import Uploader, browse_pages, forget_cache, gunicorn, run_load
from bots.models import BotVersion
from tests.platform.factories import FIRST_LEGAL, UserFactory, active_bot
from tests.platform.test_reliability import finished, wait_until
from tests.platform.workers import StartWorker, database_url
from tournaments.services import tournament_create

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.mark.timeout(600)
def test_a_short_load_while_a_tournament_runs_gets_no_error(
    start_worker: StartWorker, redis_broker_url: str
) -> None:
    entrants = [active_bot("belote") for _ in range(4)]
    organiser = UserFactory()
    bot_ids = [b.pk for b in entrants]
    warm_up = tournament_create(created_by=organiser, name="replays", game="belote",
                                bot_ids=bot_ids, params={"target": 300})  # fmt: skip
    workers = [start_worker("w1"), start_worker("w2")]
    wait_until(lambda: finished(warm_up), workers, "the first tournament")
    running = tournament_create(created_by=organiser, name="under load", game="belote",
                                bot_ids=bot_ids, params={"target": 500},
                                rounds=2)  # fmt: skip
    uploaders = []
    for n in range(2):
        bot = active_bot("belote", source=FIRST_LEGAL, owner=UserFactory(username=f"up{n}"))
        uploaders.append(Uploader(token_create(user=bot.owner, name="load")[1], bot.pk))
    pages = browse_pages(
        game="belote", tournament_ids=[warm_up.pk, running.pk],
        match_ids=list(warm_up.matches.values_list("id", flat=True)),
        bot_ids=bot_ids,
    )  # fmt: skip
    prefix = app.conf.task_default_queue.removesuffix("default")
    forget_cache(redis.Redis.from_url(redis_broker_url))
    env = {"DATABASE_URL": database_url(connection.settings_dict), "ARENA_EXECUTION": "celery",
           "ARENA_QUEUE_PREFIX": prefix, "ARENA_UPLOADS_PER_HOUR": "0",
           "ARENA_CACHE_URL": redis_broker_url}  # fmt: skip
    with gunicorn(env) as site:
        # the site yields the CPU to the matches (arena.gunicorn_conf)
        assert os.getpriority(os.PRIO_PROCESS, site.pid) == min(19, os.nice(0) + 10)
        report = run_load(site.url, seconds=10, users=10, pages=pages, uploaders=uploaders,
                          think_s=0.3, upload_every_s=2)  # fmt: skip
    print(report.table())
    assert report.errors == [] and report.server_errors == 0
    assert report.requests >= 20 and report.latencies["upload"]
    assert BotVersion.objects.filter(bot__owner__username__startswith="up").count() == 2 + len(
        report.latencies["upload"])  # fmt: skip
    wait_until(lambda: finished(running), workers, "the tournament under load")
