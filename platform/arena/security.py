"""Security headers and a small request-rate limiter shared by the pages and the API.

The Content-Security-Policy allows scripts only from the site itself: every script is a static
file (no inline ``<script>`` or ``on...=`` attribute in the templates), so an injected script
tag cannot run. Styles may be inline (htmx adds some; the rating plots colour their swatches).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from ipaddress import ip_address

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse

from arena.env import IPNetwork


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


def login_refused(*, username: str) -> bool:
    """Whether log-ins (pages and API tokens) as ``username`` are refused for now: it had
    ``ARENA_LOGINS_PER_NAME_PER_HOUR`` failed attempts this hour, from whatever addresses. The
    refusal comes before the password is checked, so guessing goes no further."""
    per_hour: int = settings.ARENA_LOGINS_PER_NAME_PER_HOUR
    if per_hour <= 0:
        return False
    return (cache.get(_login_key(username)) or 0) >= per_hour


def login_failed(*, username: str) -> None:
    """Count a failed log-in as ``username`` (see :func:`login_refused`)."""
    key = _login_key(username)
    cache.add(key, 0, timeout=3600)
    try:
        cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=3600)


def _login_key(username: str) -> str:
    window = int(time.time() // 3600)
    return f"ratelimit:login-name:{username.strip().casefold()[:150]}:{window}"


def client_address(request: HttpRequest) -> str:
    """The address a request came from, for rate limits: the connection's own address, unless
    ``ARENA_TRUSTED_PROXIES`` says proxies in front append theirs to ``X-Forwarded-For``. The
    header is read from the right, and only as far as trusted proxies wrote it: whatever the
    client put there itself lies further left and is never believed."""
    remote = str(request.META.get("REMOTE_ADDR", ""))
    trusted = settings.ARENA_TRUSTED_PROXIES
    if not trusted:
        return remote
    header = str(request.META.get("HTTP_X_FORWARDED_FOR", ""))
    forwarded = [a.strip() for a in header.split(",")]
    hops = [a for a in forwarded if a] + [remote]  # nearest last
    if isinstance(trusted, int):  # the last ``trusted`` hops are our proxies
        return hops[max(0, len(hops) - 1 - trusted)]
    for hop in reversed(hops):  # skip our proxies from the nearest; the first other is the client
        if not _in_networks(hop, trusted):
            return hop
    return hops[0]


def _in_networks(address: str, networks: tuple[IPNetwork, ...]) -> bool:
    try:
        ip = ip_address(address)
    except ValueError:  # not an address: never one of our proxies
        return False
    return any(ip in network for network in networks)
