"""Every Markdown document the site serves has a Korean twin with the English one's structure.

The served documents are ``docs/<page>.md`` for each page of ``DOC_PAGES`` in
``platform/web/documents.py`` and every rules page ``docs/rules/<game>.md``; the twin of
``<name>.md`` is ``<name>.ko.md``, which ``documents.load`` serves to Korean readers. Both files
are rendered as the site renders them (Python-Markdown with tables, fenced_code and toc), and the
twin must have, compared with the English:

* as many headings of each level;
* the same tables, in order, each with as many rows and columns;
* the same fenced code blocks, in order and language; a block in a language without comments
  (JSON, text, ...) is identical, since code, JSON and transcripts are not translated (Python,
  TOML and shell blocks may translate their comments);
* as many paragraphs and list items, the same links (one to ``x.ko.md`` counts as one to
  ``x.md``) and the same HTML comments (``<!-- generated: ... -->`` markers).

And every ``#anchor`` that a link in ``docs/`` or the README points at in a served document
exists in both languages: the site sends ``x.md#anchor`` to ``/docs/x/#anchor`` in the reader's
language. Python-Markdown drops Hangul from anchors, so a translated heading that is linked keeps
the English title in parentheses: ``## 규칙 옵션 (Rule options)`` is ``#rule-options`` too.

Run from anywhere: ``python scripts/check_doc_twins.py`` (``scripts/check_translations.sh`` does).
It prints one line per difference, naming the file, and exits 1 if there is any.
"""

from __future__ import annotations

import ast
import html
import re
import sys
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import markdown

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LANGUAGES = ("ko",)
#: fenced blocks in these languages may translate their comments; any other block is identical
COMMENTED = {"python", "py", "toml", "sh", "bash", "shell", "console"}

_HEADING = re.compile(r'<h([1-6]) id="([^"]*)">')
_TABLE = re.compile(r"<table>(.*?)</table>", re.DOTALL)
_ROW = re.compile(r"<tr>(.*?)</tr>", re.DOTALL)
_CODE = re.compile(r'<pre><code(?: class="language-([^"]*)")?>(.*?)</code></pre>', re.DOTALL)
_HREF = re.compile(r'<a href="([^"]*)"')
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_TRANSLATED = re.compile(r"\.[a-z]{2}\.md\b")


@dataclass(frozen=True)
class Shape:
    """What must agree between a document and its translation."""

    levels: Counter[int]  # headings per level
    anchors: frozenset[str]
    tables: list[tuple[int, int]]  # (rows, columns)
    code: list[tuple[str, str]]  # (language, text)
    paragraphs: int
    list_items: int
    links: Counter[str]  # targets, translations' names made the English ones
    comments: list[str]


@cache
def shape(path: Path) -> Shape:
    text = path.read_text(encoding="utf-8")
    rendered = markdown.markdown(text, extensions=["tables", "fenced_code", "toc"])
    code = [(language or "", html.unescape(body)) for language, body in _CODE.findall(rendered)]
    prose = _CODE.sub("", rendered)  # a "# comment" or a "|" inside code is neither
    headings = _HEADING.findall(prose)
    tables = []
    for table in _TABLE.findall(prose):
        rows = _ROW.findall(table)
        tables.append((len(rows), len(re.findall(r"<t[hd]\b", rows[0])) if rows else 0))
    return Shape(
        levels=Counter(int(level) for level, _ in headings),
        anchors=frozenset(anchor for _, anchor in headings),
        tables=tables,
        code=code,
        paragraphs=prose.count("<p>"),
        list_items=prose.count("<li>"),
        links=Counter(_TRANSLATED.sub(".md", html.unescape(h)) for h in _HREF.findall(prose)),
        comments=_COMMENT.findall(text),
    )


def served_documents() -> list[Path]:
    """The English documents the site serves (DOC_PAGES read without importing Django)."""
    source = (ROOT / "platform" / "web" / "documents.py").read_text(encoding="utf-8")
    pages: tuple[str, ...] = ()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "DOC_PAGES" for target in node.targets
        ):
            pages = ast.literal_eval(node.value)
    if not pages:
        sys.exit("scripts/check_doc_twins.py: no DOC_PAGES in platform/web/documents.py")
    rules = [path for path in sorted((DOCS / "rules").glob("*.md"))
             if path.name != "README.md" and path.suffixes == [".md"]]  # fmt: skip
    return [DOCS / f"{page}.md" for page in pages] + rules


