"""The project's own Markdown documents (rules, protocol), rendered in the active language.

These files are ours (under ``docs/``), so their HTML is trusted; nothing a user typed ever goes
through here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import markdown
from django.conf import settings
from django.utils.safestring import SafeString, mark_safe

DOCS = Path(settings.BASE_DIR) / "docs"
#: ``docs/`` pages offered at ``/docs/<name>/`` besides the rules
DOC_PAGES = ("protocol", "platform", "replay-format")
_MD_LINK = re.compile(r'href="(?:\.\./)?(?:rules/)?([a-z-]+)(?:\.ko)?\.md(#[^"]*)?"')


@dataclass(frozen=True)
class Document:
    title: str
    html: SafeString
    language: str  # the language the text is in (English when no translation exists)


def load(path_without_suffix: Path, language: str) -> Document:
    """``<path>.<language>.md`` if it exists, else ``<path>.md``."""
    translated = path_without_suffix.with_name(f"{path_without_suffix.name}.{language}.md")
    if language != "en" and translated.exists():
        return _render(translated, language, translated.stat().st_mtime_ns)
    english = path_without_suffix.with_name(f"{path_without_suffix.name}.md")
    return _render(english, "en", english.stat().st_mtime_ns)


@lru_cache(maxsize=32)
def _render(path: Path, language: str, _mtime: int) -> Document:
    text = path.read_text(encoding="utf-8")
    title = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), "")
    html = markdown.markdown(text, extensions=["tables", "fenced_code", "toc"])
    html = _MD_LINK.sub(lambda m: f'href="{_site_link(m.group(1))}{m.group(2) or ""}"', html)
    # a code block wider than a phone scrolls: keyboard users must be able to focus it to scroll
    html = html.replace("<pre>", '<pre tabindex="0">')
    return Document(title, mark_safe(html), language)  # our own docs, see above


def _site_link(name: str) -> str:
    """Links between the documents point at the site's pages instead of the .md files."""
    if name in ("belote", "bauer", "barbu", "badugi"):
        return f"/rules/{name}/"
    return f"/docs/{name}/"
