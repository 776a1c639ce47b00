"""Request bodies are capped before they are read: an upload's (a bot's file and its form) at
the largest bot upload, any other at ``DATA_UPLOAD_MAX_MEMORY_SIZE``. A body whose declared
length is over its cap is answered 413 at once, without reading a byte of it; one sent in chunks
(no length declared) is cut off with a 413 as soon as it passes the cap. The page upload form
used to read a 300 MiB body whole before refusing it.

Under ASGI (gunicorn, ``arena.asgi``) Django reads the whole body before any middleware runs, so
the check wraps the ASGI application (:class:`BodyLimitApp`); under WSGI (``runserver``, the
test client) the body is read on demand and :class:`BodyLimitMiddleware` checks the declared
length first. The reverse proxy caps the largest size as well (deploy/nginx.conf).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve

from api.errors import error_body
from api.uploads import FORM_OVERHEAD_BYTES, TOO_LARGE
from bots.services import MAX_UPLOAD_BYTES

#: the views that take a bot's file (pages and API), by URL name
UPLOAD_VIEWS = frozenset({"bot_new", "bot_upload", "api-bots", "api-versions"})

Scope = dict[str, Any]
Message = Mapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True)
class Limit:
    bytes: int
    message: str  # what a refused request is told


def body_limit(path: str) -> Limit | None:
    """The most a request body to ``path`` may have (None: no limit)."""
    try:
        name = resolve(path).url_name
    except Resolver404:
        name = None
    if name in UPLOAD_VIEWS:
        return Limit(MAX_UPLOAD_BYTES + FORM_OVERHEAD_BYTES, TOO_LARGE)
    size: int | None = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    if size is None:
        return None
    return Limit(size, f"the request body is larger than {size:,} bytes")


def too_large(path: str, limit: Limit) -> tuple[str, bytes]:
    """The 413's content type and body: the API's error envelope, or a sentence for pages."""
    if path.startswith("/api/"):
        return "application/json", json.dumps(error_body("too_large", limit.message)).encode()
    return "text/plain; charset=utf-8", f"{limit.message}.\n".encode()


def declared_length(value: str | None) -> int | None:
    """A Content-Length's value, None if absent or not a number (Django refuses that itself)."""
    return int(value) if value and value.strip().isdigit() else None


class BodyLimitMiddleware:
    """The declared length, checked before the view reads the body (WSGI)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = body_limit(request.path_info)
        length = declared_length(request.META.get("CONTENT_LENGTH"))
        if limit is not None and length is not None and length > limit.bytes:
            content_type, body = too_large(request.path_info, limit)
            return HttpResponse(body, status=413, content_type=content_type)
        return self.get_response(request)


class BodyLimitApp:
    """The ASGI application ``app`` with request bodies capped before Django reads them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        limit = body_limit(path)
        if limit is None:
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = declared_length(headers.get(b"content-length", b"").decode("latin-1"))
        if length is not None and length > limit.bytes:
            await self.refuse(send, path, limit)
            return
        received = 0
        over = False

        async def capped_receive() -> Message:
            nonlocal received, over
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit.bytes:
                    over = True  # Django stops reading and answers nothing: we do
                    return {"type": "http.disconnect"}
            return message

        await self.app(scope, capped_receive, send)
        if over:
            await self.refuse(send, path, limit)

    @staticmethod
    async def refuse(send: Send, path: str, limit: Limit) -> None:
        content_type, body = too_large(path, limit)
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", content_type.encode()),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
