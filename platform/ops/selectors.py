"""Health: liveness (the process answers) and readiness (what it depends on answers).

Readiness probes the database, the broker and the cache separately, at once, each in a thread
of its own and none for longer than ``ARENA_HEALTH_TIMEOUT_S``: a part that hangs is reported
as timed out, and the check still answers. Only the database is required: with the cache or the
broker away the site serves on (``arena.cache``, ``arena.dispatch``), so their failure makes
the site ``degraded``, not unready. Reasons are short and name no host or user (the check is
public); the full error goes to the log. It also says which build of the engine the process
runs (``engine_build``; a worker logs its own as it starts).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TypedDict

from django.conf import settings
from django.core.cache import caches
from django.db import connection

import engine
from arena.cache import FallbackRedisCache

logger = logging.getLogger(__name__)


class Check(TypedDict):
    ok: bool
    detail: str  # what answered, or why it did not


class EngineBuild(TypedDict):
    build: str  # "compiled" (mypyc's C extensions, setup.py) or "python" (the sources)


class Readiness(TypedDict):
    status: str  # "ok", "degraded" (cache or broker away) or "failed" (the database is)
    execution: str
    engine: EngineBuild
    database: Check
    broker: Check
    cache: Check


def engine_build() -> str:
    """Which build of the engine's rules this process runs: ``compiled`` or ``python``."""
    return "compiled" if engine.compiled() else "python"


def health_live() -> dict[str, str]:
    """The process answers; nothing else is asked."""
    return {"status": "ok"}


def health_ready() -> Readiness:
    """Probe the database, the broker and the cache (see the module's docstring)."""
    timeout_s: float = settings.ARENA_HEALTH_TIMEOUT_S
    probes: dict[str, Callable[[], str]] = {
        "database": _database, "broker": _broker, "cache": _cache,
    }  # fmt: skip
    pool = ThreadPoolExecutor(max_workers=len(probes), thread_name_prefix="health")
    futures = {name: pool.submit(probe) for name, probe in probes.items()}
    checks: dict[str, Check] = {}
    for name, future in futures.items():  # they run together: one wait bounds them all
        try:
            checks[name] = {"ok": True, "detail": future.result(timeout=timeout_s)}
        except FutureTimeout:
            checks[name] = {"ok": False, "detail": f"no answer within {timeout_s:g} s"}
            logger.warning("health: the %s did not answer within %g s", name, timeout_s)
        except Exception as error:
            checks[name] = {"ok": False, "detail": f"unreachable ({type(error).__name__})"}
            logger.warning("health: the %s is unreachable: %s", name, error)
    pool.shutdown(wait=False)  # a probe still hanging ends with its own socket timeout
    if not checks["database"]["ok"]:
        status = "failed"
    elif checks["broker"]["ok"] and checks["cache"]["ok"]:
        status = "ok"
    else:
        status = "degraded"
    return {
        "status": status, "execution": settings.ARENA_EXECUTION,
        "engine": {"build": engine_build()},
        "database": checks["database"], "broker": checks["broker"], "cache": checks["cache"],
    }  # fmt: skip


def _database() -> str:
    """``SELECT 1`` on a connection of the probe's own thread, closed after."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return connection.vendor
    finally:
        connection.close()


def _broker() -> str:
    if settings.ARENA_EXECUTION == "inline":
        return "not used: tasks run in the web process"
    from arena.celery import app

    with app.connection_for_write() as broker:
        broker.ensure_connection(max_retries=1, interval_start=0, interval_step=0)
        return str(broker.transport_cls)


def _cache() -> str:
    cache = caches["default"]
    if not isinstance(cache, FallbackRedisCache):
        return "per process (no ARENA_CACHE_URL)"
    cache.ping()
    return "redis"
