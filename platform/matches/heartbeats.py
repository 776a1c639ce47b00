"""Workers' heartbeats: every worker process publishes one, and the reaper treats a claim (a
match's or a validation's) whose worker stopped beating as lost.

A claim's lease (``MATCH_LEASE``: the task's hard time limit and a minute) stays the backstop;
the heartbeat is what brings a killed worker's match back within a minute with the defaults: a
beat every ``ARENA_WORKER_HEARTBEAT_S`` (10 s), lost after ``ARENA_WORKER_LOST_S`` (30 s) of
silence, found by the reaper's next pass (every ``ARENA_REAP_INTERVAL_S``, 15 s;
``matches.reaper``): at most 45 s after the kill.

A slow but alive worker keeps its claims. The beat runs in a thread of its own, started before
the pool forks (under the prefork pool it lives in the pool's parent, which runs no task), so a
long match, a busy task process or CPU-starved bots never delay it. A worker is judged lost
only while some other worker's heartbeat is fresh: if none is (the database was away, and every
worker with it), nobody is, until they have had the time to beat again. And if a worker is
judged lost wrongly after all, nothing is recorded twice: its claim's run token no longer
matches once the match is re-queued.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.db.models import Q, Sum
from django.db.models.functions import Now

from matches.models import WorkerHeartbeat

logger = logging.getLogger(__name__)

#: a failed beat (the database away) is tried again this soon, so that once the database is
#: back every worker beats again before any of them looks lost to the reaper
RETRY_S = 2.0
#: heartbeats silent this long are forgotten (their claims, if any, wait for their lease)
FORGET_AFTER = timedelta(days=1)

_name: str | None = None


def worker_name(hostname: str) -> str:
    """What a claim records as its worker: this worker's heartbeat name once it beats (the
    pool's processes inherit it from their parent), else ``hostname`` (a task run in-process,
    whose claims only their lease recovers)."""
    return _name or hostname


def heartbeat_start(*, hostname: str, match_slots: int) -> str:
    """Called once as a worker starts, before its pool forks: name this start of the worker
    (the host name and a random part, so a restarted worker with the same host name is another
    worker) and beat from a daemon thread until the process ends, with ``match_slots``, the
    rated matches it can play at once (its processes if it serves the rated queue, else 0).
    The name."""
    global _name
    _name = f"{hostname} {uuid.uuid4().hex[:8]}"
    threading.Thread(
        target=_beat_forever, args=(_name, match_slots), name="arena-heartbeat", daemon=True
    ).start()
    return _name


def _beat_forever(name: str, match_slots: int) -> None:
    pause = threading.Event()  # never set: the thread ends with the process
    while True:
        try:
            worker_beat(name=name, match_slots=match_slots)
            period_s = float(settings.ARENA_WORKER_HEARTBEAT_S)
        except Exception:  # the database away: the thread must outlive it
            logger.warning("heartbeat of %s not recorded; retrying", name, exc_info=True)
            period_s = RETRY_S
        finally:
            connection.close()  # this thread's own; nothing stays open between beats
        pause.wait(period_s)


def worker_beat(*, name: str, match_slots: int = 0) -> None:
    """Record that the worker ``name`` is alive, in the database's clock."""
    if not WorkerHeartbeat.objects.filter(name=name).update(beat_at=Now()):
        WorkerHeartbeat.objects.create(name=name, beat_at=Now(), match_slots=match_slots)


def live_match_slots() -> int:
    """The rated matches the live workers (beating within ``ARENA_WORKER_LOST_S``) can play at
    once: the sum of their ``match_slots``."""
    since = Now() - timedelta(seconds=settings.ARENA_WORKER_LOST_S)
    live = WorkerHeartbeat.objects.filter(beat_at__gte=since)
    return int(live.aggregate(slots=Sum("match_slots"))["slots"] or 0)


def workers_lost() -> dict[str, datetime]:
    """The workers silent for ``ARENA_WORKER_LOST_S`` while another worker's heartbeat is
    fresh, with their last beat; none while no heartbeat is fresh."""
    since = Now() - timedelta(seconds=settings.ARENA_WORKER_LOST_S)
    if not WorkerHeartbeat.objects.filter(beat_at__gte=since).exists():
        return {}
    return dict(WorkerHeartbeat.objects.filter(beat_at__lt=since).values_list("name", "beat_at"))


def workers_forget(*, names: Sequence[str] = ()) -> int:
    """Delete the heartbeats of the workers ``names`` (found lost and dealt with: one that was
    only slow beats again, as a new row) and of workers gone for a day; how many."""
    gone = Q(name__in=names) | Q(beat_at__lt=Now() - FORGET_AFTER)
    deleted, _ = WorkerHeartbeat.objects.filter(gone).delete()
    return deleted
