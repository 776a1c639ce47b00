import time

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ops.services import heartbeat_send


class Command(BaseCommand):
    help = "Send a heartbeat through the task queue and wait until a worker has answered it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--timeout", type=float, default=30.0, help="seconds to wait")
        parser.add_argument("--queue", help="send to this queue instead of the task's route")

    def handle(self, *args: object, timeout: float, queue: str | None, **options: object) -> None:
        start = time.monotonic()
        heartbeat = heartbeat_send(queue=queue)
        while time.monotonic() - start < timeout:
            heartbeat.refresh_from_db()
            if heartbeat.answered_at is not None:
                elapsed_ms = (time.monotonic() - start) * 1000
                self.stdout.write(
                    f"{heartbeat} answered by {heartbeat.answered_by} in {elapsed_ms:.0f} ms"
                )
                return
            time.sleep(0.1)
        raise CommandError(
            f"{heartbeat} was not answered within {timeout:g} s: is a worker running?"
        )
