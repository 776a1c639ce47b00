"""The ``arena`` command's language: Korean when the environment asks for it, else English.

The language is chosen once per process, when this module is imported, the way gettext always
does it: the first of ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set decides
(``LANGUAGE`` may list several, ``fr:ko``). ``ko``, ``ko_KR.UTF-8`` and the like find the
catalogue ``locale/ko/LC_MESSAGES/arena.mo`` beside this file; anything else, or a missing
catalogue, leaves the English text as it is written in the source.

Only words for people pass through :func:`_`. Action strings, JSON, verdicts (``timeout``,
``crash``), option names and file names are data and read the same in every language.
``scripts/check_translations.sh`` re-extracts the marked strings, and argparse's own, into
``arena.po`` and compiles ``arena.mo``.
"""

from __future__ import annotations

import gettext
import unicodedata
from collections.abc import Sequence
from pathlib import Path

DOMAIN = "arena"
LOCALE_DIR = Path(__file__).with_name("locale")

_translation = gettext.translation(DOMAIN, LOCALE_DIR, fallback=True)
_ = _translation.gettext
#: the language chosen, ``ko`` or ``en``: the client asks the server for its messages in it
LANGUAGE: str = _translation.info().get("language", "en")


def translate_argparse() -> None:
    """Let argparse's own words ("usage:", "options", "error:") come from this catalogue too.

    argparse translates them through the process's global gettext domain, so a program that
    wants them translated names its domain there (Python's argparse how-to, "How to translate
    the argparse output"); ``arena.po`` holds argparse's messages beside the command's.
    """
    gettext.bindtextdomain(DOMAIN, str(LOCALE_DIR))
    gettext.textdomain(DOMAIN)


def columns(text: str) -> int:
    """How many terminal columns ``text`` takes: Hangul (and other wide characters) take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def pad(text: str, width: int, align: str = "<") -> str:
    """``text`` filled with spaces to ``width`` columns, left (``<``) or right (``>``) aligned;
    unlike ``str.ljust`` it counts a Hangul syllable as the two columns it takes."""
    fill = " " * max(0, width - columns(text))
    return fill + text if align == ">" else text + fill


def table(
    headings: Sequence[tuple[str, str, int]], rows: Sequence[Sequence[str]], *, rule: bool = False
) -> list[str]:
    """The lines of a table. ``headings`` are (text, ``<`` or ``>``, least width); a column is
    as wide as its widest cell in terminal columns, so translated headings line up too; columns
    are two spaces apart, and ``rule`` underlines the headings with dashes."""
    widths = [
        max(least, columns(text), *(columns(row[c]) for row in rows))
        for c, (text, _align, least) in enumerate(headings)
    ]

    def line(cells: Sequence[str]) -> str:
        padded = (
            pad(cell, width, align)
            for cell, width, (_text, align, _least) in zip(cells, widths, headings, strict=True)
        )
        return "  ".join(padded).rstrip()

    head = line([text for text, _align, _least in headings])
    return [head, *(["-" * columns(head)] if rule else []), *(line(row) for row in rows)]
