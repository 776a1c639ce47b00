"""platform/ is a source root, never a package: a package named ``platform`` would shadow the
standard library's module (DESIGN.md §1), and its top-level modules must not shadow any."""

import os
import platform
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_stdlib_platform_module_is_intact() -> None:
    assert platform.system()
    assert Path(platform.__file__).parent == Path(sysconfig.get_paths()["stdlib"])


def test_platform_folder_is_not_a_package() -> None:
    assert not os.path.exists(ROOT / "platform" / "__init__.py")


def test_platform_top_level_modules_do_not_shadow_the_stdlib() -> None:
    names = {child.name.removesuffix(".py") for child in (ROOT / "platform").iterdir()}
    assert not names & sys.stdlib_module_names
