from __future__ import annotations

from celery import Task, shared_task


@shared_task(bind=True, name="arena.matches.run")
def run_match_task(self: Task[[int], None], match_id: int) -> None:
    from matches.heartbeats import worker_name
    from matches.services import match_run  # services enqueue this task: import late

    match_run(match_id=match_id, worker=worker_name(self.request.hostname or "inline"))


@shared_task(name="arena.matches.reap")
def reap_task() -> None:
    """Periodic (beat): recover matches, validations and ratings whose worker or message was
    lost, unless a worker's own reaper thread just did."""
    from matches.reaper import reap_if_due

    reap_if_due()


@shared_task(name="arena.matches.luck")
def luck_task() -> None:
    """Periodic (beat): the luck of the newest finished matches that have none yet."""
    from matches.luck import matches_luck_fill

    matches_luck_fill()
