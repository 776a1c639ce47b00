"""A heuristic Barbu bot: picks the contract its hand suits, ducks tricks, dumps danger cards.

Standalone (standard library only); see minimal.py for the protocol explained.
"""

import json
import sys
from collections import Counter

RANK = {r: i for i, r in enumerate("23456789TJQKA")}
NEGATIVE = ("no_tricks", "no_hearts", "no_queens", "no_king_of_hearts", "no_last_two")


def high_cards(hand: list[str]) -> int:
    return sum(1 for c in hand if c[0] in "AKQ")


def contract_value(action: str, hand: list[str]) -> float:
    """A rough desirability of declaring ``action`` with ``hand`` (higher is better)."""
    parts = action.split(":")
    name = parts[1]
    lows = sum(1 for c in hand if RANK[c[0]] <= RANK["7"])
    if name == "trumps":
        suit = parts[2]
        trumps = [c for c in hand if c[1] == suit]
        return 3 * len(trumps) + 2 * sum(1 for c in trumps if c[0] in "AKQJ") + high_cards(hand)
    if name == "domino":
        rank = parts[2]
        counts = Counter(c[0] for c in hand)
        # starting at a rank we hold several of lets us open suits; middle ranks keep runs short
        return 4 * counts[rank] - abs(RANK[rank] - RANK["8"]) + 2
    if name == "no_tricks":
        return 2 * lows - 3 * high_cards(hand)
    if name == "no_hearts":
        hearts = [c for c in hand if c[1] == "h"]
        return 10 - 2 * sum(1 for c in hearts if RANK[c[0]] > RANK["8"]) - len(hearts) // 2
    if name == "no_queens":
        return 9 - 4 * sum(1 for c in hand if c[0] == "Q") - sum(1 for c in hand if c[0] in "AK")
    if name == "no_king_of_hearts":
        hearts = sum(1 for c in hand if c[1] == "h")
        return 11 - (8 if "Kh" in hand and hearts < 4 else 0) - (3 if "Ah" in hand else 0)
    if name == "no_last_two":
        return 8 + lows - 2 * high_cards(hand)
    return 0.0


def declare(observation: dict, legal: list[str]) -> str:
    hand = observation["hand"]
    return max(legal, key=lambda a: contract_value(a, hand))


def winner_strength(card: str, led: str, trump: str | None) -> int:
    if trump and card[1] == trump:
        return 100 + RANK[card[0]]
    return RANK[card[0]] if card[1] == led else -1


def danger(card: str, contract: str) -> int:
    """How much we want to get rid of ``card`` when we cannot follow suit."""
    value = RANK[card[0]]
    if contract == "no_king_of_hearts" and card == "Kh":
        return 100
    if contract == "no_queens" and card[0] == "Q":
        return 90
    if contract == "no_hearts" and card[1] == "h":
        return 50 + value
    return value


def play(observation: dict, legal: list[str]) -> str:
    contract, trump, trick = observation["contract"], observation["trump"], observation["trick"]
    if contract == "trumps":  # positive: win tricks cheaply
        if not trick:
            return max(legal, key=lambda c: winner_strength(c, c[1], trump))
        led = trick[0]["card"][1]
        best = max(winner_strength(t["card"], led, trump) for t in trick)
        winners = [c for c in legal if winner_strength(c, led, trump) > best]
        if winners:
            return min(winners, key=lambda c: winner_strength(c, led, trump))
        return min(legal, key=lambda c: (c[1] == trump, RANK[c[0]]))
    if not trick:  # negative contracts: lead low
        return min(legal, key=lambda c: RANK[c[0]])
    led = trick[0]["card"][1]
    if legal[0][1] != led:  # void: discard the most dangerous card
        return max(legal, key=lambda c: danger(c, contract))
    best = max(RANK[t["card"][0]] for t in trick if t["card"][1] == led)
    under = [c for c in legal if RANK[c[0]] < best]
    if under:
        return max(under, key=lambda c: RANK[c[0]])  # duck as high as safely possible
    if len(trick) == 3:  # we win anyway: take it with our highest card of the suit
        return max(legal, key=lambda c: RANK[c[0]])
    return min(legal, key=lambda c: RANK[c[0]])


def domino(observation: dict, legal: list[str]) -> str:
    cards = [a for a in legal if a != "pass"]
    if not cards:
        return "pass"
    suits = Counter(c[1] for c in observation["hand"])
    # extend the suits where we hold most cards: that keeps our own future moves open
    return max(cards, key=lambda c: (suits[c[1]], -abs(RANK[c[0]] - RANK["8"])))


def choose(observation: dict, legal: list[str]) -> str:
    phase = observation["phase"]
    if phase == "declare":
        return declare(observation, legal)
    if phase == "play":
        return play(observation, legal)
    if phase == "domino":
        return domino(observation, legal)
    if phase == "double":
        return "double:none" if "double:none" in legal else legal[0]
    return legal[0]


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            print(json.dumps({"type": "ready"}), flush=True)
        elif message["type"] == "act":
            action = choose(message["observation"], message["legal"])
            if action not in message["legal"]:
                action = message["legal"][0]
            print(json.dumps({"id": message["id"], "action": action}), flush=True)
        elif message["type"] == "over":
            break


if __name__ == "__main__":
    main()
