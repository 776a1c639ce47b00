"""Cheap features of a hand at a chance event, for the fitted value estimates of engine.luck.

A position is valued from each seat's cards and the little that is known at the event
(:class:`Position`): which weights apply (``key``), the seat the roles are counted from
(``anchor``: the dealer, or Belote's taker) and the suit the features are relative to (Belote's
upcard or trump); in Barbu also the declarations the dealer may choose between after seeing his
hand, read with the game's earlier deals, and how often he chose as the heuristic does. A
game's ``hand`` function turns one hand (card texts) into a short list of numbers; the weights
that make a value of them are fitted offline (``benchmarks/fit_luck.py``) and stored in
``engine/luck_weights.json``.

Every function reads only the cards and the deals' own records, never a playout, so a position
costs a few dozen additions per hand (Barbu's, one position per contract, a few hundred).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .game import State
from .games.barbu_agent import HandModel, best_declaration
from .games.barbu_rules import STANDARD_RULES, contract_actions

#: Belote's trump order, lowest first, and its card points (docs/rules/belote.md)
BELOTE_TRUMP_POINTS: Final = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
RANK_VALUES: Final = {r: v for v, r in enumerate("23456789TJQKA", start=2)}
SUITS: Final = "cdhs"
#: Bauer's left bauer: the jack of the trump's colour
SAME_COLOUR: Final = {"h": "d", "d": "h", "s": "c", "c": "s"}


@dataclass(frozen=True)
class Position:
    """What a position's value depends on besides the hands (the same in every rearrangement)."""

    key: str  # the weights' name within the game: "deal", "complete", Barbu's contract
    anchor: int  # roles are seats counted from this one
    suit: str = ""  # the suit features are relative to (Barbu: trump suits or Domino ranks)
    options: tuple[str, ...] = ()  # the declarations the anchor chooses between (Barbu)
    #: (Barbu) of the anchor's earlier declarations that had options, how many were the
    #: heuristic's pick, and how many there were
    agreed: tuple[int, int] = (0, 0)


def belote_position(state: State, earlier: Sequence[Mapping[str, Any]]) -> Position:
    """Before the bid: the upcard's suit, roles from the dealer; after the completing deal: the
    trump, roles from the taker."""
    record = state.deals[0]
    info = record.info
    if "taker" in info:
        return Position("complete", int(info["taker"]), str(info["trump"]))
    return Position("deal", record.dealer, str(info["upcard"])[1])


def belote_hand(position: Position, hand: Sequence[str]) -> list[float]:
    """Trump holdings in ``position.suit`` (count, the jack, nine, ace, ten, the belote pair and
    the trump points), side aces, tens, kings, jacks and nines, the longest side suit, side
    voids and the best other suit's trump points (a second-round bid)."""
    trump = position.suit
    in_trump = [c[0] for c in hand if c[1] == trump]
    side = [c for c in hand if c[1] != trump]
    side_ranks = [c[0] for c in side]
    lengths = {s: 0 for s in SUITS if s != trump}
    points = {s: 0 for s in SUITS if s != trump}
    for c in side:
        lengths[c[1]] += 1
        points[c[1]] += BELOTE_TRUMP_POINTS[c[0]]
    return [
        len(in_trump),
        float("J" in in_trump),
        float("9" in in_trump),
        float("A" in in_trump),
        float("T" in in_trump),
        float("K" in in_trump and "Q" in in_trump),
        sum(BELOTE_TRUMP_POINTS[r] for r in in_trump) / 10,
        side_ranks.count("A"),
        side_ranks.count("T"),
        side_ranks.count("K"),
        side_ranks.count("J"),
        side_ranks.count("9"),
        max(lengths.values()),
        sum(1 for n in lengths.values() if n == 0),
        max(points.values()) / 10,
    ]


def bauer_position(state: State, earlier: Sequence[Mapping[str, Any]]) -> Position:
    """Every card is dealt at once: roles from the dealer, no suit yet."""
    return Position("deal", state.deals[0].dealer)


def _bauer_strength(hand: Sequence[str], trump: str) -> tuple[int, int, int, int]:
    """``hand`` with ``trump`` called: its trumps (the left bauer among them), the right and
    left bauer and the trump ace."""
    right = f"J{trump}" in hand
    left = f"J{SAME_COLOUR[trump]}" in hand
    count = sum(1 for c in hand if c[1] == trump) + left
    return count, int(right), int(left), int(f"A{trump}" in hand)


