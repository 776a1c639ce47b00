"""Imports flow downward only (DESIGN.md §1): platform → sandbox → engine → standard library
(and orjson, the sandbox's JSON encoder), and the ``arena`` command (arena_cli) → sandbox →
engine; nothing below imports the command."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLATFORM_APPS = {p.name for p in (ROOT / "platform").iterdir() if p.is_dir()}


def imported_top_modules(folder: str) -> dict[str, set[str]]:
    """Top-level module names imported (absolutely) by each file under ``folder``."""
    found: dict[str, set[str]] = {}
    for path in (ROOT / folder).rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
        found[str(path.relative_to(ROOT))] = names
    return found


@pytest.mark.parametrize(
    ("folder", "allowed_own"),
    [("engine", {"engine"}),
     # orjson, the one library below the platform: the referee encodes every decision's
     # message with it, 15 times faster than json and byte for byte the same (protocol.encode)
     ("sandbox", {"sandbox", "engine", "orjson"}),
     ("arena_cli", {"arena_cli", "sandbox", "engine"})],
)
def test_lower_layers_use_only_the_standard_library_and_layers_below(
    folder: str, allowed_own: set[str]
) -> None:
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    offenders = {
        path: sorted(names - stdlib - allowed_own)
        for path, names in imported_top_modules(folder).items()
        if names - stdlib - allowed_own
    }
    assert offenders == {}, f"{folder}/ imports outside its layer: {offenders}"


def test_the_command_is_imported_by_nothing_below_it() -> None:
    for folder in ("engine", "sandbox", "platform"):
        for path, names in imported_top_modules(folder).items():
            assert "arena_cli" not in names, path


def test_the_platform_is_not_imported_from_below() -> None:
    for folder in ("engine", "sandbox", "arena_cli"):
        for path, names in imported_top_modules(folder).items():
            assert not names & (PLATFORM_APPS | {"django", "celery", "rest_framework"}), path
