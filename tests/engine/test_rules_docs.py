"""The rules pages for bot authors (docs/rules/<game>.md) stay honest: every rule option of every
game is documented with its default, and every worked example in a page runs against the engine.

A worked example is a fenced ``python`` block; it is executed on its own (a fresh namespace) and
proves its claims with ``assert``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import engine

RULES = Path(__file__).resolve().parents[2] / "docs" / "rules"
EXAMPLE = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def page(game: str) -> str:
    path = RULES / f"{game}.md"
    assert path.is_file(), f"{path} is missing"
    return path.read_text(encoding="utf-8")


def examples() -> list[tuple[str, int, str]]:
    found = []
    for game in engine.available_games():
        path = RULES / f"{game}.md"
        if path.is_file():
            for number, match in enumerate(EXAMPLE.finditer(path.read_text()), start=1):
                found.append((game, number, match.group(1)))
    return found


@pytest.mark.parametrize("game", engine.available_games())
def test_every_option_is_documented_with_its_default(game: str) -> None:
    section = page(game).partition("\n## Rule options")[2].split("\n## ", 1)[0]
    assert section, f"docs/rules/{game}.md has no '## Rule options' section"
    options = engine.load_game(game).params_dict()
    rows = {
        m.group(1): m.group(0)
        for m in re.finditer(r"^\| `(\w+)` \|.*$", section, re.MULTILINE)
    }
    missing = sorted(set(options) - set(rows))
    assert not missing, f"docs/rules/{game}.md does not document {missing}"
    for name, default in options.items():
        spellings = {f"`{default}`", f"`{default!r}`", f"`{json.dumps(default)}`"}
        assert any(s in rows[name] for s in spellings), (
            f"docs/rules/{game}.md: the row of `{name}` does not show its default {default!r}"
        )


@pytest.mark.parametrize("game", engine.available_games())
def test_every_page_has_worked_examples_and_rule_numbers(game: str) -> None:
    text = page(game)
    assert len(EXAMPLE.findall(text)) >= 3, f"docs/rules/{game}.md needs worked examples"
    prefix = {"belote": "BEL", "bauer": "BAU", "barbu": "BAR", "badugi": "BDG"}[game]
    assert re.search(rf"\b{prefix}-\d+\b", text), f"cite the rule numbers ({prefix}-n)"


@pytest.mark.parametrize(
    ("game", "number", "code"),
    examples(),
    ids=[f"{g}-example-{n}" for g, n, _ in examples()],
)
def test_worked_example_runs(game: str, number: int, code: str) -> None:
    exec(compile(code, f"docs/rules/{game}.md example {number}", "exec"), {})  # noqa: S102
