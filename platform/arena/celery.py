"""The Celery application: broker and execution mode come from Django settings (CELERY_*
names), the task policy below is fixed.

Tasks take ids only and are JSON-serialized. A match task claims its match with a
compare-and-swap update and records its result exactly once, which is what makes late
acknowledgement with a prefetch of one safe: a message redelivered after a worker died is
either claimed anew or ignored.
"""

import gc
import logging
import os
import time
from typing import Any

import redis
from celery import Celery, signals
from kombu import Queue

from arena.env import read_int

# ARENA_TASK_TIME_LIMIT_S: the task gets SoftTimeLimitExceeded (a match is given back for another
# attempt); a minute later the worker process running it is killed (the reaper re-queues it).
SOFT_TIME_LIMIT_S = read_int(os.environ, "ARENA_TASK_TIME_LIMIT_S", default=10 * 60, minimum=1)
HARD_TIME_LIMIT_S = SOFT_TIME_LIMIT_S + 60
# Redis re-delivers an unacknowledged message after this long; it must outlast any task run.
VISIBILITY_TIMEOUT_S = HARD_TIME_LIMIT_S + 30 * 60
# How often the reaper passes (lost workers, a broker restarted empty, overdue messages): every
# worker offers a pass this often from a thread of its own, and beat sends one as a task; one
# of them takes the turn (matches.reaper). With the workers' heartbeats (ARENA_WORKER_LOST_S) it
# bounds how soon a lost match returns.
REAP_INTERVAL_S = read_int(os.environ, "ARENA_REAP_INTERVAL_S", default=15, minimum=1)
# Connecting to the broker and each of its commands wait at most this long, and a publish is
# tried twice: a request whose write committed is never held long by a broker that is away
# (arena.dispatch), and a refused connection costs nothing. Without it a broker that stopped
# answering held a publish forever.
BROKER_TIMEOUT_S = read_int(os.environ, "ARENA_BROKER_TIMEOUT_S", default=3, minimum=1)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    task_ignore_result=True,
    task_acks_late=True,
    worker_prefetch_multiplier=1,
    task_soft_time_limit=SOFT_TIME_LIMIT_S,
    task_time_limit=HARD_TIME_LIMIT_S,
    broker_transport_options={
        "visibility_timeout": VISIBILITY_TIMEOUT_S,
        "socket_timeout": BROKER_TIMEOUT_S,
        "socket_connect_timeout": BROKER_TIMEOUT_S,
    },
    task_publish_retry_policy={"max_retries": 1, "interval_start": 0.2, "interval_step": 0},
    broker_connection_retry_on_startup=True,
    # processes per worker (prefork); docker-compose's worker and benchmarks/load.py both start
    # `celery --app=arena worker` with no more options, so both run this configuration
    worker_concurrency=read_int(os.environ, "ARENA_WORKER_CONCURRENCY", default=2, minimum=1),
    beat_schedule={
        # never expired: while every worker is busy a reaper message waits for a free one, and
        # one that runs late is still a pass (an expired one would be dropped there)
        "reap-lost-runs": {"task": "arena.matches.reap", "schedule": float(REAP_INTERVAL_S)},
        "schedule-ladders": {"task": "arena.tournaments.schedule_ladders", "schedule": 30.0},
        # at most about 5 s of CPU every 20 s, on the figures' queue: the luck of finished
        # matches (matches.luck); a pass that waited past the next one is dropped
        "compute-luck": {"task": "arena.matches.luck", "schedule": 20.0,
                         "options": {"expires": 20.0}},  # fmt: skip
    },
)


def queue_config(prefix: str = "") -> dict[str, Any]:
    """Queues and routes. Validation and matches have queues of their own, so a long tournament
    never delays a validation, and rated matches (the ladder's, official tournaments') one apart
    from unrated ones (``matches.services`` routes each); the ladders' figures (strengths with
    their bootstrap, seat fairness: seconds of CPU each) and the matches'
    luck one too, so a refresh never waits behind the reaper or the scheduler, nor they behind
    it, and a host of its own can take them (``-Q ratings``); ``prefix`` (ARENA_QUEUE_PREFIX)
    lets several deployments, or test runs, share one broker."""
    names = {queue: prefix + queue for queue in QUEUES}
    return {
        "arena_queue_prefix": prefix,
        "task_queues": [Queue(name) for name in names.values()],
        "task_default_queue": names["default"],
        "task_routes": {
            "arena.bots.validate": {"queue": names["validation"]},
            "arena.matches.run": {"queue": names["matches"]},
            "arena.ratings.figures": {"queue": names["ratings"]},
            "arena.matches.luck": {"queue": names["ratings"]},
        },
    }


QUEUES = ("default", "validation", "rated", "matches", "ratings")
app.conf.update(queue_config(os.environ.get("ARENA_QUEUE_PREFIX", "").strip()))


def queue_name(queue: str) -> str:
    """The broker's name of one of :data:`QUEUES` in this deployment."""
    assert queue in QUEUES, queue
    return str(app.conf.arena_queue_prefix) + queue


app.autodiscover_tasks()


#: where the broker keeps its marker (with the deployment's queue prefix)
BROKER_MARKER = "arena:broker-marker"
#: the key whose holder makes the reaper's pass of the moment
REAPER_TURN = "arena:reaper-turn"


