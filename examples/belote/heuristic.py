"""A heuristic Belote bot: bids on trump strength, wins tricks cheaply, helps its partner.

Standalone (standard library only); see minimal.py for the protocol explained line by line.
"""

import json
import sys

TRUMP_RANK = {r: i for i, r in enumerate("78QKTA9J")}  # low -> high as trumps
PLAIN_RANK = {r: i for i, r in enumerate("789JQKTA")}  # low -> high in other suits
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3}
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}


def points(card: str, trump: str | None) -> int:
    table = TRUMP_POINTS if card[1] == trump else PLAIN_POINTS
    return table.get(card[0], 0)


def strength(card: str, led: str, trump: str | None) -> int:
    """Comparable trick strength: trumps above the suit led, other suits never win."""
    if card[1] == trump:
        return 100 + TRUMP_RANK[card[0]]
    if card[1] == led:
        return PLAIN_RANK[card[0]]
    return -1


def trump_value(hand: list[str], suit: str) -> int:
    """How good ``suit`` would be as trump for this hand (points of trumps + count bonus)."""
    trumps = [c for c in hand if c[1] == suit]
    aces = sum(1 for c in hand if c[0] == "A" and c[1] != suit)
    return sum(points(c, suit) for c in trumps) + 8 * len(trumps) + 6 * aces


def bid(observation: dict, legal: list[str]) -> str:
    hand = list(observation["hand"])
    if observation["phase"] == "bid1":
        suit = observation["upcard"][1]
        value = trump_value(hand + [observation["upcard"]], suit)
        return "take" if value >= 60 and "take" in legal else "pass"
    options = [a for a in legal if a.startswith("trump:")]
    if not options:
        return "pass"
    best = max(options, key=lambda a: trump_value(hand, a[-1]))
    return best if trump_value(hand, best[-1]) >= 62 else "pass"


def play(observation: dict, legal: list[str]) -> str:
    trump = observation["trump"]
    trick = observation["trick"]
    seat = observation["seat"]
    cheapest = min(legal, key=lambda c: (points(c, trump), c[1] == trump, PLAIN_RANK[c[0]]))
    if not trick:  # leading: cash a master (an ace of a plain suit, the trump jack), else cheap
        masters = [c for c in legal if c == "J" + trump or (c[0] == "A" and c[1] != trump)]
        return masters[0] if masters else cheapest
    led = trick[0]["card"][1]
    best = max(trick, key=lambda t: strength(t["card"], led, trump))
    partner_winning = best["seat"] == (seat + 2) % 4
    last_to_play = len(trick) == 3
    if partner_winning:
        # give points to our partner's trick when it is safe (we play last), else play cheap
        if last_to_play:
            return max(legal, key=lambda c: (c[1] != trump, points(c, trump)))
        return cheapest
    to_beat = strength(best["card"], led, trump)
    winners = [c for c in legal if strength(c, led, trump) > to_beat]
    if winners:
        return min(winners, key=lambda c: (strength(c, led, trump), points(c, trump)))
    return cheapest


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            print(json.dumps({"type": "ready"}), flush=True)
        elif message["type"] == "act":
            observation, legal = message["observation"], message["legal"]
            if observation["phase"] in ("bid1", "bid2"):
                action = bid(observation, legal)
            else:
                action = play(observation, legal)
            if action not in legal:  # never fault over a bug in our own logic
                action = legal[0]
            print(json.dumps({"id": message["id"], "action": action}), flush=True)
        elif message["type"] == "over":
            break


if __name__ == "__main__":
    main()
