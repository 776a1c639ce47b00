"""Reads for matches: the stored replay document."""

from __future__ import annotations

import json
import zlib
from typing import Any

from matches.models import MatchReplay


def match_replay(*, match_id: int) -> dict[str, Any]:
    """The match's replay JSON (docs/replay-format.md); ``MatchReplay.DoesNotExist`` if the
    match has not finished."""
    stored = MatchReplay.objects.get(match_id=match_id)
    document: dict[str, Any] = json.loads(zlib.decompress(bytes(stored.data)))
    return document