def _redis_broker() -> str | None:
    """The broker's URL if tasks go to a Redis broker (else ``None``: run in-process)."""
    url = str(app.conf.broker_url or "")
    redis_url = url.startswith(("redis://", "rediss://", "unix://"))
    return url if redis_url and not app.conf.task_always_eager else None


def _set_in_broker(url: str, name: str, *, ttl_s: int | None = None) -> bool:
    """``SET name NX`` in the broker, under the deployment's queue prefix: whether it was set
    now (False too if the broker cannot be reached)."""
    client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
    try:
        key = str(app.conf.arena_queue_prefix) + name
        return bool(client.set(key, str(time.time()), nx=True, ex=ttl_s))
    except redis.RedisError as error:
        logging.getLogger(__name__).warning("the broker could not be reached: %s", error)
        return False
    finally:
        client.close()


def broker_restarted() -> bool:
    """Whether the broker lost its data since the last look (a Redis without persistence
    restarted empty: every queued message is gone): True once, when its marker key is missing
    and set again; also the first time ever. False while it cannot be reached (the next look
    will tell) and without a Redis broker."""
    url = _redis_broker()
    return url is not None and _set_in_broker(url, BROKER_MARKER)


def reaper_turn() -> bool:
    """Whether this process makes the reaper's pass now: no other process made one in the last
    ``REAP_INTERVAL_S`` (a key in the broker that expires then). Always without a Redis broker;
    never while it cannot be reached (the pass could send nothing)."""
    url = _redis_broker()
    return url is None or _set_in_broker(url, REAPER_TURN, ttl_s=REAP_INTERVAL_S)


@signals.worker_init.connect
def _start_heartbeat(sender: Any, **kwargs: Any) -> None:
    """Every worker publishes a heartbeat (``matches.heartbeats``), named before its pool
    forks so that the pool's processes claim under its name, and offers the reaper's passes
    (``matches.reaper``); both from threads that no task slot waits for."""
    from matches.heartbeats import heartbeat_start  # Django is set up by now
    from matches.reaper import reaper_start

    heartbeat_start(hostname=sender.hostname, match_slots=_match_slots(sender))
    reaper_start()


def _match_slots(worker: Any) -> int:
    """The rated matches ``worker`` (a ``WorkController`` at ``worker_init``, before its pool
    exists) plays at once: its processes if it serves the rated queue (a solo pool: one), else
    0 (a worker kept for the figures, ``-Q ratings``)."""
    if queue_name("rated") not in worker.app.amqp.queues.consume_from:
        return 0
    pool = worker.pool_cls if isinstance(worker.pool_cls, str) else worker.pool_cls.__module__
    return 1 if "solo" in pool else int(worker.concurrency)


@signals.worker_shutdown.connect
@signals.worker_process_shutdown.connect
def _close_sandbox_pool(**kwargs: Any) -> None:
    """Tear down the sandboxes this process prepared for matches it will not play."""
    from matches.execution import sandbox_pool_close

    sandbox_pool_close()


#: Celery's Django fixup closes every database connection before and after each task unless
#: this (undocumented) setting is given: then only every this many tasks. A match task would
#: open a new PostgreSQL session each time (a backend forked, authenticated and its caches
#: warmed: about 1 session and 14 ms of the server's CPU per Belote match measured, a match's
#: claim waiting 20 ms and more on a loaded machine). Connections are kept instead, as the web's
#: are, under Django's own rules (:func:`_database_rules_per_task`).
app.conf.CELERY_DB_REUSE_MAX = 1_000_000


@signals.task_prerun.connect
@signals.task_postrun.connect
def _database_rules_per_task(sender: Any = None, **kwargs: Any) -> None:
    """Around every task a worker runs, what Django does around every request: drop a
    connection that is past ``CONN_MAX_AGE``, broken or left in error, and check the kept one
    before its next use (``CONN_HEALTH_CHECKS``), so a database restarted meanwhile costs a task
    nothing. Not around a task run in-process (inline execution: the quick start, tests),
    which runs inside its caller's request and transaction."""
    from django.db import close_old_connections

    if not getattr(getattr(sender, "request", None), "is_eager", False):
        close_old_connections()


@signals.worker_process_init.connect  # each process of a prefork pool, after its fork
@signals.worker_ready.connect  # the main process (the solo pool plays matches there)
def _freeze_startup_objects(**kwargs: Any) -> None:
    """Leave the objects of the worker's start (Django, Celery, the engine's tables: about
    140,000) out of every later garbage collection: a full collection walked them all, 30-60
    ms of CPU about every ten matches, for objects that live as long as the process."""
    gc.collect()
    gc.freeze()


@signals.worker_init.connect
def _log_engine_build(sender: Any, **kwargs: Any) -> None:
    """Say which build of the engine's rules the worker's referees run: mypyc's (``setup.py``,
    the quick start's and the image's default) or the sources (no compiler where it was
    installed, or a development checkout)."""
    import engine.game
    from ops.selectors import engine_build

    logging.getLogger(__name__).info(
        "engine: the %s build (%s)", engine_build(), engine.game.__file__
    )
