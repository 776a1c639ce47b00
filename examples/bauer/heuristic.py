"""A heuristic Bauer bot: calls its strongest trump suit, wins tricks cheaply, helps its partner.

Standalone (standard library only); see minimal.py for the protocol explained.
"""

import json
import sys

RANK = {r: i for i, r in enumerate("789TJQKA")}  # plain suits, low -> high
SAME_COLOUR = {"h": "d", "d": "h", "s": "c", "c": "s"}


def effective_suit(card: str, trump: str | None) -> str:
    """The left bauer (jack of trump's colour partner) belongs to the trump suit."""
    if trump and card == "J" + SAME_COLOUR[trump]:
        return trump
    return card[1]


def strength(card: str, led: str, trump: str | None) -> int:
    suit = effective_suit(card, trump)
    if trump and suit == trump:
        if card == "J" + trump:
            return 300  # right bauer
        if card[0] == "J":
            return 299  # left bauer
        return 200 + RANK[card[0]]
    return RANK[card[0]] if suit == led else -1


def trump_value(hand: list[str], suit: str) -> int:
    trumps = [c for c in hand if effective_suit(c, suit) == suit]
    value = 10 * len(trumps)
    for card in trumps:
        value += {"J": 12, "A": 6, "K": 4}.get(card[0], 0)
    return value + sum(4 for c in hand if c[0] == "A" and effective_suit(c, suit) != suit)


def call(observation: dict, legal: list[str]) -> str:
    options = [a for a in legal if a.startswith("trump:")]
    if not options:
        return "pass"
    best = max(options, key=lambda a: trump_value(observation["hand"], a[-1]))
    return best if trump_value(observation["hand"], best[-1]) >= 50 else "pass"


def play(observation: dict, legal: list[str]) -> str:
    trump, trick, seat = observation["trump"], observation["trick"], observation["seat"]
    lowest = min(legal, key=lambda c: (effective_suit(c, trump) == trump, RANK[c[0]]))
    if not trick:
        return max(legal, key=lambda c: strength(c, effective_suit(c, trump), trump))
    led = effective_suit(trick[0]["card"], trump)
    best = max(trick, key=lambda t: strength(t["card"], led, trump))
    if best["seat"] == (seat + 2) % 4:
        return lowest  # partner is winning
    to_beat = strength(best["card"], led, trump)
    winners = [c for c in legal if strength(c, led, trump) > to_beat]
    return min(winners, key=lambda c: strength(c, led, trump)) if winners else lowest


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            print(json.dumps({"type": "ready"}), flush=True)
        elif message["type"] == "act":
            observation, legal = message["observation"], message["legal"]
            action = (
                call(observation, legal)
                if observation["phase"] == "call"
                else play(observation, legal)
            )
            if action not in legal:
                action = legal[0]
            print(json.dumps({"id": message["id"], "action": action}), flush=True)
        elif message["type"] == "over":
            break


if __name__ == "__main__":
    main()
