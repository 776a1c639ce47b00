"""A minimal Barbu bot for Card Arena: the protocol, with comments, and one simple idea.

The arena starts this program once per game and talks to it in JSON Lines (docs/protocol.md):
one JSON object per line on our stdin; we answer with one line on stdout. Whatever we print to
stderr is kept (capped) as our private log.

Try it:  arena validate examples/barbu/minimal.py --game barbu
"""

import json
import sys

RANK = {r: i for i, r in enumerate("23456789TJQKA")}


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()  # without this the answer waits in a buffer and we time out


def choose(observation: dict, legal: list) -> str:
    """Return one of ``legal`` verbatim.

    A Barbu observation has, among others (a full one is in docs/protocol.md):
      phase     "declare" (when we deal we pick a contract: "contract:no_tricks",
                "contract:trumps:s", "contract:domino:7", ...), "double" (with the doubling
                option), "play" (trick contracts) or "domino"
      contract  the contract being played; hand: our cards ("Qh": rank 2-9 T J Q K A, suit s h d c)
      trick     the current trick: [{"seat": 0, "card": "7c"}, ...]
    """
    phase = observation["phase"]
    if phase == "declare":
        # No Tricks is safe to declare with low cards; otherwise take whatever comes first.
        if "contract:no_tricks" in legal:
            return "contract:no_tricks"
        return legal[0]
    if phase == "play" and observation["contract"] != "trumps":
        # All contracts but Trumps punish taking tricks (or some cards): play our lowest card.
        return min(legal, key=lambda card: RANK[card[0]])
    return legal[0]  # domino (a card or "pass"), doubling, trumps: the first legal action


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            send({"type": "ready"})  # seat, params (mode: base/repeat/geronimo...) are in message
        elif message["type"] == "act":
            send({"id": message["id"], "action": choose(message["observation"], message["legal"])})
        elif message["type"] == "over":
            break


if __name__ == "__main__":
    main()
