"""Sending tasks to the workers, once the write that asked for them has committed, without a
missing broker failing a request whose write succeeded.

The database is the source of truth, and every task sent through here has a periodic re-send
of what it was for (``matches.reaper``: queued matches, pending validations, tournaments
without their matches, unrated ladder matches). So a message the broker would not take is
logged and left to that re-send; the request that committed answers success, and a client that
retries does not create the same thing twice. Publishing is bounded (``arena.celery``: the
broker's socket timeouts and one retry), so a dead broker costs a request at most a few seconds
and a refused connection nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from celery import Task
from django.db import transaction
from kombu.exceptions import OperationalError

logger = logging.getLogger(__name__)

#: what publishing raises when the broker cannot be reached (kombu wraps most in the first)
BROKER_ERRORS = (OperationalError, OSError)


def send(task: Task[Any, Any], *args: Any, **options: Any) -> bool:
    """Send ``task(*args)`` (``options`` as for ``apply_async``) now; False, logged, if the
    broker could not take it."""
    try:
        task.apply_async(args, **options)
    except BROKER_ERRORS as error:
        logger.warning(
            "%s%r not sent: the broker is unreachable (%s); the reaper sends it again",
            task.name, args, error,
        )  # fmt: skip
        return False
    return True


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
