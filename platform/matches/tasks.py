from __future__ import annotations

import logging
from datetime import timedelta

from celery import Task, shared_task

logger = logging.getLogger(__name__)


@shared_task(bind=True, name="arena.matches.run")
def run_match_task(self: Task[[int], None], match_id: int) -> None:
    from matches.heartbeats import worker_name
    from matches.services import match_run  # services enqueue this task: import late

    match_run(match_id=match_id, worker=worker_name(self.request.hostname or "inline"))


@shared_task(name="arena.matches.reap")
def reap_task() -> None:
    """Periodic: recover matches, validations and ratings whose worker or message was lost. A
    broker that restarted empty lost every queued message: all are re-sent at once."""
    from arena.celery import broker_restarted
    from bots.services import botversions_reap, botversions_redispatch
    from matches.heartbeats import workers_forget
    from matches.services import matches_reap, matches_redispatch
    from ratings.services import ladders_rate_overdue
    from tournaments.services import tournaments_reschedule

    restarted = broker_restarted()
    matches_reap()
    resent = matches_redispatch(everything=restarted)
    botversions_reap()
    revalidated = botversions_redispatch(everything=restarted)
    if restarted:
        logger.warning(
            "the broker lost its queues (restarted empty?): %d matches and %d validations "
            "sent again", resent, revalidated,
        )  # fmt: skip
        ladders_rate_overdue(older_than=timedelta(0))
    else:
        ladders_rate_overdue()
    tournaments_reschedule()
    workers_forget()
