"""Request bodies are capped before they are read: an upload's (a bot's file and its form) at
the largest bot upload, any other at ``DATA_UPLOAD_MAX_MEMORY_SIZE``. A body whose declared
length is over its cap is answered 413 at once, without reading a byte of it; one sent in chunks
(no length declared) is cut off with a 413 as soon as it passes the cap. The page upload form
used to read a 300 MiB body whole before refusing it.

Under gunicorn (``arena.asgi``) the event loop reads each body, capped, before a thread runs the
view (:class:`BufferedBodyApp`); under ``runserver`` and the test client
:class:`BodyLimitMiddleware` checks the declared length before the view reads the body. The
reverse proxy caps the largest size as well (deploy/nginx.conf).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from tempfile import SpooledTemporaryFile
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve

from api.errors import error_body
from api.uploads import FORM_OVERHEAD_BYTES, TOO_LARGE
from bots.services import MAX_UPLOAD_BYTES

#: the views that take a bot's file (pages and API), by URL name
UPLOAD_VIEWS = frozenset({"bot_new", "bot_upload", "api-bots", "api-versions"})
BODY_CHUNK_BYTES = 64 * 1024  # a buffered body is handed on in pieces of this size

Scope = dict[str, Any]
Message = Mapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[..., Awaitable[None]]  # servers and frameworks type scopes each their own way


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


class BufferedBodyApp:
    """The ASGI application ``app``, given each request only once its body has arrived whole
    (the event loop reads it; a slow client holds a socket, never one of ``app``'s threads) and
    refused with 413 once the body passes its cap. A chunked body reaches ``app`` with its
    length declared, as a WSGI application needs."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or []) if scope["type"] == "http" else {}
        length = declared_length(headers.get(b"content-length", b"").decode("latin-1"))
        if not length and b"transfer-encoding" not in headers:  # no body (most requests)
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        limit = body_limit(path)
        if limit is not None and length is not None and length > limit.bytes:
            await self.refuse(send, path, limit)
            return
        with SpooledTemporaryFile(max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE) as body:
            size = 0
            more = True
            while more:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return  # the client left before it had sent its request
                chunk = message.get("body", b"")
                size += len(chunk)
                if limit is not None and size > limit.bytes:
                    await self.refuse(send, path, limit)
                    return
                body.write(chunk)
                more = message.get("more_body", False)
            body.seek(0)
            whole = {k: v for k, v in headers.items() if k != b"transfer-encoding"}
            whole[b"content-length"] = str(size).encode()

            handed = False

            async def replay() -> Message:
                """The buffered body in pieces, then whatever the client does next."""
                nonlocal handed
                if handed:
                    return await receive()
                chunk = body.read(BODY_CHUNK_BYTES)
                handed = body.tell() >= size
                return {"type": "http.request", "body": chunk, "more_body": not handed}

            await self.app({**scope, "headers": list(whole.items())}, replay, send)

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
