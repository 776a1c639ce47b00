"""The project's own Markdown documents (rules, protocol), rendered in the active language.

These files are ours (under ``docs/``), so their HTML is trusted; nothing a user typed ever goes
through here. Their links are written for the repository (``ranking.md``, ``rules/``,
``img/x.svg``) and rewritten here to the site's pages, so a link works in both places.
"""

from __future__ import annotations

import base64
import mimetypes
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlencode

import markdown
from django.conf import settings
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

DOCS = Path(settings.BASE_DIR) / "docs"
#: ``docs/`` pages offered at ``/docs/<name>/`` besides the rules
DOC_PAGES = ("protocol", "platform", "replay-format", "runtimes", "ranking")
_MD_LINK = re.compile(r'href="(?:\.\./)?(?:rules/)?([a-z-]+)(\.ko)?\.md(#[^"]*)?"')
#: the folder of the rules pages, which the site lists on its "write a bot" page
_RULES_FOLDER = re.compile(r'href="(?:\.\./)?rules/"')
#: an image beside the documents (``docs/img/``)
_IMAGE = re.compile(r'src="img/([\w.-]+)"')
#: an image alone in its paragraph: a figure
_FIGURE = re.compile(r"<p>(<img [^>]*>)</p>")


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
    name = path.name.split(".")[0]
    html = _MD_LINK.sub(lambda m: f'href="{_link(m, document=name, language=language)}"', html)
    html = _RULES_FOLDER.sub(f'href="{reverse("write_a_bot")}"', html)
    html = _IMAGE.sub(lambda m: f'src="{_data_url(DOCS / "img" / m.group(1))}"', html)
    # a code block, table or figure wider than a phone scrolls (not the page): keyboard users
    # must be able to focus it to scroll
    html = html.replace("<pre>", '<pre tabindex="0">')
    html = html.replace("<table>", '<div class="scroll" tabindex="0"><table>')
    html = html.replace("</table>", "</table></div>")
    html = _FIGURE.sub(r'<div class="scroll" tabindex="0">\1</div>', html)
    return Document(title, mark_safe(html), language)  # our own docs, see above


def _link(match: re.Match[str], *, document: str, language: str) -> str:
    """A link to ``<name>[.ko].md[#anchor]`` written in ``document`` (in ``language``). A link to
    the page's own other language ("English · 한국어" atop the rules) switches the reader's
    language: both versions are served at one URL, so a plain link would reload this one."""
    name, translated, anchor = match.groups()
    page = _site_link(name)
    target = "ko" if translated else "en"
    if name == document and target != language and not anchor:
        return escape(f"{reverse('language')}?{urlencode({'language': target, 'next': page})}")
    return page + (anchor or "")


def _site_link(name: str) -> str:
    """Links between the documents point at the site's pages instead of the .md files."""
    if name in ("belote", "bauer", "barbu", "badugi"):
        return reverse("rules", args=[name])
    return reverse("doc", args=[name])


def _data_url(path: Path) -> str:
    """An image inlined into the page (the site has no URL for ``docs/img/``; the
    Content-Security-Policy allows ``data:`` images). The figures are a few tens of kB."""
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{kind};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"
