"""A heuristic Barbu agent: declares from its hand, ducks in the negative contracts, wins tricks
cheaply in Trumps, builds toward its own cards in Domino, designates when its hand looks good.

It reads only its observation and the game's parameters (from ``start``), like a sandboxed bot.
Play is one expected-cost rule for every trick contract: a card's cost is the chance it wins the
trick times what the trick is worth (its penalty cards, the trick itself, the last-trick
penalties) minus the value of getting rid of it (penalty cards and high cards are liabilities
while held). Deterministic: the seed is accepted for the factory signature only.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.agents import Agent, register_agent
from engine.cards import CARD_BY_TEXT, RANK_VALUE, SUITS, TEXT_OF
from engine.games.barbu_rules import (
    DECK_32,
    DECK_52,
    DOMINO_POINTS,
    SALAD_RULES,
    STANDARD_RULES,
    ContractRules,
)

TRUMP_TRICK = 5  # Trumps: +5 per trick (the positive trick contract)
DOUBLE_ALL_MARGIN = 2.0  # designate everyone when the hand looks this much better than average
DOUBLE_NONE_MARGIN = -4.0  # designate nobody below this


def _rank(x: str) -> int:
    return RANK_VALUE[x[0]]


def _by_suit(cards: Iterable[str]) -> dict[str, list[int]]:
    suits: dict[str, list[int]] = {s: [] for s in SUITS}
    for x in cards:
        suits[x[1]].append(RANK_VALUE[x[0]])
    for ranks in suits.values():
        ranks.sort()
    return suits


def _strength(rank: int, low: int) -> float:
    """How likely a card of ``rank`` is to win a trick in no-trump play (0 for low cards)."""
    t = (rank - low) / (14 - low)
    return float(max(0.0, (t - 0.42) / 0.58) ** 1.5)


def _calibration(low: int) -> float:
    """Scale so that a random hand's summed strength is the average trick share (N/4)."""
    ranks = range(low, 15)
    mean = sum(_strength(r, low) for r in ranks) / len(ranks)
    return 0.25 / mean


