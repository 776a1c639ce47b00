"""The Celery application: broker and execution mode come from Django settings (CELERY_*
names), the task policy below is fixed.

Tasks take ids only and are JSON-serialized. A match task claims its match with a
compare-and-swap update and records its result exactly once, which is what makes late
acknowledgement with a prefetch of one safe: a message redelivered after a worker died is
either claimed anew or ignored.
"""

import os

from celery import Celery
from kombu import Queue

SOFT_TIME_LIMIT_S = 10 * 60  # the task gets SoftTimeLimitExceeded and can record a fault
HARD_TIME_LIMIT_S = SOFT_TIME_LIMIT_S + 60  # the worker process running the task is killed
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
    task_queues=[Queue("default"), Queue("matches")],
    task_default_queue="default",
    task_routes={"arena.ops.*": {"queue": "default"}, "arena.matches.*": {"queue": "matches"}},
)
app.autodiscover_tasks()
