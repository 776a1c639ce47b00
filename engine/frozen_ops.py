"""Operations on the frozen containers of :mod:`engine.frozen`, compiled with the rules.

:mod:`engine.frozen` itself stays Python (see ``setup.py``); the rules call these at every
trick, bid or Domino move, so they live in a module the compiled engine builds natively.

The rules' hot modules also take the frozen classes and the empty list from here, under
``Final`` names: compiled code reads a ``Final`` name of a compiled module as a C static, but
looks a name imported from a Python module up in the importing module's dict at every use (some
200 instructions, as much as building a short list).
"""

from __future__ import annotations

from typing import Any, Final, TypeVar

from . import frozen
from .frozen import FrozenDict, FrozenList

T = TypeVar("T")

#: :class:`~engine.frozen.FrozenList` and :class:`~engine.frozen.FrozenDict`, to call
frozen_list: Final = FrozenList
frozen_dict: Final = FrozenDict
#: :data:`engine.frozen.EMPTY`, the same object
EMPTY: Final[FrozenList[Any]] = frozen.EMPTY


def appended(items: FrozenList[T], item: T) -> FrozenList[T]:
    """A new frozen list: ``items`` followed by ``item`` (``items`` itself is unchanged)."""
    result: FrozenList[T] = frozen_list(items)
    list.append(result, item)  # still private here: list's own append, past the refusal
    return result
