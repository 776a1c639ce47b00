"""Optional native build of the engine's rules (everything else is in pyproject.toml).

``ARENA_COMPILE_ENGINE=1 pip install .`` compiles the engine's rule modules to C extensions with
mypyc (the way black and mypy ship): the same source, type-checked, 1.3–2× faster for self-play
and for the workers' referees. Without the variable the engine stays plain Python (and an earlier
editable install's extensions are removed). The two give identical games: the engine suite,
golden fingerprints included, runs against both (``scripts/test_compiled_engine.sh``).
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import setup

# the rules' hot path. card.py and frozen.py stay Python: mypyc compiles only classes of its
# own layout, not Card (an int subclass) nor FrozenList and FrozenDict (list and dict ones), and
# kept Python they are the int, list and dict they subclass to compiled code (compiled as Python
# classes inside a compiled module, every len(), index and loop of them became a method call:
# measured 5 % slower). The agents, the match runner and the replay tools stay Python: they are
# not on a decision's path.
COMPILED = [
    "engine/cards.py",
    "engine/frozen_ops.py",
    "engine/game.py",
    "engine/tricks.py",
    "engine/params.py",
    "engine/options.py",
    "engine/seat_view.py",
    "engine/boards.py",
    "engine/games/badugi.py",
    "engine/games/badugi_hands.py",
    "engine/games/barbu.py",
    "engine/games/barbu_rules.py",
    "engine/games/bauer.py",
    "engine/games/belote.py",
]


def remove_native_build() -> None:
    """Delete the C extensions an earlier compiled editable install left beside the sources:
    Python imports them before the ``.py`` files, so they would hide every later edit."""
    root = Path(__file__).resolve().parent
    for stale in [*root.glob("engine/**/*.so"), *root.glob("engine__mypyc.*.so")]:
        stale.unlink()


def engine_extensions() -> list[object]:
    if os.environ.get("ARENA_COMPILE_ENGINE") != "1":
        remove_native_build()
        return []
    from mypyc.build import mypycify

    # the engine's own strict settings, not pyproject's (whose Django plugins need the site)
    options = ["--config-file", os.devnull, "--strict", "--python-version", "3.11"]
    return list(mypycify(options + COMPILED, opt_level="3", group_name="engine"))


setup(ext_modules=engine_extensions())
