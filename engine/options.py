"""What a game's rule options are, read from its ``Params`` dataclass: for listings (``arena
games``, the API's ``/api/games/``) that must never drift from what ``load_game`` accepts."""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_type_hints

from .registry import game_class

_TYPE_NAMES = {bool: "boolean", int: "integer", str: "string", float: "number"}
#: the rules pages of a source checkout (absent from a wheel: then options have no meaning text)
RULES_DIR = Path(__file__).resolve().parents[1] / "docs" / "rules"
_OPTIONS_HEADING = re.compile(
    r"^## .*Rule options.*$", re.MULTILINE
)  # also "규칙 옵션 (Rule options)"
_OPTION_ROW = re.compile(r"^\| `(\w+)` \|(.*)\|\s*$", re.MULTILINE)


@dataclass(frozen=True)
class OptionSpec:
    """One rule option: its JSON type, default, and the values ``parse_params`` accepts
    (``choices``, or an inclusive ``minimum``/``maximum``; all ``None`` when any value of the
    type is accepted, subject to the game's cross-option checks)."""

    name: str
    type: str
    default: Any
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True)
class GameSpec:
    name: str
    title: str
    min_seats: int
    max_seats: int
    default_seats: int
    options: tuple[OptionSpec, ...]


def describe_game(name: str) -> GameSpec:
    """The static facts and every rule option of game ``name`` (``InvalidParams`` if unknown)."""
    cls = game_class(name)
    hints = get_type_hints(cls.Params)
    options = []
    for f in dataclasses.fields(cls.Params):
        bounds = f.metadata.get("range")
        choices = f.metadata.get("choices")
        options.append(
            OptionSpec(
                name=f.name,
                type=_TYPE_NAMES.get(hints[f.name], str(hints[f.name])),
                default=f.default,
                choices=tuple(choices) if choices is not None else None,
                minimum=bounds[0] if bounds else None,
                maximum=bounds[1] if bounds else None,
            )
        )
    return GameSpec(
        name=cls.name,
        title=cls.title,
        min_seats=cls.min_players,
        max_seats=cls.max_players,
        default_seats=cls().num_players,
        options=tuple(options),
    )


@functools.cache
def option_meanings(game: str, rules_dir: Path = RULES_DIR, language: str = "en") -> dict[str, str]:
    """Each option's one-line meaning: the last column of the "Rule options" table of
    ``docs/rules/<game>.md`` (``<game>.ko.md`` for Korean; ``tests/engine/test_rules_docs.py``
    keeps both complete); empty where the rules pages are not installed."""
    name = f"{game}.{language}.md" if language != "en" else f"{game}.md"
    try:
        text = (rules_dir / name).read_text(encoding="utf-8")
    except OSError:
        return {}
    heading = _OPTIONS_HEADING.search(text)
    if heading is None:
        return {}
    section = text[heading.end() :].split("\n## ", 1)[0]
    return {m.group(1): m.group(2).split(" | ")[-1].strip() for m in _OPTION_ROW.finditer(section)}


#: short rules for a validation smoke match (``arena validate``, the platform's upload check):
#: with duplicate play the bot plays every seat once
SMOKE_PARAMS: dict[str, dict[str, Any]] = {
    "belote": {"target": 300},
    "bauer": {"start_points": 3},
    "barbu": {"mode": "base"},
    "badugi": {"hands": 12},
}


def parse_option_words(raw: list[str]) -> dict[str, Any]:
    """``["mode=geronimo", "doubling=true"]`` -> rule options: JSON values, else the bare word;
    ``ValueError`` carrying the item for one without ``=``."""
    params: dict[str, Any] = {}
    for item in raw:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(item)
        try:
            params[key] = json.loads(value)
        except json.JSONDecodeError:
            params[key] = value
    return params
