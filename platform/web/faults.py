"""Bot faults in plain words: what each verdict means and how an author fixes it."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class FaultHelp:
    title: Promise
    advice: Promise


FAULT_HELP: dict[str, FaultHelp] = {
    "timeout": FaultHelp(
        _("Too slow"),
        _("The bot did not answer a decision within the time limit, or used up its time bank "
          "for the match. Answer every act message promptly, flush stdout after each line and "
          "keep heavy start-up work short."),
    ),
    "crash": FaultHelp(
        _("Crashed"),
        _("The program exited or was killed while the match was still going. Read its stderr "
          "below for the error, and keep reading stdin until it is closed."),
    ),
    "memory": FaultHelp(
        _("Out of memory"),
        _("The bot went over its memory limit. Use smaller tables and avoid loading large "
          "libraries or data at start-up."),
    ),
    "output_limit": FaultHelp(
        _("Too much output"),
        _("The bot wrote a line longer than allowed, or too much to stderr. Write one short JSON "
          "line per answer and keep debugging output small."),
    ),
    "protocol_error": FaultHelp(
        _("Protocol error"),
        _("The bot wrote something that is not a valid answer: not JSON, a wrong type, a wrong "
          "id, or anything before ready. Write exactly one JSON line per message, as the "
          "protocol page shows."),
    ),
    "illegal_action": FaultHelp(
        _("Illegal move"),
        _("The bot answered with an action that was not among the legal ones it was sent. Always "
          "choose one of the strings in the legal list, copied exactly."),
    ),
}


def fault_help(verdict: str) -> FaultHelp | None:
    return FAULT_HELP.get(verdict)
