"""A heuristic Belote agent: bids on trump strength, wins tricks cheaply, feeds a winning partner.

It reads only its observation (like a sandboxed bot would) and is deterministic: the seed is
accepted for the factory signature but not needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.agents import Agent, register_agent
from engine.cards import CARD_BY_TEXT, SUIT_OF, TEXT_OF, Card
from engine.games.belote import DECK, SUITS, card_points, rank_strengths, trick_power

# Bidding value of a trump by rank, and of a plain ace / ten (ranks J 9 A 10 ...:
# docs/rules/belote.md, "Card order and card points").
TRUMP_VALUE = {"J": 4.0, "9": 3.0, "A": 2.0, "T": 1.5, "K": 1.0, "Q": 1.0, "8": 0.5, "7": 0.5}
PLAIN_ACE, PLAIN_TEN_WITH_ACE = 1.5, 0.75
EXTRA_TRUMP = 0.5  # each trump beyond the second
BELOTE_VALUE = 1.0
TAKE_THRESHOLD = 6.5  # value of the 6 cards the taker will hold (5 + upcard); tuned in self-play
TRUMP_STRENGTH = rank_strengths(True)
PLAIN_STRENGTH = rank_strengths(False)


def bid_value(hand: Sequence[Card], trump: str) -> float:
    """How strong ``hand`` is as a taker's hand with ``trump`` as trump."""
    value = 0.0
    trumps = 0
    ranks_by_suit: dict[str, set[str]] = {s: set() for s in SUITS}
    for c in hand:
        rank, suit = TEXT_OF[c][0], SUIT_OF[c]
        ranks_by_suit[suit].add(rank)
        if suit == trump:
            trumps += 1
            value += TRUMP_VALUE[rank]
    for suit, ranks in ranks_by_suit.items():
        if suit == trump:
            continue
        if "A" in ranks:
            value += PLAIN_ACE + (PLAIN_TEN_WITH_ACE if "T" in ranks else 0.0)
    value += EXTRA_TRUMP * max(0, trumps - 2)
    if {"K", "Q"} <= ranks_by_suit[trump]:
        value += BELOTE_VALUE
    return value


class BeloteHeuristic(Agent):
    """Bid: take when the hand plus the upcard values above a threshold. Play: see :meth:`play`."""

    def __init__(self, seed: int = 0, threshold: float = TAKE_THRESHOLD) -> None:
        self.threshold = threshold

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        if len(legal) == 1:
            return legal[0]
        phase = observation["phase"]
        if phase == "bid1" or phase == "bid2":
            return self.bid(observation, legal)
        return self.play(observation, legal)

    # -- bidding ---------------------------------------------------------------------------

    def bid(self, observation: dict[str, Any], legal: list[str]) -> str:
        upcard = CARD_BY_TEXT[observation["upcard"]]
        hand = [CARD_BY_TEXT[t] for t in observation["hand"]] + [upcard]
        if "take" in legal:
            options = {"take": bid_value(hand, SUIT_OF[upcard])}
        else:
            options = {a: bid_value(hand, a[-1]) for a in legal if a != "pass"}
        best = max(sorted(options), key=options.__getitem__)
        return best if options[best] >= self.threshold else "pass"

    # -- play ------------------------------------------------------------------------------

    def play(self, observation: dict[str, Any], legal: list[str]) -> str:
        """Lead masters (attackers draw trumps first), else win cheaply or discard cheaply.

        Following: if the partner is winning for sure (last to play or master card), add
        points; if an opponent is winning, beat it with the cheapest winning card, preferring
        a card nobody can beat; if the trick cannot be won, throw the cheapest card.
        """
        trump: str = observation["trump"]
        seat: int = observation["seat"]
        points = card_points(trump)
        options = [CARD_BY_TEXT[t] for t in legal]
        unseen = self._unseen(observation)
        trick = observation["trick"]
        if not trick:
            return TEXT_OF[self._lead(options, unseen, trump, observation["taker"] % 2 == seat % 2)]
        cards_on_table = [CARD_BY_TEXT[p["card"]] for p in trick]
        power = trick_power(trump, SUIT_OF[cards_on_table[0]])
        best = max(range(len(cards_on_table)), key=lambda i: power[cards_on_table[i]])
        top = power[cards_on_table[best]]
        last = len(trick) == 3
        partner_winning = trick[best]["seat"] == (seat + 2) % 4

        def cheap(c: Card) -> tuple[int, int, int]:
            return (SUIT_OF[c] == trump, points[c], power[c])

        if partner_winning:
            safe = last or not any(power[c] > top for c in unseen)
            if safe:
                plain = [c for c in options if SUIT_OF[c] != trump]
                gifts = [c for c in plain if not self._is_master(c, unseen, trump)]
                pool = gifts or plain or options
                return TEXT_OF[max(pool, key=lambda c: (points[c], -power[c]))]
            return TEXT_OF[min(options, key=cheap)]
        winners = [c for c in options if power[c] > top]
        if winners:
            if not last:
                sure = [c for c in winners if not any(power[u] > power[c] for u in unseen)]
                if sure:
                    return TEXT_OF[min(sure, key=lambda c: power[c])]
            return TEXT_OF[min(winners, key=lambda c: (power[c], points[c]))]
        return TEXT_OF[min(options, key=cheap)]

    def _lead(self, options: list[Card], unseen: set[Card], trump: str, attacking: bool) -> Card:
        points = card_points(trump)
        trumps = [c for c in options if SUIT_OF[c] == trump]
        trumps_out = any(SUIT_OF[c] == trump for c in unseen)
        if attacking and trumps and trumps_out:
            top = max(trumps, key=TRUMP_STRENGTH.__getitem__)
            if self._is_master(top, unseen, trump):
                return top
        masters = [c for c in options if SUIT_OF[c] != trump and self._is_master(c, unseen, trump)]
        if masters:
            return max(masters, key=lambda c: (points[c], PLAIN_STRENGTH[c]))
        plain = [c for c in options if SUIT_OF[c] != trump] or options
        return min(plain, key=lambda c: (points[c], PLAIN_STRENGTH[c], TRUMP_STRENGTH[c]))

    @staticmethod
    def _is_master(c: Card, unseen: set[Card], trump: str) -> bool:
        """No unseen card of the same suit ranks above ``c``."""
        suit = SUIT_OF[c]
        strength = TRUMP_STRENGTH if suit == trump else PLAIN_STRENGTH
        return not any(SUIT_OF[u] == suit and strength[u] > strength[c] for u in unseen)

    @staticmethod
    def _unseen(observation: dict[str, Any]) -> set[Card]:
        """Cards that may still be in another player's hand."""
        seen = {CARD_BY_TEXT[t] for t in observation["hand"]}
        for trick in observation["tricks"]:
            seen.update(CARD_BY_TEXT[t] for t in trick["cards"])
        seen.update(CARD_BY_TEXT[p["card"]] for p in observation["trick"])
        return {c for c in DECK if c not in seen}


@register_agent("belote", "heuristic")
def make_heuristic(seed: int) -> Agent:
    return BeloteHeuristic(seed)
