from __future__ import annotations

from celery import Task, shared_task


@shared_task(bind=True, name="arena.ops.ping")
def ping(self: Task[[int], None], heartbeat_id: int) -> None:
    from ops.services import heartbeat_answer  # services enqueue this task: import late

    heartbeat_answer(heartbeat_id=heartbeat_id, answered_by=self.request.hostname or "")
