"""A heuristic Badugi agent: draws toward a made hand and bets by hand strength.

Strength is the hand's percentile among all 270,725 four-card hands. The agent raises strong
hands, calls or checks medium ones and folds weak ones facing a bet; the thresholds tighten as the
draws run out. It draws to the best badugi subset of its hand, also throwing cards above a rank
limit while two or more draws are left. It reads only the observation, so it works in both the
fixed-limit and the Korean betting games.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..agents import Agent, register_agent
from ..cards import CARD_BY_TEXT, TEXT_OF
from .badugi_hands import BEST, LOW_RANK, all_hand_values, best_subset, hand_value

# (raise at or above, continue at or above) strength, by draws left 0..3
THRESHOLDS = {3: (0.85, 0.25), 2: (0.90, 0.40), 1: (0.92, 0.50), 0: (0.94, 0.55)}
# with this many draws left, also throw best-subset cards above this ace-low rank
KEEP_AT_MOST = {3: 9, 2: 10, 1: 13}
MAX_OWN_BETS = 4  # never push the betting past this many bets (matters without a cap)
_PERCENTILE: list[float] = []


def strength(value: int) -> float:
    """Fraction of all four-card hands that are weaker than ``value`` (ties count half)."""
    if not _PERCENTILE:
        counts = Counter(all_hand_values())
        total = sum(counts.values())
        below = 0
        for v in range(BEST + 1):
            _PERCENTILE.append((below + counts[v] / 2) / total)
            below += counts[v]
    return _PERCENTILE[value]


def discards(hand: list[str], draws_left: int) -> list[str]:
    """Cards to throw: those outside the best badugi subset, and high ones while draws remain.

    A made hand is kept, except that a Q or K on top is thrown with two or more draws left.
    """
    cards = [CARD_BY_TEXT[t] for t in hand]
    keep = best_subset(cards)
    if len(keep) == 4:
        if draws_left >= 2 and LOW_RANK[keep[-1]] > 11:
            keep = keep[:3]
    else:
        limit = KEEP_AT_MOST.get(draws_left, 13)
        keep = [c for c in keep if LOW_RANK[c] <= limit] or keep[:1]
    return sorted(TEXT_OF[c] for c in cards if c not in keep)


class HeuristicAgent(Agent):
    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        if observation["phase"] == "draw":
            action = "draw:" + ",".join(discards(observation["hand"], observation["draws_left"]))
            return action if action in legal else legal[0]
        return self._bet(observation, legal)

    def _bet(self, observation: dict[str, Any], legal: list[str]) -> str:
        draws_left = min(observation["draws_left"], 3)
        raise_at, continue_at = THRESHOLDS[draws_left]
        power = strength(hand_value(observation["hand"]))
        if power >= raise_at and observation["bet_count"] < MAX_OWN_BETS:
            for action in ("raise", "bet", "half"):
                if action in legal:
                    return action
        if "check" in legal:
            return "check"
        if power >= continue_at or self._cheap(observation):
            return "call"
        return "fold"

    @staticmethod
    def _cheap(observation: dict[str, Any]) -> bool:
        """Completing the small blind or calling a single small bet before the first draw."""
        stakes = observation["stakes"]
        return (
            observation["street"] == 0
            and stakes is not None
            and observation["to_call"] <= stakes[0]
            and strength(hand_value(observation["hand"])) >= 0.15
        )


@register_agent("badugi", "heuristic")
def make_heuristic(seed: int) -> Agent:
    """Deterministic: the seed is not used."""
    return HeuristicAgent()
