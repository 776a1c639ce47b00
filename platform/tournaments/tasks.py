from __future__ import annotations

from celery import shared_task


@shared_task(name="arena.tournaments.schedule_ladders")
def schedule_ladders_task() -> None:
    """Periodic: top up every ladder's queue of matches."""
    from tournaments.services import ladders_schedule

    ladders_schedule()


@shared_task(name="arena.tournaments.top_up_ladder")
def top_up_ladder_task(ladder_id: int) -> None:
    """A ladder match ended: top its ladder's queue up (``ladder_top_up_soon``)."""
    from tournaments.services import ladder_top_up

    ladder_top_up(ladder_id=ladder_id)


@shared_task(name="arena.tournaments.schedule")
def schedule_tournament_task(tournament_id: int) -> None:
    """Create a new tournament's matches (at most ARENA_MATCHES_PER_REQUEST) off the request."""
    from tournaments.services import tournament_schedule

    tournament_schedule(tournament_id=tournament_id)
