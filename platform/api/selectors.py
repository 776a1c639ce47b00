"""Reads for the API: a user's live tokens, and the games with every rule option explained."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Q, QuerySet
from django.utils import timezone

import engine
from api.models import ApiToken
from engine.options import describe_game, option_meanings

RULES_DIR = settings.BASE_DIR / "docs" / "rules"  # also where an installed engine has none


def tokens_live(*, user: User) -> QuerySet[ApiToken]:
    """The user's tokens that have not expired, newest first."""
    live = Q(token__expiry__isnull=True) | Q(token__expiry__gt=timezone.now())
    return ApiToken.objects.filter(live, token__user=user).select_related("token")


def games_describe() -> list[dict[str, Any]]:
    """Every game: name, title, seats, and each rule option's type, default, allowed values
    (``choices``, or ``minimum``/``maximum``) and meaning."""
    games = []
    for name in engine.available_games():
        spec = describe_game(name)
        meanings = option_meanings(name, RULES_DIR)
        options = []
        for option in spec.options:
            row = asdict(option)
            if option.type == "boolean":
                row["choices"] = [False, True]
            row["choices"] = list(row["choices"]) if row["choices"] is not None else None
            row["meaning"] = meanings.get(option.name, "")
            options.append(row)
        games.append({
            "name": spec.name,
            "title": spec.title,
            "seats": {"min": spec.min_seats, "max": spec.max_seats,
                      "default": spec.default_seats},
            "params": options,
        })  # fmt: skip
    return games
