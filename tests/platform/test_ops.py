"""The heartbeat round trip with in-process execution, and the Celery task policy."""

import socket
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from pytest_django import DjangoCaptureOnCommitCallbacks, Settings

from arena.celery import app
from ops.models import Heartbeat
from ops.services import heartbeat_answer, heartbeat_send


@pytest.mark.django_db(transaction=True)
def test_ping_worker_command_round_trip_inline() -> None:
    out = StringIO()
    call_command("ping_worker", "--timeout", "5", stdout=out)
    heartbeat = Heartbeat.objects.get()
    assert heartbeat.answered_at is not None
    assert heartbeat.answered_by == socket.gethostname()
    assert out.getvalue().startswith(f"heartbeat {heartbeat.pk} answered by ")


@pytest.mark.django_db
def test_ping_is_enqueued_only_after_commit(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    with django_capture_on_commit_callbacks() as callbacks:
        heartbeat = heartbeat_send()
    assert len(callbacks) == 1
    heartbeat.refresh_from_db()
    assert heartbeat.answered_at is None
    callbacks[0]()
    heartbeat.refresh_from_db()
    assert heartbeat.answered_at is not None


@pytest.mark.django_db
def test_a_heartbeat_is_answered_once() -> None:
    heartbeat = Heartbeat.objects.create()
    assert heartbeat_answer(heartbeat_id=heartbeat.pk, answered_by="w1@host")
    assert not heartbeat_answer(heartbeat_id=heartbeat.pk, answered_by="w2@host")
    assert not heartbeat_answer(heartbeat_id=heartbeat.pk + 1, answered_by="w1@host")
    heartbeat.refresh_from_db()
    assert heartbeat.answered_by == "w1@host"


def test_task_policy() -> None:
    conf = app.conf
    assert (conf.task_serializer, conf.accept_content) == ("json", ["json"])
    assert conf.task_acks_late and conf.worker_prefetch_multiplier == 1
    assert conf.task_soft_time_limit < conf.task_time_limit
    assert conf.broker_transport_options["visibility_timeout"] > conf.task_time_limit
    assert app.tasks["arena.ops.ping"].name == "arena.ops.ping"


@pytest.mark.parametrize(
    ("task", "queue"),
    [
        ("arena.ops.ping", "default"),
        ("arena.bots.validate", "validation"),  # never behind a long tournament
        ("arena.matches.run", "matches"),
        ("arena.matches.reap", "default"),
        ("arena.ratings.apply", "default"),
        ("arena.ratings.figures", "ratings"),  # seconds of CPU: never ahead of the reaper
        ("arena.matches.luck", "ratings"),  # the same
        ("arena.tournaments.schedule_ladders", "default"),
    ],
)
def test_task_routes(task: str, queue: str) -> None:
    assert app.amqp.router.route({}, task)["queue"].name == queue


@pytest.mark.django_db
def test_quickstart_admin_is_created_once(
    django_user_model: type[User], settings: Settings
) -> None:
    settings.DEBUG = True  # the test runner turns it off
    out = StringIO()
    call_command("quickstart_admin", stdout=out)
    call_command("quickstart_admin", stdout=out)
    assert out.getvalue().splitlines() == [
        "Created the quick-start superuser: admin / admin",
        "Admin user 'admin' exists (its password is left as it is)",  # no password shown
    ]
    admin = django_user_model.objects.get()
    assert admin.is_superuser and admin.check_password("admin")


@pytest.mark.django_db
def test_quickstart_admin_refuses_with_debug_off(settings: Settings) -> None:
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG off"):
        call_command("quickstart_admin")


def test_the_quick_start_says_the_port_is_taken_before_installing_anything() -> None:
    import socket
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        done = subprocess.run(
            ["bash", str(root / "scripts" / "run.sh")],
            capture_output=True, text=True, timeout=60,
            env={"PATH": "/usr/local/bin:/usr/bin:/bin", "ARENA_ADDRESS": address},
        )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: {address} is already in use")
    assert "installing" not in done.stdout  # refused before the slow part