def twin(english: Path, language: str) -> Path:
    return english.with_name(f"{english.stem}.{language}.md")


def name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def differences(english: Path, translated: Path) -> list[str]:
    mine, theirs = shape(translated), shape(english)
    where, other = name(translated), english.name
    found = []
    for level in sorted(mine.levels | theirs.levels):
        if mine.levels[level] != theirs.levels[level]:
            found.append(f"{where}: {mine.levels[level]} level-{level} headings, "
                         f"{other} has {theirs.levels[level]}")  # fmt: skip
    if len(mine.tables) != len(theirs.tables):
        found.append(f"{where}: {len(mine.tables)} tables, {other} has {len(theirs.tables)}")
    else:
        for number, (a, b) in enumerate(zip(mine.tables, theirs.tables, strict=True), start=1):
            if a != b:
                found.append(f"{where}: table {number} has {a[0]} rows of {a[1]} columns, "
                             f"{other}'s has {b[0]} rows of {b[1]} columns")  # fmt: skip
    if len(mine.code) != len(theirs.code):
        found.append(f"{where}: {len(mine.code)} fenced code blocks, "
                     f"{other} has {len(theirs.code)}")  # fmt: skip
    else:
        for number, (a, b) in enumerate(zip(mine.code, theirs.code, strict=True), start=1):
            if a[0] != b[0]:
                found.append(f"{where}: fenced block {number} is '{a[0]}', {other}'s is '{b[0]}'")
            elif a[0] not in COMMENTED and a[1] != b[1]:
                found.append(f"{where}: fenced block {number} ({a[0] or 'plain'}) differs from "
                             f"{other}'s (code is not translated: copy it)")  # fmt: skip
    if mine.paragraphs != theirs.paragraphs:
        found.append(f"{where}: {mine.paragraphs} paragraphs, {other} has {theirs.paragraphs}")
    if mine.list_items != theirs.list_items:
        found.append(f"{where}: {mine.list_items} list items, {other} has {theirs.list_items}")
    if mine.links != theirs.links:
        extra, missing = mine.links - theirs.links, theirs.links - mine.links
        found.append(f"{where}: links differ from {other}'s: "
                     f"extra {sorted(extra)}, missing {sorted(missing)}")  # fmt: skip
    if mine.comments != theirs.comments:
        found.append(f"{where}: HTML comments differ from {other}'s: {mine.comments}")
    return found


def broken_anchors(served: list[Path]) -> list[str]:
    """Links from any document to an anchor of a served document that one language lacks."""
    targets = {path: [path, *(twin(path, language) for language in LANGUAGES)] for path in served}
    sources = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    found = []
    for source in sources:
        if not source.is_file():
            continue
        for link in sorted(shape(source).links):
            target, _, anchor = link.partition("#")
            if not anchor or "://" in target:
                continue
            resolved = (source.parent / target).resolve() if target else _english(source)
            for document in targets.get(resolved, []):
                if document.is_file() and anchor not in shape(document).anchors:
                    found.append(f"{name(source)}: links {link}, but {name(document)} has no "
                                 f"#{anchor} (a translated heading keeps the English title in "
                                 f"parentheses: '## 규칙 옵션 (Rule options)')")  # fmt: skip
    return found


def _english(path: Path) -> Path:
    return path.with_name(_TRANSLATED.sub(".md", path.name))


def main() -> int:
    served = served_documents()
    problems = []
    for english in served:
        if not english.is_file():
            problems.append(f"{name(english)}: served by the site but missing")
            continue
        for language in LANGUAGES:
            translated = twin(english, language)
            if not translated.is_file():
                problems.append(f"{name(translated)}: missing (the translation of "
                                f"{name(english)}, which the site serves)")  # fmt: skip
            else:
                problems += differences(english, translated)
    problems += broken_anchors([path for path in served if path.is_file()])
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
