"""Read-only lists and dicts: the parts that observations share instead of copying.

An observation is handed to in-process agents as is and serialised for sandboxed bots. Its
top-level dict is new at every call; every value in it is either new as well (small counters
such as ``hand_sizes``) or immutable: a scalar, or a :class:`FrozenList` / :class:`FrozenDict`
that the state replaces (never changes) when the game moves on. So the completed tricks, the
bidding history or the cached hand text can be shared by every observation that contains them,
and no agent or runner can change what another observation, or the state, holds.

They subclass ``list`` and ``dict`` so that everything reading an observation keeps working:
``==`` against plain lists and dicts, ``isinstance``, ``json.dumps``, slicing (which returns a
plain, mutable list), ``list(x)`` / ``dict(x)`` for a private copy. Every mutating method raises
``TypeError``. (Python cannot stop a caller determined to write through ``list.append(x, ...)``;
the guarantee is against mistakes, not malice: sandboxed bots only ever see a JSON copy.)

They must hold immutable values only (str, int, None, other frozen containers): copying one
returns the same object, which is what lets ``State.clone`` share them.
"""

from __future__ import annotations

from typing import Any, NoReturn, TypeVar

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(
        f"this {type(self).__name__} is read-only (observations share it): copy it with "
        f"list(x) or dict(x) to change it"
    )


class FrozenList(list[T]):
    """A list that refuses every change."""

    __slots__ = ()

    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __copy__(self) -> FrozenList[T]:
        return self

    def __deepcopy__(self, memo: object) -> FrozenList[T]:
        return self

    def __reduce__(self) -> tuple[type[FrozenList[T]], tuple[list[T]]]:
        return FrozenList, (list(self),)


class FrozenDict(dict[K, V]):
    """A dict that refuses every change."""

    __slots__ = ()

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> FrozenDict[K, V]:
        return self

    def __deepcopy__(self, memo: object) -> FrozenDict[K, V]:
        return self

    def __reduce__(self) -> tuple[type[FrozenDict[K, V]], tuple[dict[K, V]]]:
        return FrozenDict, (dict(self),)


#: the shared empty list (``legal`` of a seat not to act, an empty trick, no bids yet)
EMPTY: FrozenList[Any] = FrozenList()
