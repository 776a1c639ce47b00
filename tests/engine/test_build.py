"""The build under test is the one expected: ``scripts/test_compiled_engine.sh`` runs this suite
against the mypyc build of ``setup.py`` and must not fall back to the sources unnoticed, and
every other run tests the sources, not extensions a quick start left beside them (compiled
from the sources of that day: ``scripts/test.sh`` removes them, lib.sh's ``engine_build``)."""

from __future__ import annotations

import ast
import importlib
import os
from pathlib import Path

import engine

ROOT = Path(__file__).resolve().parents[2]


def compiled_modules() -> list[str]:
    """The modules ``setup.py`` compiles, read from its ``COMPILED`` list."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "COMPILED":
            paths: list[str] = ast.literal_eval(node.value)
            return [p.removesuffix(".py").replace("/", ".") for p in paths]
    raise AssertionError("setup.py has no COMPILED list")


def test_setup_compiles_every_game_module() -> None:
    modules = compiled_modules()
    games = [f"engine.games.{p.stem}" for p in (ROOT / "engine/games").glob("*.py")]
    rules = [m for m in games if not m.endswith(("__init__", "_agent"))]
    assert rules and set(rules) <= set(modules)


def test_the_modules_are_the_expected_build() -> None:
    expected = os.environ.get("ARENA_EXPECT_COMPILED_ENGINE") == "1"
    assert engine.compiled() is expected
    for name in compiled_modules():
        path = str(importlib.import_module(name).__file__)
        assert path.endswith(".py") is not expected, path
