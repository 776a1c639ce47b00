"""Security headers and a small request-rate limiter shared by the pages and the API.

The Content-Security-Policy allows scripts only from the site itself: every script is a static
file (no inline ``<script>`` or ``on...=`` attribute in the templates), so an injected script
tag cannot run. Styles may be inline (htmx adds some; the rating plots colour their swatches).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.setdefault("Content-Security-Policy", settings.ARENA_CONTENT_SECURITY_POLICY)
        return response


def over_limit(*, scope: str, key: str, per_hour: int) -> bool:
    """Count one request of ``key`` (a user or an address) in ``scope``; True once it is over
    ``per_hour`` requests in the current hour (0: no limit). Fixed hourly windows in Django's
    cache, so each process of a deployment counts on its own unless the cache is shared."""
    if per_hour <= 0:
        return False
    window = int(time.time() // 3600)
    name = f"ratelimit:{scope}:{key}:{window}"
    cache.add(name, 0, timeout=3600)
    try:
        return cache.incr(name) > per_hour
    except ValueError:  # the entry expired between add and incr: this is the first request
        cache.set(name, 1, timeout=3600)
        return False


def client_address(request: HttpRequest) -> str:
    return str(request.META.get("REMOTE_ADDR", ""))
