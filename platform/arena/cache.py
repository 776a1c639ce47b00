"""The shared cache (``ARENA_CACHE_URL``, Redis) as an optional part of the site.

Every cache user (the public page cache, rate limits, DRF's throttles, the ladder's computed
figures) goes through Django's cache, so this backend is the one place that decides what a
missing Redis means: each process falls back to a cache of its own in memory. Pages are then
rendered (and briefly kept) per process, rate limits count per process (a dead cache does not
switch throttling off), and no request fails because Redis is away.

A dead Redis costs milliseconds, not seconds: connecting and every command are bounded by the
``socket_connect_timeout`` and ``socket_timeout`` options (``ARENA_CACHE_TIMEOUT_S``), and
after a failure the process does not try Redis again for ``retry_s`` (``ARENA_CACHE_RETRY_S``).
The first request after that tries again; once Redis answers, it is used again. An outage is
logged when it starts and when it ends, not per request.

Each process keeps one Redis client per server, with its pool of connections, whichever
backend object uses it. Django makes a backend per thread, and under the served application
(``arena.asgi``) per request: a2wsgi runs each request in a copy of the event loop's context,
where Django keeps its cache backends. With a client of its own, each backend opened a new
connection to Redis on every request (a TCP connection and two ``CLIENT SETINFO`` round trips
before the first command), 0.4–0.7 ms of the web's CPU per request (docs/reliability.md,
"Load").
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import redis
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.utils.functional import cached_property
from redis.backoff import NoBackoff
from redis.retry import Retry

logger = logging.getLogger(__name__)

#: entries each process keeps while the shared cache is away (LocMemCache culls beyond it)
FALLBACK_MAX_ENTRIES = 1000
#: one attempt per command (no retries with backoff): the fallback is the retry
ONE_ATTEMPT = Retry(NoBackoff(), 0)


class Outage:
    """Whether one Redis server is taken for down in this process. Shared by the process's
    threads (Django makes a cache backend per thread), so an outage is noticed and logged once."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.down = False
        self.retry_at = 0.0  # monotonic time before which the server is not tried again
        self._lock = threading.Lock()

    def skipping(self) -> bool:
        """Whether to go straight to the fallback (down, and not yet time to try again)."""
        return self.down and time.monotonic() < self.retry_at

    def failed(self, error: Exception, retry_s: float) -> None:
        with self._lock:
            self.retry_at = time.monotonic() + retry_s
            if not self.down:
                self.down = True
                logger.warning(
                    "the cache at %s cannot be reached (%s): each process caches on its own and "
                    "rate limits count per process until it is back",
                    self.label, error,
                )  # fmt: skip

    def answered(self) -> None:
        if self.down:
            with self._lock:
                if self.down:
                    self.down = False
                    logger.warning("the cache at %s is back", self.label)


_outages: dict[str, Outage] = {}
_clients: dict[str, RedisCacheClient] = {}
_lock = threading.Lock()


def outage_of(location: str) -> Outage:
    """The process's one :class:`Outage` for the server at ``location``."""
    with _lock:
        if location not in _outages:
            _outages[location] = Outage(_label(location))
        return _outages[location]


def _label(location: str) -> str:
    """``host:port/db`` of (the first) Redis URL, for logs (never its password)."""
    parts = urlsplit(location.split(",")[0])
    return f"{parts.hostname}:{parts.port or 6379}{parts.path}"


class FallbackRedisCache(RedisCache):
    """Django's Redis cache that serves from process memory while Redis cannot be reached.

    ``OPTIONS`` are the Redis client's (``socket_connect_timeout``, ``socket_timeout``) plus
    ``retry_s``: how long after a failure Redis is left alone. The client makes one attempt
    per command (no retries with backoff): the fallback is the retry."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        options = dict(params.get("OPTIONS", {}))
        self.retry_s = float(options.pop("retry_s", 5.0))
        options.setdefault("retry", ONE_ATTEMPT)
        super().__init__(server, {**params, "OPTIONS": options})
        self.outage = outage_of(server)
        local = {**params, "OPTIONS": {"MAX_ENTRIES": FALLBACK_MAX_ENTRIES}}
        self.fallback = LocMemCache(f"fallback:{server}", local)

    @cached_property
    def _cache(self) -> RedisCacheClient:
        """The process's client for this server and these options (see the module's
        docstring); its pool lends each command in progress a connection of its own."""
        servers, options = self._servers, self._options  # type: ignore[attr-defined]  # not in the stubs
        key = repr((servers, sorted(options.items())))
        with _lock:
            if key not in _clients:
                _clients[key] = RedisCacheClient(servers, **options)
            return _clients[key]

    def _either(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """``method`` of Redis, or of the fallback while Redis is away."""
        if not self.outage.skipping():
            try:
                result = getattr(super(), method)(*args, **kwargs)
            except redis.RedisError as error:
                self.outage.failed(error, self.retry_s)
            else:
                self.outage.answered()
                return result
        return getattr(self.fallback, method)(*args, **kwargs)

    def add(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("add", *args, **kwargs)

    def get(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("get", *args, **kwargs)

    def set(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("set", *args, **kwargs)

    def touch(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("touch", *args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("delete", *args, **kwargs)

    def get_many(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("get_many", *args, **kwargs)

    def has_key(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("has_key", *args, **kwargs)

    def incr(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("incr", *args, **kwargs)

    def set_many(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("set_many", *args, **kwargs)

    def delete_many(self, *args: Any, **kwargs: Any) -> Any:
        return self._either("delete_many", *args, **kwargs)

    def clear(self) -> Any:
        return self._either("clear")

    def ping(self) -> None:
        """Ask Redis itself (never the fallback) for a ``PING``; raises ``redis.RedisError``
        if it does not answer within the client's timeouts. For the readiness check."""
        self._cache.get_client(write=True).ping()
