"""Small template filters for the pages."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Any, Protocol, TypeVar

from django import template
from django.template.defaultfilters import floatformat
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from web.games import GAMES

register = template.Library()
_NAMES = {g.key: g.name for g in GAMES}


@register.filter
def game_name(key: str) -> str:
    """The game's name in the active language."""
    return str(_NAMES.get(key, key))


class _Seat(Protocol):
    @property
    def bot_id(self) -> int: ...


_S = TypeVar("_S", bound=_Seat)


@register.filter
def entrants(seats: Iterable[_S]) -> list[_S]:
    """One seat per bot: in team games a bot holds both seats of its side (``MatchSeat`` or
    ``matches.selectors.SeatLine``)."""
    seen: set[int] = set()
    unique = []
    for seat in seats:
        if seat.bot_id not in seen:
            seen.add(seat.bot_id)
            unique.append(seat)
    return unique


_STATUS = {
    "pending": _("waiting for validation"),
    "validating": _("being validated"),
    "active": _("active"),
    "rejected": _("rejected"),
    "queued": _("queued"),
    "running": _("running"),
    "finished": _("finished"),
    "error": _("platform error"),
    "cancelled": _("cancelled"),
}


@register.filter
def version_status(status: str) -> str:
    """A version's, match's or tournament's status in words of the active language."""
    return str(_STATUS.get(status, status))


@register.filter
def signed(value: float) -> str:
    """A number with its sign always shown and one decimal at most: "+40", "-3.5", "0"."""
    text = str(floatformat(value, -1))
    return f"+{text}" if value > 0 and text.strip("0.,") else text


@register.filter
def get_item(mapping: Mapping[str, Any], key: str) -> Any:
    return mapping.get(key)


@register.filter
def duration(value: timedelta) -> str:
    """A rough duration in words: minutes under two hours, else hours."""
    minutes = max(1, round(value.total_seconds() / 60))
    if minutes < 120:
        return ngettext("%(n)d minute", "%(n)d minutes", minutes) % {"n": minutes}
    hours = round(minutes / 60)
    return ngettext("%(n)d hour", "%(n)d hours", hours) % {"n": hours}


_NO_MEETING = '<td class="num">–</td>'


@register.filter
def cross_cells(cells: Iterable[tuple[float, int] | None]) -> SafeString:
    """One cross-table row's cells: points taken (one decimal at most) over meetings, or a dash.

    Built here rather than from template nodes: a 64-bot tournament has 4,096 cells, and the
    template loop took most of the page's server time."""
    return mark_safe("".join(  # noqa: S308  # only numbers and fixed markup
        _NO_MEETING if cell is None
        else f'<td class="num">{cell[0]:.1f}'.removesuffix(".0")
        + f'<span class="muted">/{int(cell[1])}</span></td>'
        for cell in cells
    ))  # fmt: skip
