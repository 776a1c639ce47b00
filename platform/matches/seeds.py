"""Match seeds: 128 bits from the operating system's CSPRNG for every match, independent of
each other and of anything published (a tournament's schedule, earlier replays), so that the
replay of a finished match, which shows its seed, tells nothing about a match still to play."""

from __future__ import annotations

import secrets

SEED_BITS = 128


def new_seed() -> int:
    return secrets.randbits(SEED_BITS)
