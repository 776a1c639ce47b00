"""Bot uploads: multipart bodies capped while they stream in.

A body whose declared length is over the cap is refused before a byte is read; otherwise the
file goes to a temporary file (deleted when the request ends) and the upload stops as soon as it
passes the cap. The service checks the size again as it reads the chunks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.files.uploadhandler import TemporaryFileUploadHandler
from django.http import HttpRequest
from rest_framework.exceptions import ParseError
from rest_framework.parsers import DataAndFiles, MultiPartParser

from api.errors import UploadTooLarge
from bots.services import MAX_UPLOAD_BYTES

FORM_OVERHEAD_BYTES = 64 * 1024  # the other fields and the multipart boundaries
TOO_LARGE = f"the upload is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MiB"


class CappedUploadHandler(TemporaryFileUploadHandler):
    def __init__(self, request: HttpRequest | None = None) -> None:
        super().__init__(request)
        self.received = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        self.received += len(raw_data)
        if self.received > MAX_UPLOAD_BYTES:
            raise UploadTooLarge(TOO_LARGE)
        return super().receive_data_chunk(raw_data, start)


class CappedMultiPartParser(MultiPartParser):
    def parse(
        self,
        stream: Any,
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> DataAndFiles[Any, Any]:
        assert parser_context is not None
        request = parser_context["request"]
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            raise ParseError("malformed Content-Length") from None
        if length > MAX_UPLOAD_BYTES + FORM_OVERHEAD_BYTES:
            raise UploadTooLarge(TOO_LARGE)
        request.upload_handlers = [CappedUploadHandler(request._request)]
        return super().parse(stream, media_type, parser_context)
