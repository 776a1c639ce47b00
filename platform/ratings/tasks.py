from __future__ import annotations

from celery import shared_task


@shared_task(name="arena.ratings.apply")
def apply_ratings_task(ladder_id: int) -> None:
    from ratings.services import ladder_apply_ratings  # services enqueue this task: import late

    ladder_apply_ratings(ladder_id=ladder_id)


@shared_task(name="arena.ratings.figures")
def refresh_figures_task(kind: str, game: str) -> None:
    """A ladder's strengths or seat fairness computed again, off the request path."""
    from ratings.selectors import figures_refresh

    figures_refresh(kind=kind, game=game)
