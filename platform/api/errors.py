"""The API's one error envelope: every refused request is
``{"error": {"code", "message", "fields"?}}``.

``code`` is a stable word for programs (DRF's code, or the service's ``ApplicationError.code``),
``message`` a sentence for people, and ``fields`` maps input names to their messages. A service's
refusal is a 400, except the codes in :data:`STATUS_BY_CODE`.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from arena.errors import ApplicationError

STATUS_BY_CODE = {
    "not_finished": status.HTTP_409_CONFLICT,
    "not_running": status.HTTP_409_CONFLICT,
    "duplicate_name": status.HTTP_409_CONFLICT,
    "duplicate_version": status.HTTP_409_CONFLICT,
    "no_replay": status.HTTP_404_NOT_FOUND,
    "too_large": status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
    "rate_limited": status.HTTP_429_TOO_MANY_REQUESTS,
}


class UploadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"
    default_detail = "the upload is too large"


def error_body(code: str, message: str, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if fields:
        body["fields"] = fields
    return {"error": body}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ApplicationError):
        fields = {exc.field: [exc.message]} if exc.field else None
        return Response(
            error_body(exc.code, exc.message, fields),
            status=STATUS_BY_CODE.get(exc.code, status.HTTP_400_BAD_REQUEST),
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)  # keeps WWW-Authenticate, Retry-After
    if response is None or not isinstance(exc, exceptions.APIException):
        return response  # a bug of ours: a 500, logged by Django
    if isinstance(exc, exceptions.ValidationError):
        fields = _plain(exc.detail)
        if not isinstance(fields, dict):
            fields = {"non_field_errors": fields}
        response.data = error_body("invalid", _first_message(fields), fields)
    else:
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else exc.default_code
        response.data = error_body(str(code), _first_message(_plain(exc.detail)))
    return response


def _plain(detail: Any) -> Any:
    """DRF's ErrorDetail tree as plain JSON values."""
    if isinstance(detail, dict):
        return {str(k): _plain(v) for k, v in detail.items()}
    if isinstance(detail, list):
        return [_plain(v) for v in detail]
    return str(detail)


def _first_message(detail: Any, path: str = "") -> str:
    """One line naming where the first problem is, e.g. ``params: this field is required``."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            where = key if key != "non_field_errors" else ""
            return _first_message(value, f"{path}.{where}" if path and where else path or where)
        return "invalid input"
    if isinstance(detail, list):
        for value in detail:
            if value:
                return _first_message(value, path)
        return "invalid input"
    return f"{path}: {detail}" if path else str(detail)
