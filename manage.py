#!/usr/bin/env python
"""Django's command-line utility for Card Arena."""

import os
import sys
from pathlib import Path

# platform/ is a source root, not a package: putting the folder itself on the path makes
# `arena` and the apps importable and cannot shadow the standard library's `platform` module.
sys.path.insert(0, str(Path(__file__).resolve().parent / "platform"))


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