SCALE = {2: _calibration(2), 7: _calibration(7)}
#: per lowest rank, a random card's mean distance from the middle rank (Domino's baseline)
RANDOM_DISTANCE = {
    low: sum(abs(r - (low + (14 - low) // 2)) for r in range(low, 15)) / (14 - low + 1)
    for low in (2, 7)
}


def features(hand: Sequence[str], low: int) -> list[float]:
    """Hand features for the declaration model (the weights below were fitted on them)."""
    suits = _by_suit(hand)
    hearts = suits["h"]
    high = low + (14 - low) * 3 // 4  # J in 52 cards, Q in 32
    return [
        1.0,
        SCALE[low] * sum(_strength(_rank(x), low) for x in hand),
        float(len(hearts)),
        float(sum(1 for r in hearts if r >= high)),
        float(14 in hearts),
        float(13 in hearts),
        float(sum(1 for ranks in suits.values() if 12 in ranks)),
        float(sum(1 for x in hand if _rank(x) <= low + 3)),
        float(sum(1 for ranks in suits.values() if len(ranks) <= 1)),
    ]


# Least-squares weights over :func:`features`, fitted on 400 Geronimo games of four heuristic
# agents per deck: the expected units taken in each negative contract (tricks; hearts counted in
# 2-point units, so A♥ = 3; queens; the K♥ (probability); share of the last-tricks penalty).
UNIT_WEIGHTS = {
    2: {
        "tricks": (1.489, 1.088, -0.018, -0.008, -0.102, 0.002, 0.067, -0.353, -0.921),
        "hearts": (5.036, 1.014, -0.549, 0.064, -0.708, -0.043, 0.095, -0.611, -0.847),
        "queens": (0.131, 0.049, 0.005, -0.001, -0.003, -0.073, 0.808, -0.020, -0.040),
        "king_of_hearts": (0.382, 0.074, -0.039, -0.047, 0.009, -0.188, 0.004, -0.035, -0.049),
        "last": (0.602, 0.010, -0.011, -0.002, -0.027, -0.001, 0.003, -0.085, 0.000),
    },
    7: {
        "tricks": (2.452, 0.766, -0.041, -0.001, -0.072, 0.032, 0.048, -0.408, -0.235),
        "hearts": (4.049, 0.977, -0.213, -0.190, -0.474, -0.103, 0.193, -0.518, -0.674),
        "queens": (-0.123, 0.331, -0.001, 0.043, -0.092, -0.038, 0.455, -0.017, 0.057),
        "king_of_hearts": (0.542, 0.070, -0.043, -0.065, 0.034, -0.114, 0.007, -0.052, -0.058),
        "last": (0.628, 0.010, -0.018, 0.009, 0.009, 0.027, 0.003, -0.091, -0.013),
    },
}


class HandModel:
    """Expected units one hand takes in the negative contracts, and its Trumps / Domino value."""

    def __init__(self, hand: Sequence[str], low: int) -> None:
        self.low = low
        self.num_tricks = 13 if low == 2 else 8
        self.suits = _by_suit(hand)
        f = features(hand, low)
        units = {
            name: max(0.0, sum(w * x for w, x in zip(weights, f, strict=True)))
            for name, weights in UNIT_WEIGHTS[low].items()
        }
        self.units = units
        self.ranks = [r for ranks in self.suits.values() for r in ranks]
        self.dominoes: dict[int, float] = {}  # Domino's values by rank, each computed once

    def expected(self, rules: ContractRules) -> float:
        """Expected deal score of a negative contract (Salad's included) for this hand."""
        values = rules.card_values
        heart = values[CARD_BY_TEXT["2h"]]
        queen = values[CARD_BY_TEXT["Qs"]]
        king = values[CARD_BY_TEXT["Kh"]] - heart
        u = self.units
        score = rules.per_trick * u["tricks"] + heart * u["hearts"] + queen * u["queens"]
        score += king * u["king_of_hearts"] + (rules.last + rules.second_last) * u["last"]
        return score

    def trumps(self, trump: str) -> float:
        """Expected Trumps score with ``trump`` as trump."""
        tricks = 0.0
        for suit, ranks in self.suits.items():
            top = 14
            for r in sorted(ranks, reverse=True):
                if suit == trump:
                    tricks += 1.0 if r >= top else 0.6 if r >= 11 else 0.35
                elif r >= top and len(ranks) <= 5:
                    tricks += 0.9
                elif r == top - 1 and len(ranks) >= 2:
                    tricks += 0.45
                top = r - 1 if r >= top else top
        tricks += 0.5 * max(0, len(self.suits[trump]) - self.num_tricks // 3)
        return TRUMP_TRICK * min(tricks, self.num_tricks)

    def domino(self, rank: int) -> float:
        """Expected Domino score when ``rank`` is declared: cards near it come out early."""
        value = self.dominoes.get(rank)
        if value is None:
            cards = self.ranks
            distance = sum(abs(r - rank) for r in cards) / max(1, len(cards))
            span = 14 - self.low
            average = sum(DOMINO_POINTS) / 4
            value = average + 12.0 * (RANDOM_DISTANCE[self.low] - distance) * 12 / span
            self.dominoes[rank] = value
        return value


def declaration_value(model: HandModel, action: str, rules: Mapping[str, ContractRules]) -> float:
    """Expected score of a declaration action (``contract:trumps:s``) for ``model``'s hand."""
    _, name, *extra = action.split(":")
    if name == "trumps":
        return model.trumps(extra[0])
    if name == "domino":
        return model.domino(RANK_VALUE[extra[0]])
    return model.expected(rules[name])


def contract_baseline(name: str, low: int, rules: Mapping[str, ContractRules]) -> float:
    """A player's average score in contract ``name`` (the contract total / 4)."""
    if name == "domino":
        return sum(DOMINO_POINTS) / 4
    num_tricks = 13 if low == 2 else 8
    if name == "trumps":
        return TRUMP_TRICK * num_tricks / 4
    return _trick_contract_total(rules[name], low) / 4


@functools.lru_cache(maxsize=32)
def _trick_contract_total(contract: ContractRules, low: int) -> float:
    """What a trick contract hands out in a deal of the deck from ``low`` (its tricks and the
    cards' values summed, once per contract and deck: the luck's value asks for every hand)."""
    num_tricks = 13 if low == 2 else 8
    deck = DECK_32 if low == 7 else DECK_52
    total = contract.per_trick * num_tricks + contract.last + contract.second_last
    return float(total + sum(contract.card_values[c] for c in deck))


def best_declaration(
    model: HandModel, legal: Sequence[str], rules: Mapping[str, ContractRules], *, relative: bool
) -> str:
    """The heuristic's declaration for ``model``'s hand among ``legal``: the highest expected
    score, or with ``relative`` (Geronimo: every contract comes once) the highest above the
    contract's average."""
    low = model.low
    baselines: dict[str, float] = {}  # per contract, once: the sum over the deck is not cheap

    def merit(action: str) -> float:
        value = declaration_value(model, action, rules)
        if relative:
            name = action.split(":")[1]
            if name not in baselines:
                baselines[name] = contract_baseline(name, low, rules)
            value -= baselines[name]
        return value

    return max(legal, key=merit)


class BarbuHeuristic(Agent):
    """See the module docstring; ``act`` dispatches on the observation's phase."""

    def __init__(self, seed: int = 0) -> None:
        self.params: dict[str, Any] = {}

    def start(self, info: dict[str, Any]) -> None:
        self.params = dict(info.get("params") or {})

    # -- helpers --------------------------------------------------------------------------------

    @property
    def _rules(self) -> dict[str, ContractRules]:
        return SALAD_RULES if self.params.get("salad") else STANDARD_RULES

    def _low(self, obs: dict[str, Any]) -> int:
        if "deck" in self.params:
            return 7 if self.params["deck"] == 32 else 2
        played = sum(len(t["cards"]) for t in obs["tricks"]) + len(obs["trick"])
        played += sum(1 for m in obs["domino_moves"] if m["action"] != "pass")
        return 7 if sum(obs["hand_sizes"]) + played == 32 else 2

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        if len(legal) == 1:
            return legal[0]
        phase = observation["phase"]
        if phase == "declare":
            return self.declare(observation, legal)
        if phase == "double":
            return self.designate(observation, legal)
        if phase == "domino":
            return self.domino(observation, legal)
        if observation["contract"] == "trumps":
            return self.play_trumps(observation, legal)
        return self.play_negative(observation, legal)

    # -- declaration and doubling -------------------------------------------------------------

    def declare(self, obs: dict[str, Any], legal: list[str]) -> str:
        relative = obs["contracts_left"] is not None  # Geronimo: every contract comes once
        model = HandModel(obs["hand"], self._low(obs))
        return best_declaration(model, legal, self._rules, relative=relative)

    def designate(self, obs: dict[str, Any], legal: list[str]) -> str:
        low = self._low(obs)
        model = HandModel(obs["hand"], low)
        name = obs["contract"]
        if name == "trumps":
            action = f"contract:trumps:{obs['trump']}"
        elif name == "domino":
            action = f"contract:domino:{obs['domino_rank']}"
        else:
            action = f"contract:{name}"
        rules = self._rules
        margin = declaration_value(model, action, rules) - contract_baseline(name, low, rules)
        gain_only = self.params.get("doubling_payout") == "proposer_gain_only"
        sets = {a: _targets(a, obs["seat"]) for a in legal}
        if gain_only or margin >= DOUBLE_ALL_MARGIN:
            return max(legal, key=lambda a: (len(sets[a]), a))
        if margin < DOUBLE_NONE_MARGIN and "double:none" in legal:
            return "double:none"
        # in between: bet against one other non-declarer (the declarer chose this contract)
        declarer = obs["declarer"]
        singles = [a for a in legal if len(sets[a]) == 1 and declarer not in sets[a]]
        if singles:
            return singles[0]
        return "double:none" if "double:none" in legal else legal[0]

    # -- trick contracts ----------------------------------------------------------------------

    def _unseen(self, obs: dict[str, Any], low: int) -> set[str]:
        deck = DECK_32 if low == 7 else DECK_52
        seen = set(obs["hand"])
        for t in obs["tricks"]:
            seen.update(t["cards"])
        seen.update(p["card"] for p in obs["trick"])
        return {TEXT_OF[c] for c in deck} - seen

    def play_negative(self, obs: dict[str, Any], legal: list[str]) -> str:
        low = self._low(obs)
        rules = self._rules[obs["contract"]]
        values = rules.card_values
        num_tricks = 13 if low == 2 else 8
        number = len(obs["tricks"]) + 1
        unseen = self._unseen(obs, low)
        unseen_suits = _by_suit(unseen)

        def cost(x: str) -> int:
            return -values[CARD_BY_TEXT[x]]

        trick_cost = -rules.per_trick
        if number == num_tricks:
            trick_cost -= rules.last
        elif number == num_tricks - 1:
            trick_cost -= rules.second_last
        future = (
            -(rules.per_trick * 1.0 + rules.second_last + rules.last)
            if number < (num_tricks - 1)
            else 0.0
        )
        average_unseen = sum(cost(x) for x in unseen) / len(unseen) if unseen else 0.0
        trick = obs["trick"]
        after = 3 - len(trick)
        on_table = trick_cost + sum(cost(p["card"]) for p in trick)
        led = trick[0]["card"][1] if trick else None
        best = max((_rank(p["card"]) for p in trick if p["card"][1] == led), default=0)

        def higher_unseen(x: str) -> int:
            r = _rank(x)
            return sum(1 for u in unseen_suits[x[1]] if u > r)

        def win_chance(x: str) -> float:
            if led is not None and (x[1] != led or _rank(x) < best):
                return 0.0
            if after == 0:
                return 1.0
            above = higher_unseen(x)
            if not unseen_suits[x[1]]:
                return 1.0  # nobody else holds the suit
            return 1.0 / (1.0 + above * after / 1.5)

        def liability(x: str) -> float:
            """What holding ``x`` may still cost: penalty cards and likely trick winners."""
            boss = 1.0 / (1.0 + higher_unseen(x))
            return 0.6 * cost(x) + boss * (future + 2.0 * average_unseen) * 0.5

        def expected(x: str) -> float:
            inflow = after * average_unseen * 0.6
            return win_chance(x) * (on_table + cost(x) + inflow) - liability(x)

        return min(legal, key=lambda x: (expected(x), -_rank(x), x))

    def play_trumps(self, obs: dict[str, Any], legal: list[str]) -> str:
        low = self._low(obs)
        trump = obs["trump"]
        unseen = self._unseen(obs, low)
        unseen_suits = _by_suit(unseen)
        trick = obs["trick"]
        hand_suits = _by_suit(obs["hand"])

        def power(x: str, led: str) -> int:
            if x[1] == trump:
                return 100 + _rank(x)
            return _rank(x) if x[1] == led else 0

        def boss(x: str) -> bool:
            return all(u < _rank(x) for u in unseen_suits[x[1]])

        if not trick:
            trumps_out = bool(unseen_suits[trump])
            bosses = [x for x in legal if boss(x) and (x[1] == trump or unseen_suits[x[1]])]
            trump_bosses = [x for x in bosses if x[1] == trump]
            if trump_bosses and trumps_out:
                return max(trump_bosses, key=_rank)
            side = [x for x in bosses if x[1] != trump]
            if side:
                return max(side, key=lambda x: (len(unseen_suits[x[1]]), _rank(x)))
            non_trump = [x for x in legal if x[1] != trump] or legal
            return min(non_trump, key=lambda x: (len(hand_suits[x[1]]), _rank(x)))
        led = trick[0]["card"][1]
        top = max(power(p["card"], led) for p in trick)
        after = 3 - len(trick)
        winners = [x for x in legal if power(x, led) > top]
        if winners:
            if after == 0:
                return min(winners, key=lambda x: power(x, led))
            trumps_out = bool(unseen_suits[trump])
            safe = [
                x
                for x in winners
                if boss(x)
                and (x[1] == trump or not trumps_out or len(unseen_suits[led]) >= 2 * after)
            ]
            if safe:
                return min(safe, key=lambda x: power(x, led))
            trumping = [x for x in winners if x[1] == trump and led != trump]
            if trumping:
                return min(trumping, key=_rank)
            if after == 1:
                return min(winners, key=lambda x: power(x, led))
        non_trump = [x for x in legal if x[1] != trump] or legal
        return min(non_trump, key=lambda x: (_rank(x), len(hand_suits[x[1]])))

    # -- domino ---------------------------------------------------------------------------------

    def domino(self, obs: dict[str, Any], legal: list[str]) -> str:
        low = self._low(obs)
        hand = _by_suit(obs["hand"])
        unseen = _by_suit(self._unseen_domino(obs, low))
        layout = obs["layout"]

        def merit(x: str) -> tuple[float, int]:
            r, suit = _rank(x), x[1]
            mine = hand[suit]
            others = unseen[suit]
            run = layout[suit]
            if run is None:  # opening a suit frees both directions
                own = sum(1 for m in mine if m != r)
                freed = sum(1 for u in others if abs(u - r) == 1)
            elif r < RANK_VALUE[run[0]]:
                own = sum(1 for m in mine if m < r)
                freed = sum(1 for u in others if u == r - 1)
            else:
                own = sum(1 for m in mine if m > r)
                freed = sum(1 for u in others if u == r + 1)
            return (2.0 * own - 1.0 * freed, -abs(r - RANK_VALUE[obs["domino_rank"]]))

        return max(legal, key=lambda x: (merit(x), x))

    def _unseen_domino(self, obs: dict[str, Any], low: int) -> set[str]:
        deck = DECK_32 if low == 7 else DECK_52
        seen = set(obs["hand"])
        seen.update(m["action"] for m in obs["domino_moves"] if m["action"] != "pass")
        return {TEXT_OF[c] for c in deck} - seen


def _targets(action: str, seat: int) -> set[int]:
    """Seats named by a designation action (``all``: the three others, for ranking only)."""
    spec = action.split(":")[1]
    if spec == "none":
        return set()
    if spec == "all":
        return {0, 1, 2, 3} - {seat}
    return {int(t) for t in spec.split(",")}


@register_agent("barbu", "heuristic")
def make_heuristic(seed: int) -> Agent:
    return BarbuHeuristic(seed)
