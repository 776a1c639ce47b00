from django.utils import timezone

from arena.dispatch import send_on_commit
from ops.models import Heartbeat
from ops.tasks import ping


def heartbeat_send(*, queue: str | None = None) -> Heartbeat:
    """Create a heartbeat and enqueue its ping once the row is committed.

    ``queue`` overrides the task's route, e.g. to reach one particular worker.
    """
    heartbeat = Heartbeat.objects.create()
    if queue is None:
        send_on_commit(ping, heartbeat.pk)
    else:
        send_on_commit(ping, heartbeat.pk, queue=queue)
    return heartbeat


def heartbeat_answer(*, heartbeat_id: int, answered_by: str) -> bool:
    """Record the answer exactly once; False if it was already answered or does not exist."""
    updated = Heartbeat.objects.filter(pk=heartbeat_id, answered_at__isnull=True).update(
        answered_at=timezone.now(), answered_by=answered_by
    )
    return updated == 1