def bauer_hand(position: Position, hand: Sequence[str]) -> list[float]:
    """The best trump the hand could call (trumps, bauers, ace, and their sum as a strength),
    the second best suit's strength, jacks, side aces and kings, and voids."""
    strengths = sorted(
        ((count + 2 * right + left + ace, count, right, left, ace)
         for count, right, left, ace in (_bauer_strength(hand, t) for t in SUITS)),
        reverse=True,
    )  # fmt: skip
    best, count, right, left, ace = strengths[0]
    ranks = [c[0] for c in hand]
    suits = {c[1] for c in hand}
    return [
        best,
        count,
        right,
        left,
        ace,
        strengths[1][0],
        ranks.count("J"),
        ranks.count("A"),
        ranks.count("K"),
        4 - len(suits),
    ]


def barbu_position(state: State, earlier: Sequence[Mapping[str, Any]]) -> Position:
    """Every card is dealt at once and the dealer declares after, seeing his hand: roles from
    the dealer, the declarations he may choose between (in Geronimo the contracts he has not
    declared in the ``earlier`` deals, and then he weighs each against its average), and how
    often he declared what the heuristic would have in those deals. Salad: no options, so no
    fitted value (its contracts were never fitted)."""
    dealer = state.deals[0].dealer
    if state.params.salad:  # type: ignore[attr-defined]
        return Position("salad", dealer)
    geronimo = state.left is not None  # type: ignore[attr-defined]
    contracts: list[str] = state.contracts  # type: ignore[attr-defined]
    low: int = state.low_rank  # type: ignore[attr-defined]
    declared: list[str] = []
    agreed = chosen = 0
    for deal in earlier:
        info = deal["info"]
        if info.get("declarer") != dealer:
            continue
        options = _options(tuple(c for c in contracts if c not in declared), low)
        if len(options) > 1:
            pick = _heuristic_pick(tuple(deal["hands"][dealer]), options, geronimo)
            agreed += pick == _declaration(info)
            chosen += 1
        if geronimo:
            declared.append(info["contract"])
    options = _options(tuple(c for c in contracts if c not in declared), low)
    return Position("geronimo" if geronimo else "deal", dealer, options=options,
                    agreed=(agreed, chosen))  # fmt: skip


@functools.lru_cache(maxsize=256)
def _options(contracts: tuple[str, ...], low: int) -> tuple[str, ...]:
    """The declaration actions of ``contracts`` (cached: every rearrangement of every deal asks
    again for those of the dealer's earlier deals)."""
    return tuple(contract_actions(contracts, low))


def _declaration(info: Mapping[str, Any]) -> str:
    """The declaration action a deal's ``info`` records."""
    detail = info.get("trump") or info.get("domino_rank")
    return f"contract:{info['contract']}" + (f":{detail}" if detail else "")


def barbu_declared(position: Position, actions: Sequence[str]) -> Position:
    """The position after the declarer has declared one of ``actions``, all of one contract
    (its features are their mean: a trump suit or Domino rank each as likely)."""
    name = actions[0].split(":")[1]
    details = "".join(a.split(":")[2] for a in actions if a.count(":") == 2)
    return Position(name, position.anchor, details)


def barbu_choice(position: Position, hand: Sequence[str]) -> str:
    """The declaration the heuristic makes with ``hand`` among ``position.options``."""
    return _heuristic_pick(tuple(hand), position.options, position.key == "geronimo")


@functools.lru_cache(maxsize=256)
def _heuristic_pick(hand: tuple[str, ...], options: tuple[str, ...], relative: bool) -> str:
    """:func:`engine.games.barbu_agent.best_declaration`, once per hand and options (a deal's
    rotations, and every later deal that looks back at it)."""
    return best_declaration(_barbu_model(hand), options, STANDARD_RULES, relative=relative)


@functools.lru_cache(maxsize=64)
def _barbu_model(hand: tuple[str, ...]) -> HandModel:
    """The heuristic's model of ``hand`` (the deck's lowest rank from its size: 8 cards each
    of 32, else 13 of 52), made once for the deal's every position and rotation."""
    return HandModel(hand, 7 if len(hand) == 8 else 2)


def barbu_hand(position: Position, hand: Sequence[str]) -> list[float]:
    """Under the declared contract ``position.key`` (the mean over its trump suits or Domino
    ranks in ``position.suit``): the heuristic's expected score for the hand, the trumps it
    holds (count, honours, ace, king) or its Domino cards (at the rank, and six or more ranks
    from it: the last out); then :func:`_barbu_counts`, and the square of the heuristic's
    estimate over 10 (a seat's score grows faster than linearly in it: the best hand at a
    contract takes the lion's share)."""
    model = _barbu_model(tuple(hand))
    name = position.key
    if name == "trumps":
        rows = [_trump_row(model, trump) for trump in position.suit]
    elif name == "domino":
        rows = [_domino_row(model, RANK_VALUES[rank]) for rank in position.suit]
    else:
        rows = [[model.expected(STANDARD_RULES[name])]]
    own = [sum(column) / len(rows) for column in zip(*rows, strict=True)]
    return [*own, *_barbu_counts(model), own[0] * own[0] / 10]


