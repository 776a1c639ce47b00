"""A minimal Badugi bot for Card Arena: the protocol, with comments, and one simple idea.

The arena starts this program once per game (a match of many hands) and talks to it in JSON
Lines (docs/protocol.md): one JSON object per line on our stdin; we answer with one line on
stdout. Whatever we print to stderr is kept (capped) as our private log.

Try it:  arena validate examples/badugi/minimal.py --game badugi
"""

import json
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()  # without this the answer waits in a buffer and we time out


def choose(observation: dict, legal: list) -> str:
    """Return one of ``legal`` verbatim.

    A Badugi observation has, among others (a full one is in docs/protocol.md):
      phase    "bet" (legal among "check", "bet", "call", "raise", "fold") or "draw"
               (legal: "draw:" to stand pat, "draw:7d,Kd" to discard those cards, ...)
      hand     our four cards; to_call: chips needed to call; draws_left; pot; stacks
    Badugi is lowball: the best hand is four cards of different suits and ranks, A-2-3-4.
    """
    hand = observation["hand"]
    if observation["phase"] == "draw":
        # Discard every card that repeats a suit or rank seen earlier in our (sorted) hand.
        seen_suits, seen_ranks, discard = set(), set(), []
        for card in hand:
            if card[1] in seen_suits or card[0] in seen_ranks:
                discard.append(card)
            seen_suits.add(card[1])
            seen_ranks.add(card[0])
        wanted = "draw:" + ",".join(discard)
        return wanted if wanted in legal else "draw:"
    # Betting: never fold when checking is free; otherwise call.
    for action in ("check", "call"):
        if action in legal:
            return action
    return legal[0]


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            send({"type": "ready"})  # seat, params (players, hands, stakes...) are in message
        elif message["type"] == "act":
            send({"id": message["id"], "action": choose(message["observation"], message["legal"])})
        elif message["type"] == "over":
            break


if __name__ == "__main__":
    main()
