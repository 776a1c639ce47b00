"""A random bot for every Card Arena game: the smallest complete protocol implementation.

Run by the arena as ``python3 bot.py`` (see bot.toml); it reads one JSON object per line on
stdin and answers on stdout (see docs/protocol.md). Standard library only.
"""

import json
import random
import sys


def main() -> None:
    rng = random.Random()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            rng.seed(message["seat"])  # reproducible per seat; any seed would do
            print(json.dumps({"type": "ready"}), flush=True)
        elif kind == "act":
            action = rng.choice(message["legal"])
            print(json.dumps({"id": message["id"], "action": action}), flush=True)
        elif kind == "over":
            break


if __name__ == "__main__":
    main()
