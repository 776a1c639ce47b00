from __future__ import annotations

from celery import shared_task


@shared_task(name="arena.bots.validate")
def validate_version_task(version_id: int) -> None:
    from bots.services import botversion_validate  # services enqueue this task: import late

    botversion_validate(version_id=version_id)
