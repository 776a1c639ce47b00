"""A real Celery worker process, a real Redis broker and the test database (not eager mode)."""

import gc
import socket
import time

import pytest
from celery import signals

from ops.models import Heartbeat
from ops.services import heartbeat_send
from tests.platform.workers import StartWorker

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_worker_answers_a_heartbeat_sent_through_redis(start_worker: StartWorker) -> None:
    worker = start_worker("w1")
    heartbeat = heartbeat_send()
    deadline = time.monotonic() + 60
    while heartbeat.answered_at is None:
        worker.assert_alive()
        assert time.monotonic() < deadline, f"no answer in 60 s:\n{worker.log.read_text()}"
        time.sleep(0.1)
        heartbeat.refresh_from_db()
    assert heartbeat.answered_by.startswith("w1-itest-")
    assert heartbeat.answered_by.endswith(f"@{socket.gethostname()}")
    assert Heartbeat.objects.filter(answered_at__isnull=True).count() == 0
    worker.assert_alive()


@pytest.mark.parametrize("signal", ["worker_process_init", "worker_ready"])
def test_a_worker_leaves_its_start_up_objects_out_of_garbage_collections(signal: str) -> None:
    """A process that plays matches (each child of a prefork pool, or a solo pool's main
    process) freezes the objects of its start: a full collection no longer walks them
    (arena.celery; 30-60 ms of CPU about every ten matches before)."""
    gc.unfreeze()
    try:
        getattr(signals, signal).send(sender=None)
        assert gc.get_freeze_count() > 10_000
    finally:
        gc.unfreeze()
