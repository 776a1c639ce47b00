"""A heuristic Bauer agent: calls its strongest suit, wins tricks cheaply, spares a winning partner.

Calling is judged by hand strength (bauers, trump honours, side aces). Under
docs/rules/bauer.md, "Scoring a hand and the match", only the calling team can score in a hand
with trump, and a failed call costs nothing, so calling the
best suit is never worse than letting the next (opposing) player call: the default threshold is
0, i.e. always call (self-play confirms higher thresholds lose). The agent reads only its
observation and is deterministic.
"""

from __future__ import annotations

from typing import Any

from engine.agents import Agent, register_agent
from engine.cards import CARD_BY_TEXT, RANK_OF, SUIT_OF, TEXT_OF, Card
from engine.games.bauer import DECK, effective_suits, trick_power

JACK, ACE = 11, 14
#: calling value of a trump by rank (the jacks are handled as bauers)
TRUMP_VALUE = {14: 2.0, 13: 1.5, 12: 1.2, 10: 1.0, 9: 0.8, 8: 0.8, 7: 0.8}
RIGHT_BAUER, LEFT_BAUER, SIDE_ACE = 3.0, 2.5, 1.0
CALL_THRESHOLD = 0.0


def call_value(hand: list[Card], trump: str) -> float:
    """How strong ``hand`` is with ``trump`` as trump."""
    eff = effective_suits(trump)
    value = 0.0
    for c in hand:
        if eff[c] == trump:
            if RANK_OF[c] == JACK:
                value += RIGHT_BAUER if SUIT_OF[c] == trump else LEFT_BAUER
            else:
                value += TRUMP_VALUE[RANK_OF[c]]
        elif RANK_OF[c] == ACE:
            value += SIDE_ACE
    return value


class BauerHeuristic(Agent):
    """Call: the best suit if its value reaches the threshold. Play: see :meth:`play`."""

    def __init__(self, seed: int = 0, threshold: float = CALL_THRESHOLD) -> None:
        self.threshold = threshold

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        if len(legal) == 1:
            return legal[0]
        if observation["phase"] == "call":
            return self.call(observation, legal)
        return self.play(observation, legal)

    def call(self, observation: dict[str, Any], legal: list[str]) -> str:
        hand = [CARD_BY_TEXT[t] for t in observation["hand"]]
        options = {a: call_value(hand, a[-1]) for a in legal if a != "pass"}
        best = max(sorted(options), key=options.__getitem__)
        return best if options[best] >= self.threshold else "pass"

    def play(self, observation: dict[str, Any], legal: list[str]) -> str:
        """Lead a master card (the calling team draws trumps first), else a low card.

        Following: a winning partner is left alone (lowest card); an opponent's card is beaten
        with the cheapest card nobody can beat if there is one, else the cheapest winner; a
        trick that cannot be won gets the lowest card.
        """
        trump: str | None = observation["trump"]
        seat: int = observation["seat"]
        eff = effective_suits(trump)
        options = [CARD_BY_TEXT[t] for t in legal]
        unseen = self._unseen(observation)
        trick = observation["trick"]
        if not trick:
            caller = observation["caller"]
            calling = caller is not None and caller % 2 == seat % 2
            return TEXT_OF[self._lead(options, unseen, trump, calling)]
        on_table = [CARD_BY_TEXT[p["card"]] for p in trick]
        power = trick_power(trump, eff[on_table[0]])
        best = max(range(len(on_table)), key=lambda i: power[on_table[i]])
        top = power[on_table[best]]

        def low(c: Card) -> tuple[bool, int, int]:
            return (eff[c] == trump, power[c], RANK_OF[c])

        if trick[best]["seat"] == (seat + 2) % 4:
            return TEXT_OF[min(options, key=low)]
        winners = [c for c in options if power[c] > top]
        if not winners:
            return TEXT_OF[min(options, key=low)]
        if len(trick) < 3:
            sure = [c for c in winners if not any(power[u] > power[c] for u in unseen)]
            if sure:
                return TEXT_OF[min(sure, key=power.__getitem__)]
        return TEXT_OF[min(winners, key=power.__getitem__)]

    def _lead(
        self, options: list[Card], unseen: set[Card], trump: str | None, calling: bool
    ) -> Card:
        eff = effective_suits(trump)
        if trump is not None:
            trumps = [c for c in options if eff[c] == trump]
            if calling and trumps and any(eff[u] == trump for u in unseen):
                power = trick_power(trump, trump)
                top = max(trumps, key=power.__getitem__)
                if not any(power[u] > power[top] for u in unseen):
                    return top
        plain = [c for c in options if eff[c] != trump] or options
        masters = []
        for c in plain:
            power = trick_power(trump, eff[c])
            if not any(power[u] > power[c] for u in unseen if eff[u] == eff[c]):
                masters.append(c)
        if masters:
            return max(masters, key=RANK_OF.__getitem__)
        return min(plain, key=RANK_OF.__getitem__)

    @staticmethod
    def _unseen(observation: dict[str, Any]) -> set[Card]:
        """Cards that may still be in another player's hand."""
        seen = {CARD_BY_TEXT[t] for t in observation["hand"]}
        for trick in observation["tricks"]:
            seen.update(CARD_BY_TEXT[t] for t in trick["cards"])
        seen.update(CARD_BY_TEXT[p["card"]] for p in observation["trick"])
        return {c for c in DECK if c not in seen}


@register_agent("bauer", "heuristic")
def make_heuristic(seed: int) -> Agent:
    return BauerHeuristic(seed)
