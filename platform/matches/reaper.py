"""The reaper: recover matches, validations, ratings and schedules whose worker or message was
lost. The database is the source of truth; whatever it re-sends that was not lost after all only
makes a claim that changes nothing.

It passes every ``ARENA_REAP_INTERVAL_S`` (15 s), made by whichever process takes the turn
(``arena.celery.reaper_turn``): every worker offers a pass from a thread of its own, so the
reaper never waits for a free task slot (while long matches keep every slot busy, a reaper task
would wait behind them), and beat sends one as a task too.

* A claim whose worker stopped beating (``matches.heartbeats``), or whose lease ended, goes back
  to the queue.
* Messages may be lost with a worker, not only with the broker: a worker killed while it held
  messages unacknowledged (the next one under way, a retry's countdown) keeps them from
  everyone until the broker's visibility timeout, 40 minutes. So when a worker is found lost,
  every match queued before it died is sent again at once, and when the broker restarted empty
  (``arena.celery.broker_restarted``) everything queued is. Otherwise what waited
  ``ARENA_MATCH_REDISPATCH_S`` is (the backstop).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reaped:
    """What one pass did."""

    lost_workers: list[str]
    broker_restarted: bool
    requeued: int  # running matches given back (or ended in error after the attempt cap)
    resent: int  # queued matches sent again
    revalidated: int  # pending validations sent again


def reaper_start() -> None:
    """Offer a pass every ``ARENA_REAP_INTERVAL_S`` from a daemon thread (a worker's)."""
    threading.Thread(target=_reap_forever, name="arena-reaper", daemon=True).start()


def _reap_forever() -> None:
    from arena.celery import REAP_INTERVAL_S

    pause = threading.Event()  # never set: the thread ends with the process
    while not pause.wait(REAP_INTERVAL_S):
        try:
            reap_if_due()
        except Exception:  # the database or the broker away: the next pass will tell
            logger.warning("the reaper's pass failed", exc_info=True)
        finally:
            connection.close()  # this thread's own


def reap_if_due() -> Reaped | None:
    """A pass, unless another process made one in the last ``ARENA_REAP_INTERVAL_S``."""
    from arena.celery import reaper_turn

    return reap() if reaper_turn() else None


def reap() -> Reaped:
    """One pass of the reaper."""
    from arena.celery import broker_restarted
    from bots.services import botversions_reap, botversions_redispatch
    from matches.heartbeats import workers_forget, workers_lost
    from matches.services import matches_reap, matches_redispatch
    from ratings.services import ladders_rate_overdue
    from tournaments.services import tournaments_reschedule

    lost = workers_lost()
    restarted = broker_restarted()
    counts = matches_reap()
    botversions_reap()
    # a lost worker held only messages sent before it died: by its last beat and a period
    died_by = max(lost.values(), default=None)
    if died_by is not None:
        died_by += timedelta(seconds=settings.ARENA_WORKER_HEARTBEAT_S)
    resent = matches_redispatch(queued_before=timezone.now() if restarted else died_by)
    revalidated = botversions_redispatch(everything=restarted or bool(lost))
    if restarted or lost:
        why = ["the broker lost its queues (restarted empty?)"] if restarted else []
        why += [f"worker {name} lost" for name in lost]
        logger.warning("%s: %d matches and %d validations sent again", "; ".join(why),
                       resent, revalidated)  # fmt: skip
    ladders_rate_overdue(older_than=timedelta(0) if restarted else timedelta(minutes=1))
    tournaments_reschedule()
    workers_forget(names=list(lost))  # handled: a worker that was only slow beats again
    return Reaped(list(lost), restarted, counts["requeued"] + counts["errored"], resent,
                  revalidated)  # fmt: skip
