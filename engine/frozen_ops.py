"""Operations on the frozen containers of :mod:`engine.frozen`, compiled with the rules.

:mod:`engine.frozen` itself stays Python (see ``setup.py``); the rules call these at every
trick, bid or Domino move, so they live in a module the compiled engine builds natively.
"""

from __future__ import annotations

from typing import TypeVar

from .frozen import FrozenList

T = TypeVar("T")


def appended(items: FrozenList[T], item: T) -> FrozenList[T]:
    """A new frozen list: ``items`` followed by ``item`` (``items`` itself is unchanged)."""
    result = FrozenList(items)
    list.append(result, item)  # still private here: list's own append, past the refusal
    return result
