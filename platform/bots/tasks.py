from __future__ import annotations

from celery import Task, shared_task


@shared_task(bind=True, name="arena.bots.validate")
def validate_version_task(self: Task[[int], None], version_id: int) -> None:
    from bots.services import botversion_validate  # services enqueue this task: import late
    from matches.heartbeats import worker_name

    botversion_validate(version_id=version_id,
                        worker=worker_name(self.request.hostname or "inline"))  # fmt: skip
