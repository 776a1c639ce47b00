"""The Celery application: broker and execution mode come from Django settings (CELERY_*
names), the task policy below is fixed.

Tasks take ids only and are JSON-serialized. A match task claims its match with a
compare-and-swap update and records its result exactly once, which is what makes late
acknowledgement with a prefetch of one safe: a message redelivered after a worker died is
either claimed anew or ignored.
"""

import os
from typing import Any

from celery import Celery
from kombu import Queue

from arena.env import read_int

# ARENA_TASK_TIME_LIMIT_S: the task gets SoftTimeLimitExceeded (a match is given back for another
# attempt); a minute later the worker process running it is killed (the reaper re-queues it).
SOFT_TIME_LIMIT_S = read_int(os.environ, "ARENA_TASK_TIME_LIMIT_S", default=10 * 60, minimum=1)
HARD_TIME_LIMIT_S = SOFT_TIME_LIMIT_S + 60
# Redis re-delivers an unacknowledged message after this long; it must outlast any task run.
VISIBILITY_TIMEOUT_S = HARD_TIME_LIMIT_S + 30 * 60

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
    broker_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT_S},
    broker_connection_retry_on_startup=True,
    beat_schedule={
        "reap-lost-runs": {"task": "arena.matches.reap", "schedule": 60.0},
        "schedule-ladders": {"task": "arena.tournaments.schedule_ladders", "schedule": 30.0},
    },
)


def queue_config(prefix: str = "") -> dict[str, Any]:
    """Queues and routes. Validation and matches have queues of their own, so a long tournament
    never delays a validation, and rated matches (the ladder's, official tournaments') one apart
    from unrated ones (``matches.services`` routes each); ``prefix`` (ARENA_QUEUE_PREFIX) lets
    several deployments, or test runs, share one broker."""
    names = {queue: prefix + queue for queue in QUEUES}
    return {
        "arena_queue_prefix": prefix,
        "task_queues": [Queue(name) for name in names.values()],
        "task_default_queue": names["default"],
        "task_routes": {
            "arena.bots.validate": {"queue": names["validation"]},
            "arena.matches.run": {"queue": names["matches"]},
        },
    }


QUEUES = ("default", "validation", "rated", "matches")
app.conf.update(queue_config(os.environ.get("ARENA_QUEUE_PREFIX", "").strip()))


def queue_name(queue: str) -> str:
    """The broker's name of one of :data:`QUEUES` in this deployment."""
    assert queue in QUEUES, queue
    return str(app.conf.arena_queue_prefix) + queue
app.autodiscover_tasks()
