"""A few seconds of cache for the public pages anonymous visitors read (a "micro-cache").

Spectators mostly read the same few pages (a ladder, a running tournament, a famous replay);
rendering each view for each of them costs the CPU the workers' matches need. For
``settings.ARENA_PAGE_CACHE_SECONDS`` (0 turns it off) the first rendering of a public page is
served again to every anonymous visitor asking for the same URL in the same language.

A finished match's replay never changes: it is kept ten minutes (:data:`IMMUTABLE_PAGES`).

What may be cached is narrow on purpose:
- only ``GET``/``HEAD`` of the URL names in :data:`PUBLIC_PAGES`, whose content depends on the
  URL, the language and the visitor's identity only;
- only visitors without identity: no ``Authorization`` header and no cookie other than the
  language choice and the CSRF cookie (a session or a pending message bypasses the cache, so a
  signed-in author always sees their own upload at once);
- only ``200`` responses that set no cookie (a page that put a CSRF token in a form is never
  stored, since another visitor's token would not match its cookie).

The key holds the full path with its query, the language, and the ``Accept`` and ``HX-Request``
headers (the API's formats and the htmx partials differ by them).

A page is rendered again by one request at a time: the first request after a page's seconds
have passed takes a lock in the cache and renders it, and the requests that arrive meanwhile
get the previous copy (kept :data:`STALE_SECONDS` past its freshness for that). Without it,
every request for a page that arrived while it was being rendered rendered it too, and on a
busy machine the site's low CPU priority stretches a rendering to many times its CPU time
(a tournament page's 60 ms: docs/reliability.md, "Load").
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse

#: the URL names whose pages are the same for every anonymous visitor
PUBLIC_PAGES = frozenset({
    "home", "ladder", "rules", "doc", "bot", "tournaments", "tournament", "tournament_progress",
    "tournament_matches", "match", "match_replay",
    "api-games", "api-runtimes", "api-bots", "api-bot", "api-tournaments", "api-tournament",
    "api-matches", "api-match", "api-replay", "api-ladder", "api-ladder-history",
    "api-ladder-strengths", "api-fairness",
})  # fmt: skip
#: pages that never change once they answer 200: a finished match's replay (only finished
#: matches have one, and a finished match never runs again); kept longer
IMMUTABLE_PAGES = frozenset({"match_replay", "api-replay"})
IMMUTABLE_SECONDS = 600
#: how long a copy is kept past its freshness, to be served while one request renders it again
STALE_SECONDS = 30
#: the most a rendering holds its page's lock (one that dies does not block it longer)
RENDER_LOCK_SECONDS = 30


@dataclass(frozen=True)
class _Rendering:
    """A public page the request renders: stored under ``key``, fresh for ``seconds``;
    ``locked``: the request holds the page's lock (others serve the previous copy)."""

    key: str
    seconds: int
    locked: bool


class PublicPageCacheMiddleware:
    """Serve and store anonymous visitors' public pages (see the module's docstring). Sits after
    ``LocaleMiddleware`` (the language is part of the key)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        rendering: _Rendering | None = getattr(request, "_public_page", None)
        if rendering is not None:
            if _storable(response):
                fresh_until = time.time() + rendering.seconds
                cache.set(rendering.key, (response, fresh_until),
                          timeout=rendering.seconds + STALE_SECONDS)  # fmt: skip
            if rendering.locked:
                cache.delete(rendering_lock(rendering.key))
        return response

    def process_view(
        self, request: HttpRequest, view: Callable[..., Any], args: Any, kwargs: Any
    ) -> HttpResponse | None:
        page = _public_page(request)
        if page is None:
            return None
        key = _key(request)
        stored: tuple[HttpResponse, float] | None = cache.get(key)
        locked = False
        if isinstance(stored, tuple):  # (a response stored alone is an older release's)
            response, fresh_until = stored
            if time.time() < fresh_until:
                return response
            locked = cache.add(rendering_lock(key), 1, timeout=RENDER_LOCK_SECONDS)
            if not locked:  # another request renders it: serve the previous copy meanwhile
                return response
        immutable = page in IMMUTABLE_PAGES
        seconds = IMMUTABLE_SECONDS if immutable else settings.ARENA_PAGE_CACHE_SECONDS
        request._public_page = _Rendering(key, seconds, locked)  # type: ignore[attr-defined]
        return None


def _public_page(request: HttpRequest) -> str | None:
    """The URL name of the page if the cache may serve it to this request, else None."""
    match = request.resolver_match
    cacheable = (
        settings.ARENA_PAGE_CACHE_SECONDS > 0
        and request.method in ("GET", "HEAD")
        and match is not None
        and match.url_name in PUBLIC_PAGES
        and "Authorization" not in request.headers
        and set(request.COOKIES) <= {settings.LANGUAGE_COOKIE_NAME, settings.CSRF_COOKIE_NAME}
    )
    return match.url_name if cacheable and match is not None else None


def _key(request: HttpRequest) -> str:
    parts = "\n".join((
        request.method or "", request.get_full_path(), getattr(request, "LANGUAGE_CODE", ""),
        request.headers.get("Accept", ""), request.headers.get("HX-Request", ""),
    ))  # fmt: skip
    return "page:" + hashlib.sha256(parts.encode()).hexdigest()


def _storable(response: HttpResponse) -> bool:
    return response.status_code == 200 and not response.streaming and not response.cookies


def rendering_lock(key: str) -> str:
    """The cache key of the lock held by the request that renders the page stored at ``key``."""
    return f"{key}:rendering"
