"""Request parsers: JSON whose nesting Python's decoder cannot follow is a 400, not a 500."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, refusing a body nested too deep to decode (``RecursionError``: about
    a thousand levels) as malformed, like any other body that is not JSON."""

    def parse(self, stream: Any, media_type: str | None = None,
              parser_context: Mapping[str, Any] | None = None) -> Any:  # fmt: skip
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deep") from None
