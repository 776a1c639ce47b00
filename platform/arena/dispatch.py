"""Sending tasks to the workers, once the write that asked for them has committed, without a
missing broker failing a request whose write succeeded.

The database is the source of truth, and every task sent through here has a periodic re-send
of what it was for (``matches.reaper``: queued matches, pending validations, tournaments
without their matches, unrated ladder matches). So a message the broker would not take is
logged and left to that re-send; the request that committed answers success, and a client that
retries does not create the same thing twice.

Publishing is bounded (``arena.celery``: the broker's socket timeouts and one retry), so a
broker that refuses connections costs a request a fraction of a second, and one that accepts
them and never answers (a hung host) about twice ``ARENA_BROKER_TIMEOUT_S``. So that only one
request per process pays that, a failure holds this process's sends off for
``ARENA_BROKER_RETRY_S``: they are logged as not sent, and their rows left to the re-send, at
once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from celery import Task
from django.conf import settings
from django.db import transaction
from kombu.exceptions import OperationalError

logger = logging.getLogger(__name__)

#: what publishing raises when the broker cannot be reached (kombu wraps most in the first)
BROKER_ERRORS = (OperationalError, OSError)
#: monotonic time until which this process does not try the broker (it failed just before)
_held_until = 0.0


def send(task: Task[Any, Any], *args: Any, **options: Any) -> bool:
    """Send ``task(*args)`` (``options`` as for ``apply_async``) now; False, logged, if the
    broker could not take it, or failed less than ``ARENA_BROKER_RETRY_S`` ago. Executed
    inline (no broker), the task's own errors are raised."""
    global _held_until
    if task.app.conf.task_always_eager:
        task.apply_async(args, **options)
        return True
    if time.monotonic() < _held_until:
        reason = "the broker failed less than ARENA_BROKER_RETRY_S ago"
    else:
        try:
            task.apply_async(args, **options)
        except BROKER_ERRORS as error:
            _held_until = time.monotonic() + settings.ARENA_BROKER_RETRY_S
            reason = f"the broker is unreachable: {error}"
        else:
            return True
    logger.warning("%s%r not sent (%s); the reaper sends it again", task.name, args, reason)
    return False


def send_on_commit(
    task: Task[Any, Any], *args: Any, unsent: Callable[[], object] | None = None, **options: Any
) -> None:
    """:func:`send` once the current transaction commits (at once outside one), then
    ``unsent()`` if the broker would not take it (e.g. to make the row due for the reaper's
    next re-send). ``robust``: whatever else goes wrong is logged, never raised into a request
    whose write has committed."""

    def send_now() -> None:
        if not send(task, *args, **options) and unsent is not None:
            unsent()

    transaction.on_commit(send_now, robust=True)
