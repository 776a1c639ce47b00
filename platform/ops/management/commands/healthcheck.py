"""``manage.py healthcheck``: ask the running site for its readiness (``/api/health/ready/``),
as a container probe. Healthy is a 200: the database answers; a cache or broker that is away
makes the site ``degraded`` (printed), not unhealthy, since it still serves without them.

A probe connects to 127.0.0.1, but Django answers only requests whose Host header is one of
``ALLOWED_HOSTS``; with a real host name there (``arena.example.org``) a bare request to
127.0.0.1 gets 400 and the container would never turn healthy. The probe therefore sends the
first allowed host name as its Host header.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser


def probe_host() -> str:
    """A Host header that ALLOWED_HOSTS accepts (``.example.org`` allows ``example.org``)."""
    for pattern in settings.ALLOWED_HOSTS:
        if pattern != "*":
            return pattern.lstrip(".")
    return "localhost"


class Command(BaseCommand):
    help = "Exit 0 if the site at --url answers its readiness check with status ok or degraded."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000/api/health/ready/")
        parser.add_argument("--timeout", type=float, default=5.0)

    def handle(self, *args: Any, **options: Any) -> None:
        request = urllib.request.Request(options["url"], headers={"Host": probe_host()})
        try:
            with urllib.request.urlopen(request, timeout=options["timeout"]) as response:
                body = json.loads(response.read())
        except urllib.error.HTTPError as err:
            raise CommandError(f"{options['url']} answered {err.code}") from None
        except (OSError, ValueError) as err:
            raise CommandError(f"{options['url']}: {err}") from None
        if body.get("status") not in ("ok", "degraded"):
            raise CommandError(f"{options['url']}: not healthy: {body}")
        self.stdout.write(f"{body['status']}: {json.dumps(body)}")
