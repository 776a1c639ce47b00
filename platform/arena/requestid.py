"""A request id on every request: in each log line written while it is served, in the
``X-Request-ID`` response header, and in the error page or JSON of a 500, so that a user's
report ("request 3f2a…") finds its traceback in the logs.

A proxy in front may send its own id in ``X-Request-ID`` (nginx's ``$request_id``); it is kept
if it looks like one (letters, digits and ``-``, 8 to 64 of them), so the proxy's access log
and ours share it. Anything else is replaced by a fresh one.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar

from django.http import HttpRequest, HttpResponse

HEADER = "X-Request-ID"
_WELL_FORMED = re.compile(r"[A-Za-z0-9-]{8,64}")
#: the id of the request being served by this thread or task ("-" outside requests)
current: ContextVar[str] = ContextVar("request_id", default="-")


def request_id(request: HttpRequest) -> str:
    """The request's id (set by :class:`RequestIdMiddleware`; "-" if it did not run)."""
    return str(getattr(request, "request_id", "-"))


class RequestIdMiddleware:
    """Outermost: gives the request its id before anything else can fail."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        offered = request.headers.get(HEADER, "")
        rid = offered if _WELL_FORMED.fullmatch(offered) else uuid.uuid4().hex
        request.request_id = rid  # type: ignore[attr-defined]
        token = current.set(rid)
        try:
            response = self.get_response(request)
        finally:
            current.reset(token)
        response[HEADER] = rid
        return response


class RequestIdFilter(logging.Filter):
    """Gives every log record a ``request_id`` (for the formatter): the record's own request's
    (Django's ``django.request`` records carry the request) or the one being served."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        record.request_id = getattr(request, "request_id", None) or current.get()
        return True
