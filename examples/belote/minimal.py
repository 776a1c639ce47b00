"""A minimal Belote bot for Card Arena: the protocol, with comments, and one simple idea.

The arena starts this program once per game and talks to it in JSON Lines (docs/protocol.md):
it writes one JSON object per line to our stdin, and we answer with one line on stdout.
Everything we print to stderr is kept (capped) as our private log: use it for debugging.

Try it:  arena validate examples/belote/minimal.py --game belote
"""

import json
import sys


def log(*parts: object) -> None:
    """Debug output goes to stderr; stdout is only for protocol lines."""
    print(*parts, file=sys.stderr)


def send(message: dict) -> None:
    # One line per message, and flush: otherwise the line sits in a buffer and we time out.
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def choose(observation: dict, legal: list) -> str:
    """Return one of ``legal``, exactly as written there.

    A Belote observation has, among others (see docs/protocol.md for a full one):
      phase   "bid1" (take the upcard's suit as trump, or pass), "bid2" (name another suit:
              "trump:s", or pass) or "play"
      hand    our cards, e.g. ["7d", "Jh", "Ts"] (rank 7 8 9 T J Q K A, suit s h d c)
      upcard  the turned card proposing trump; trump: the trump suit once chosen
      trick   the current trick: [{"seat": 3, "card": "Ad"}, ...]; tricks: finished ones
    """
    hand = observation["hand"]
    if observation["phase"] == "bid1":
        suit = observation["upcard"][1]
        # The jack (20 points) and the nine (14) are the best trumps: take with either.
        if "J" + suit in hand or "9" + suit in hand:
            return "take"
        return "pass"
    if observation["phase"] == "bid2":
        return "pass"
    # Playing: the engine lists only cards we may play (follow suit, trump duties...).
    # Keep it simple: the first one. The heuristic example does better.
    return legal[0]


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            # {"type": "hello", "version": 1, "game": "belote", "seat": 2, "params": {...},
            #  "limits": {"decision_timeout_ms": ..., ...}}: set up, then say we are ready.
            log("playing seat", message["seat"], "with", message["params"])
            send({"type": "ready"})
        elif message["type"] == "act":
            # Answer with the same id and one of the legal actions, within the time limit.
            action = choose(message["observation"], message["legal"])
            send({"id": message["id"], "action": action})
        elif message["type"] == "over":
            log("game over:", message["result"])
            break


if __name__ == "__main__":
    main()
