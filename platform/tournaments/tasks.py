from __future__ import annotations

from celery import shared_task


@shared_task(name="arena.tournaments.schedule_ladders")
def schedule_ladders_task() -> None:
    """Periodic: top up every ladder's queue of matches."""
    from tournaments.services import ladders_schedule

    ladders_schedule()
