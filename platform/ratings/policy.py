"""Which matches are rated: decided here, once, when a match is created.

A match moves ratings only when the game's ladder scheduled it, or when staff marked its
tournament official, and in both cases only under the ladder's own fixed rules (its params and
whether deals are duplicated). Everything an author starts (their own tournaments, challenges)
is unrated, and so is any match with other rules. The decision is stored as the match's
``ladder`` (empty: unrated); every standing reads rated matches only (``ratings.selectors``).
"""

from __future__ import annotations

from typing import Any

from matches import formats
from matches.models import MatchOrigin
from ratings.models import Ladder
from ratings.services import ladder_for_game


def rating_ladder(
    *, game: str, params: dict[str, Any] | None, duplicate: bool, origin: str, official: bool
) -> Ladder | None:
    """The ladder that rates a match made with these settings, or ``None``: unrated."""
    counts = origin == MatchOrigin.LADDER or (origin == MatchOrigin.TOURNAMENT and official)
    if not counts:
        return None
    ladder = ladder_for_game(game=game)
    return ladder if under_ladder_rules(ladder, params, duplicate) else None


def under_ladder_rules(ladder: Ladder, params: dict[str, Any] | None, duplicate: bool) -> bool:
    """Whether ``params`` (with defaults filled in) and ``duplicate`` are the ladder's own."""
    own = formats.load(ladder.game, ladder.params).params_dict()
    return duplicate == ladder.duplicate and formats.load(ladder.game, params).params_dict() == own
