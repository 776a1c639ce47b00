"""Strict parsing of rule options into keyword-only ``Params`` dataclasses.

Each game declares ``@dataclass(frozen=True, kw_only=True) class Params`` whose fields are the
options of docs/rules/<game>.md, "Rule options", with their defaults. A field may restrict its
values with ``field(default=..., metadata={"choices": (...)})`` or
``metadata={"range": (lo, hi)}``.
Cross-field rules go in the dataclass's ``validate()`` method, raising :class:`InvalidParams`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar, get_type_hints

from .errors import InvalidParams

P = TypeVar("P")


def parse_params(cls: type[P], values: dict[str, Any], *, game: str) -> P:
    """Build ``cls`` from ``values``, naming the parameter in every error."""
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    hints = get_type_hints(cls)
    for name, value in values.items():
        if name not in fields:
            known = ", ".join(sorted(fields)) or "none"
            raise InvalidParams(f"{game}: unknown parameter {name!r} (known: {known})")
        _check_value(game, name, value, hints[name], fields[name].metadata)
    params = cls(**values)
    validate = getattr(params, "validate", None)
    if validate is not None:
        validate()
    return params


def _check_value(game: str, name: str, value: Any, hint: Any, meta: Any) -> None:
    expected = hint if isinstance(hint, type) else None
    if expected is bool and not isinstance(value, bool):
        raise InvalidParams(f"{game}: parameter {name!r} must be true or false, got {value!r}")
    if expected is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise InvalidParams(f"{game}: parameter {name!r} must be an integer, got {value!r}")
    if expected is str and not isinstance(value, str):
        raise InvalidParams(f"{game}: parameter {name!r} must be a string, got {value!r}")
    choices = meta.get("choices")
    if choices is not None and value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise InvalidParams(f"{game}: parameter {name!r} must be one of {allowed}, got {value!r}")
    bounds = meta.get("range")
    if bounds is not None and not bounds[0] <= value <= bounds[1]:
        raise InvalidParams(
            f"{game}: parameter {name!r} must be between {bounds[0]} and {bounds[1]}, got {value!r}"
        )


def params_dict(params: Any) -> dict[str, Any]:
    """The JSON form of a params dataclass (every option, defaults included)."""
    return dataclasses.asdict(params)