@functools.lru_cache(maxsize=64)
def _barbu_counts(model: HandModel) -> tuple[float, ...]:
    """What every contract counts (once per hand: every contract reads them): hearts, the king
    of hearts, queens, aces, high and low cards, the longest suit and the voids; then how the
    hand can duck: its suits' lowest ranks summed (over 10), queens, kings and aces in suits of
    one or two cards, hearts up to the six, the lowest heart (over 10; 1.5 without hearts), the
    hearts below the king of hearts that guard it (up to three), cards from the queen up and
    from the eight to the jack."""
    ranks = model.ranks
    suits = model.suits
    lengths = [len(suits[s]) for s in SUITS]
    hearts = suits["h"]
    guards = min(3, sum(1 for r in hearts if r < 13)) if 13 in hearts else 0
    return (
        len(hearts),
        float(13 in hearts),
        ranks.count(12),
        ranks.count(14),
        sum(1 for r in ranks if r >= 10),
        sum(1 for r in ranks if r <= 5),
        max(lengths),
        lengths.count(0),
        sum(suits[s][0] for s in SUITS if suits[s]) / 10,
        sum(1 for s in SUITS if len(suits[s]) <= 2 for r in suits[s] if r >= 12),
        sum(1 for r in hearts if r <= 6),
        (hearts[0] if hearts else 15) / 10,
        guards,
        sum(1 for r in ranks if r >= 12),
        sum(1 for r in ranks if 8 <= r <= 11),
    )


def _trump_row(model: HandModel, trump: str) -> list[float]:
    """Trumps with ``trump``: the heuristic's value, the trumps, honours, ace and king."""
    trumps = model.suits[trump]
    honours = sum(1 for r in trumps if r >= 11)
    return [model.trumps(trump), len(trumps), honours, float(14 in trumps), float(13 in trumps)]


def _domino_row(model: HandModel, rank: int) -> list[float]:
    """Domino from ``rank``: the heuristic's value, the cards at the rank and far from it."""
    ranks = model.ranks
    far = sum(1 for r in ranks if abs(r - rank) >= 6)
    return [model.domino(rank), ranks.count(rank), far]


@dataclass(frozen=True)
class GameFeatures:
    """A game's features: the position's known part (given the game's earlier deals as a
    replay records them: what spans deals) and a hand's numbers. A game whose position has
    ``options`` also says which option the declarer's hand picks (``choice``) and the position
    after some options of one kind were declared (``declared``). ``own_hand_only``: a seat's
    value reads its own hand's features only (Barbu: the others' added under 0.01 of a seat's
    score variance explained, at four times the cost)."""

    position: Callable[[State, Sequence[Mapping[str, Any]]], Position]
    hand: Callable[[Position, Sequence[str]], list[float]]
    choice: Callable[[Position, Sequence[str]], str] | None = None
    declared: Callable[[Position, Sequence[str]], Position] | None = None
    own_hand_only: bool = False

    def blocks(self, players: int) -> int:
        """How many hands' features a seat's row holds (its own first)."""
        return 1 if self.own_hand_only else players


#: per game with a fitted value, its features
FEATURES: Final[dict[str, GameFeatures]] = {
    "belote": GameFeatures(belote_position, belote_hand),
    "bauer": GameFeatures(bauer_position, bauer_hand),
    "barbu": GameFeatures(
        barbu_position, barbu_hand, barbu_choice, barbu_declared, own_hand_only=True
    ),
}


def seat_rows(
    features: GameFeatures, position: Position, hands: Sequence[Sequence[str]]
) -> list[tuple[int, list[float]]]:
    """Per seat ``s``: its role (seats from the anchor) and its row of regressors, ``1`` then
    the features of the hands of seats ``s``, ``s + 1``, … (its own first, then the others in
    playing order; only its own with ``own_hand_only``), the inputs of a fitted value."""
    n = len(hands)
    blocks = features.blocks(n)
    per_hand = [features.hand(position, hand) for hand in hands]
    return [
        ((s - position.anchor) % n,
         [1.0, *(x for k in range(blocks) for x in per_hand[(s + k) % n])])
        for s in range(n)
    ]  # fmt: skip
