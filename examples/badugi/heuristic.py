"""A heuristic Badugi bot: keeps its best badugi subset, bets by hand class and draws left.

Standalone (standard library only); see minimal.py for the protocol explained.
"""

import json
import sys
from itertools import combinations

RANK = {r: i for i, r in enumerate("A23456789TJQK", start=1)}  # ace low


def best_subset(hand: list[str]) -> list[str]:
    """The best badugi subset: most cards with distinct suits and ranks, then lowest ranks."""
    for size in (4, 3, 2, 1):
        candidates = [
            combo
            for combo in combinations(hand, size)
            if len({c[0] for c in combo}) == size and len({c[1] for c in combo}) == size
        ]
        if candidates:
            return list(
                min(candidates, key=lambda s: sorted((RANK[c[0]] for c in s), reverse=True))
            )
    return []


def draw(observation: dict, legal: list[str]) -> str:
    hand = observation["hand"]
    keep = best_subset(hand)
    top = max((RANK[c[0]] for c in keep), default=13)
    # a made hand with a high top card is worth breaking while draws remain
    if len(keep) == 4 and top >= RANK["J"] and observation["draws_left"] > 1:
        keep = sorted(keep, key=lambda c: RANK[c[0]])[:3]
    discard = {c for c in hand if c not in keep}
    for action in legal:
        cards = action[len("draw:") :]
        if set(filter(None, cards.split(","))) == discard:
            return action
    return "draw:"


def bet(observation: dict, legal: list[str]) -> str:
    keep = best_subset(observation["hand"])
    top = max(RANK[c[0]] for c in keep)
    draws_left = observation["draws_left"]
    made = len(keep) == 4
    if made and top <= 9 or (made and draws_left == 0 and top <= RANK["Q"]):
        strength = 3  # strong: bet and raise
    elif made or (len(keep) == 3 and draws_left > 0 and top <= 7):
        strength = 2  # decent: call
    elif len(keep) == 3 and draws_left >= 2:
        strength = 1  # drawing: continue cheaply
    else:
        strength = 0
    if strength == 3:
        for action in ("raise", "bet", "call", "check"):
            if action in legal:
                return action
    if strength >= 1 and ("call" in legal and (strength == 2 or observation["to_call"] <= 2)):
        return "call"
    if "check" in legal:
        return "check"
    return "call" if strength >= 2 and "call" in legal else "fold"


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            print(json.dumps({"type": "ready"}), flush=True)
        elif message["type"] == "act":
            observation, legal = message["observation"], message["legal"]
            action = (
                draw(observation, legal)
                if observation["phase"] == "draw"
                else bet(observation, legal)
            )
            if action not in legal:
                action = legal[0]
            print(json.dumps({"id": message["id"], "action": action}), flush=True)
        elif message["type"] == "over":
            break


if __name__ == "__main__":
    main()
