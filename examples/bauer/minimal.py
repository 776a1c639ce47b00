"""A minimal Bauer bot for Card Arena: the protocol, with comments, and one simple idea.

The arena starts this program once per game and talks to it in JSON Lines (docs/protocol.md):
one JSON object per line on our stdin; we answer with one line on stdout. Whatever we print to
stderr is kept (capped) as our private log.

Try it:  arena validate examples/bauer/minimal.py --game bauer
"""

import json
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()  # without this the answer waits in a buffer and we time out


def choose(observation: dict, legal: list) -> str:
    """Return one of ``legal`` verbatim.

    A Bauer observation has, among others (a full one is in docs/protocol.md):
      phase   "call" (name trump: "trump:h", or "pass") or "play"
      hand    our cards, e.g. ["Jd", "Ah", "7c"]; trump: the trump suit (null: none yet / no trump)
      trick   the current trick: [{"seat": 1, "card": "Ts"}, ...]
      points  the two teams' points (each starts at 8 and counts down; 0 wins)
    The jack of trump and the jack of the same colour are the two highest trumps ("bauers").
    """
    if observation["phase"] == "call":
        hand = observation["hand"]
        # Name the suit of a jack we hold if we also hold two more cards of that suit.
        for card in hand:
            suit = card[1]
            if card[0] == "J" and sum(1 for c in hand if c[1] == suit) >= 3:
                return "trump:" + suit
        return "pass"
    return legal[0]  # the engine lists only cards we may play (follow the effective suit)


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            send({"type": "ready"})  # seat, params and limits are in message if you need them
        elif message["type"] == "act":
            send({"id": message["id"], "action": choose(message["observation"], message["legal"])})
        elif message["type"] == "over":
            break


if __name__ == "__main__":
    main()
