"""A Card Arena bot that uses numpy, for any of the four games.

The python3 runtime offers a pinned numpy (``arena runtimes`` shows the version) with its
thread pools limited to one thread; ``vendor/`` holds a pure-Python module of our own, put on
``sys.path`` by ``pythonpath = ["vendor"]`` in bot.toml. Protocol: docs/protocol.md.

The policy is a softmax over a tiny feature vector per legal action: low cards are preferred
(keep the strong ones), and non-card actions (bids, draws, bets) are chosen at random with a
numpy generator seeded by the seat, so a replay of the same match repeats it.
"""

import json
import sys

import numpy as np
from cards import card_rank  # vendor/cards.py

TEMPERATURE = 0.5
#: weights of the features [is a card, rank / 12]: a card is scored -rank (low cards first)
WEIGHTS = np.array([0.0, -4.0])


def features(legal: list[str]) -> np.ndarray:
    """One row per legal action: [1, rank / 12] for a card, [0, 0] otherwise."""
    ranks = np.array([card_rank(action) for action in legal], dtype=float)
    is_card = ranks >= 0
    return np.column_stack([is_card, np.where(is_card, ranks / 12.0, 0.0)])


def choose(legal: list[str], rng: np.random.Generator) -> str:
    scores = features(legal) @ WEIGHTS / TEMPERATURE
    weights = np.exp(scores - scores.max())  # a softmax, stable for any scores
    return legal[int(rng.choice(len(legal), p=weights / weights.sum()))]


def main() -> None:
    rng = np.random.default_rng(0)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            rng = np.random.default_rng(message["seat"])
            print(f"numpy {np.__version__}", file=sys.stderr)
            print(json.dumps({"type": "ready"}), flush=True)
        elif message["type"] == "act":
            action = choose(message["legal"], rng)
            print(json.dumps({"id": message["id"], "action": action}), flush=True)
        elif message["type"] == "over":
            break


if __name__ == "__main__":
    main()
