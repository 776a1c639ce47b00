"""The rules pages for bot authors (docs/rules/<game>.md, and in Korean docs/rules/<game>.ko.md)
stay honest: every rule option of every game is documented with its default, every worked example
in a page runs against the engine, and a translation keeps the structure of the English page.

A worked example is a fenced ``python`` block; it is executed on its own (a fresh namespace) and
proves its claims with ``assert``. A translation has the same headings (level by level, in order),
cites the same rule numbers in the same order, has the same option table rows and the same code:
its python blocks differ from the English ones only in comments and docstrings, and any other
fenced block (the JSON observation) is identical.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import engine

RULES = Path(__file__).resolve().parents[2] / "docs" / "rules"
GAMES = engine.available_games()
TRANSLATIONS = ("ko",)
PAGES = [(game, language) for game in GAMES for language in ("en", *TRANSLATIONS)]
PREFIX = {"belote": "BEL", "bauer": "BAU", "barbu": "BAR", "badugi": "BDG"}

EXAMPLE = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
FENCED = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
HEADING = re.compile(r"^(#{1,6}) (.+)$", re.MULTILINE)
RULE_NUMBER = re.compile(r"\b(?:BEL|BAU|BAR|BDG)-\d+\b")
OPTION_ROW = re.compile(r"^\| `(\w+)` \| ([^|]*) \|", re.MULTILINE)
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def filename(game: str, language: str) -> str:
    return f"{game}.md" if language == "en" else f"{game}.{language}.md"


def page(game: str, language: str = "en") -> str:
    path = RULES / filename(game, language)
    assert path.is_file(), f"{path} is missing"
    return path.read_text(encoding="utf-8")


def prose(text: str) -> str:
    """The page without its fenced blocks (a ``#`` comment in code is not a heading)."""
    return FENCED.sub("", text)


def outline(text: str) -> list[str]:
    """The heading levels in order, e.g. ``["#", "##", "###", ...]``."""
    return [m.group(1) for m in HEADING.finditer(prose(text))]


def option_section(text: str) -> str:
    """The body of the ``## Rule options`` section (a translation keeps the English title in
    parentheses: ``## 규칙 옵션 (Rule options)``)."""
    parts = re.split(r"^## .*\bRule options\b.*$", prose(text), maxsplit=1, flags=re.MULTILINE)
    return parts[1].split("\n## ", 1)[0] if len(parts) == 2 else ""


def option_rows(text: str) -> list[tuple[str, str]]:
    """(option, default cell) of each row of the option table, in order."""
    return [(m.group(1), m.group(2)) for m in OPTION_ROW.finditer(option_section(text))]


def code_shape(language: str, code: str) -> str:
    """What must not change in a translation: a python block's syntax tree with comments gone
    and docstrings blanked, or any other block's exact text."""
    if language != "python":
        return code
    tree = ast.parse(code)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                body[0].value.value = ""
    return ast.dump(tree)


def examples() -> list[tuple[str, str, int, str]]:
    found = []
    for game, language in PAGES:
        path = RULES / filename(game, language)
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            for number, match in enumerate(EXAMPLE.finditer(text), start=1):
                found.append((game, language, number, match.group(1)))
    return found


@pytest.mark.parametrize(("game", "language"), PAGES)
def test_every_option_is_documented_with_its_default(game: str, language: str) -> None:
    name = filename(game, language)
    section = option_section(page(game, language))
    assert section, f"docs/rules/{name} has no '## … Rule options' section"
    options = engine.load_game(game).params_dict()
    rows = {m.group(1): m.group(0) for m in OPTION_ROW.finditer(section)}
    missing = sorted(set(options) - set(rows))
    assert not missing, f"docs/rules/{name} does not document {missing}"
    for option, default in options.items():
        spellings = {f"`{default}`", f"`{default!r}`", f"`{json.dumps(default)}`"}
        assert any(s in rows[option] for s in spellings), (
            f"docs/rules/{name}: the row of `{option}` does not show its default {default!r}"
        )


@pytest.mark.parametrize(("game", "language"), PAGES)
def test_every_page_has_worked_examples_and_rule_numbers(game: str, language: str) -> None:
    text = page(game, language)
    name = filename(game, language)
    assert len(EXAMPLE.findall(text)) >= 3, f"docs/rules/{name} needs worked examples"
    assert re.search(rf"\b{PREFIX[game]}-\d+\b", text), f"cite the rule numbers ({PREFIX[game]}-n)"


@pytest.mark.parametrize(
    ("game", "language", "number", "code"),
    examples(),
    ids=[f"{g}-{lang}-example-{n}" for g, lang, n, _ in examples()],
)
def test_worked_example_runs(game: str, language: str, number: int, code: str) -> None:
    where = f"docs/rules/{filename(game, language)} example {number}"
    exec(compile(code, where, "exec"), {})  # noqa: S102


@pytest.mark.parametrize("language", TRANSLATIONS)
@pytest.mark.parametrize("game", GAMES)
def test_translation_has_the_same_structure(game: str, language: str) -> None:
    english, translated = page(game), page(game, language)
    name = filename(game, language)
    assert outline(translated) == outline(english), f"docs/rules/{name}: headings differ"
    assert RULE_NUMBER.findall(translated) == RULE_NUMBER.findall(english), (
        f"docs/rules/{name} must cite the rule numbers of {game}.md, in the same order"
    )
    assert option_rows(translated) == option_rows(english), (
        f"docs/rules/{name}: the option table must have the rows of {game}.md"
    )


@pytest.mark.parametrize("language", TRANSLATIONS)
@pytest.mark.parametrize("game", GAMES)
def test_translation_has_the_same_code(game: str, language: str) -> None:
    english = [code_shape(*m) for m in FENCED.findall(page(game))]
    translated = [code_shape(*m) for m in FENCED.findall(page(game, language))]
    assert len(translated) == len(english), f"{filename(game, language)}: not the same blocks"
    for number, (mine, theirs) in enumerate(zip(translated, english, strict=True), start=1):
        assert mine == theirs, (
            f"docs/rules/{filename(game, language)}: fenced block {number} differs from "
            f"{game}.md beyond comments and docstrings"
        )


@pytest.mark.parametrize("game", GAMES)
def test_korean_page_is_written_in_korean(game: str) -> None:
    """No heading, paragraph, list or table of the Korean page was left in English: each one
    that has words outside `code` has Korean text."""
    for block in re.split(r"\n\s*\n", prose(page(game, "ko"))):
        words = re.findall(r"[A-Za-z]{3,}", re.sub(r"`[^`]*`", "", block))
        assert not words or HANGUL.search(block), f"{game}.ko.md: not in Korean: {block[:80]!r}"


def test_index_links_every_page() -> None:
    index = (RULES / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([\w.]+\.md)\)", index))
    pages = {filename(game, language) for game, language in PAGES}
    assert pages <= linked, f"docs/rules/README.md does not link {sorted(pages - linked)}"
    assert all((RULES / name).is_file() for name in linked), "README.md links a missing page"


@pytest.mark.parametrize(("game", "language"), PAGES)
def test_relative_links_resolve(game: str, language: str) -> None:
    """Links to other files (the other language, ../protocol.md) point at files that exist."""
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", prose(page(game, language))):
        if "://" not in target:
            assert (RULES / target).exists(), f"{filename(game, language)} links {target}"
