"""Luck: what the cards gave each seat, and deal scores with it taken out (AIVAT-style).

At every chance event of a deal the seats' prospects change by what chance dealt them. Let
``V(h)`` be an estimate of the deal's score per seat from position ``h``. A chance outcome ``a``
drawn at ``h`` is worth ``V(h·a) − E[V(h·a') | h]`` to each seat, its **luck**; the corrected
deal score is the deal score minus the deal's luck. Whatever ``V`` is, the luck of each event
has expectation zero given everything before it, so the corrected score keeps the raw score's
expectation exactly (Burch et al., AIVAT, AAAI 2018); a ``V`` close to the truth removes most
of the variance the cards add.

**The chance events** of a deal, found the same way in every game (:func:`chance_events`):

- the deal: the cards each seat holds when the deal starts;
- later, every action after which a hand gains cards from the undealt rest of the deck:
  Belote's completing deal after the bid, each Badugi draw (and a reshuffle inside it).
  Bauer and Barbu deal every card at once and have no later chance event.

**The expectation** ``E[V(h·a')]`` is an average of ``V`` over fixed rearrangements of the
realised cards that leave the chance distribution unchanged, so its own expectation equals the
realised ``V``'s exactly (the condition for unbiasedness). For the deal: the hands rotated over
the seats, every rotation once (seat ``s`` gets what seat ``s − r`` was dealt; the deck is
uniform, so every rotation is as likely). For a later event: the deck positions no seat has
seen yet (uniform given everything that happened, since nobody's action could depend on them),
rotated by evenly spaced offsets (:data:`LATER_SAMPLES` arrangements, the realised one among
them), so the drawer gets the cards those positions then hold. An event that takes more cards
than the unseen part of the deck holds (a Badugi reshuffle; its order comes from a generator,
not the deck) is not corrected: whether that happens is fixed before the chance outcome, so
skipping it keeps the expectation.

**The value estimate** ``V`` is a function of the position after the event and the seats' hands
(:data:`Value`), so a rearrangement is valued by handing it other hands, without replaying the
deal. Belote, Bauer and Barbu: a linear function of cheap features of every hand
(:mod:`engine.luck_features`), weights per role fitted offline by least squares to the deal
scores of the reference bots (``benchmarks/fit_luck.py``, stored in ``engine/luck_weights.json``).
Barbu's declarer picks the contract after seeing his hand, so its ``V`` is one such function per
contract (of each seat's own hand only), weighed over the declarations he has left: the
heuristic's pick against the mean over them, in proportions that follow how often he picked as
the heuristic does in the game's earlier deals (:func:`fitted_value`; what happened before a
deal cannot tell which rotation of its cards is the real one, so ``V`` may read it). Badugi: a
fitted function of the pot, a showdown now and each hand's strength with the draws it has left
(:func:`badugi_value`; reading both hands heads-up, the chance that one ends better than the
other, was tried in its place and did not win: docs/ranking.md, "Luck-corrected scores").
Neither looks at the cards nobody has seen, so ``V`` cannot foresee a later draw.

:func:`deal_luck` computes one deal's luck per seat from its deck, dealer and actions (all in a
stored replay, docs/replay-format.md); :func:`replay_luck` every deal of a replay,
:func:`seat_luck` each entrant's total and :func:`corrected_deal_scores` the deal scores with
the luck taken out, the inputs of :func:`engine.board_scores` for corrected boards
(:func:`corrected_boards_of_replay` a stored replay's, what the platform's ladder reads in the
games where the correction wins: docs/ranking.md, "Luck on the ladder").
"""

from __future__ import annotations

import functools
import json
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from .boards import boards_of_replay
from .cards import CARD_BY_TEXT
from .game import Game, State
from .games.badugi import ROUNDS
from .games.badugi_hands import hand_value
from .luck_features import FEATURES, Position
from .registry import game_class, load_game

#: arrangements of the unseen cards, the realised one included, that value a later chance event
LATER_SAMPLES: Final = 4
#: the corrected scores' luck is a multiple of this (a millionth of a point or chip, about)
LUCK_GRID: Final = 2.0**-20
#: Badugi: the draws a hand has in all
DRAWS: Final = ROUNDS - 1
#: Badugi's position keys: the fewest and the most draws a live seat has left, ``"23"``
BADUGI_KEYS: Final = [[f"{low}{high}" for high in range(DRAWS + 1)] for low in range(DRAWS + 1)]
#: Badugi: a folded seat's terms
FOLDED_TERMS: Final = (0.0, 0.0, 0.0)
#: the fitted weights: per game, per position key, per role, one weight per regressor
WEIGHTS_FILE: Final = Path(__file__).with_name("luck_weights.json")

#: ``V``: the value per seat of the position ``state`` with the seats holding ``hands``
Value = Callable[[State, Sequence[Sequence[str]]], Sequence[float]]


def deal_state(game: Game, deck: Sequence[str], dealer: int, actions: Iterable[str]) -> State:
    """A deal as the first deal of a new game: this deck and dealer, then ``actions``."""
    state = game.new_initial_state(0, decks=[list(deck)], first_dealer=dealer)
    for action in actions:
        state.apply_action(action)
    return state


def badugi_value(state: State, hands: Sequence[Sequence[str]]) -> list[float]:
    """``V`` for Badugi: per seat, the fitted weights of the position times its row of
    :func:`badugi_terms` (0 for a folded seat), read from :data:`WEIGHTS_FILE`."""
    weights = fitted_weights()["badugi"]
    key, rows = badugi_terms(state, hands, weights["strength"])
    a, b, c = weights[key][0]
    return [a * x + b * y + c * z for x, y, z in rows]


def badugi_terms(
    state: State, hands: Sequence[Sequence[str]], strength: Sequence[Sequence[float]]
) -> tuple[str, list[Sequence[float]]]:
    """The position's key (the fewest and the most draws a live seat has left, ``"23"``) and
    per seat three terms, each centred over the live seats (a folded seat's are 0, and the
    seats' values sum to 0 as their chips do): the pot times its share of a showdown now (the
    value this replaced), the big blind (Korean betting: the ante) times its hand's strength
    with its draws to come, and the pot times that strength. ``strength[r][v]``: the chance
    that a hand of value ``v`` with ``r`` draws left, drawing as the heuristic does, ends
    better than a hand dealt and drawn three times so (ties count half; computed from the
    rules by ``benchmarks/fit_luck.py``)."""
    folded: list[bool] = state.folded  # type: ignore[attr-defined]
    drawn: Sequence[Sequence[int]] = state.drawn  # type: ignore[attr-defined]
    pot: int = state.pot  # type: ignore[attr-defined]
    unit: int = state.game.rate_unit[1]  # type: ignore[attr-defined]
    live = []  # (seat, value, strength), in one pass: this runs for every rearrangement
    low, high, best, winners, total = DRAWS, 0, -1, 0, 0.0
    for s, hand in enumerate(hands):
        if folded[s]:
            continue
        left = DRAWS - len(drawn[s])
        low, high = min(low, left), max(high, left)
        value = hand_value(hand)
        if value >= best:
            winners = winners + 1 if value == best else 1
            best = value
        x = strength[left][value]
        total += x
        live.append((s, value, x))
    won, even = 1 / winners, 1 / len(live)
    mean = total * even
    rows: list[Sequence[float]] = [FOLDED_TERMS] * len(hands)
    for s, value, x in live:
        share = (won if value == best else 0.0) - even
        rows[s] = [pot * share, unit * (x - mean), pot * (x - mean)]
    return BADUGI_KEYS[low][high], rows


@functools.cache
def fitted_weights() -> dict[str, dict[str, list[list[float]]]]:
    """:data:`WEIGHTS_FILE`'s weights, read once."""
    document: dict[str, Any] = json.loads(WEIGHTS_FILE.read_text())
    weights: dict[str, dict[str, list[list[float]]]] = document["weights"]
    return weights


def fitted_value(
    state: State, hands: Sequence[Sequence[str]], earlier: Sequence[Mapping[str, Any]] = ()
) -> list[float]:
    """``V`` for Belote, Bauer and Barbu: per seat, the fitted weights of its role times its
    row of features (:func:`engine.luck_features.seat_rows`), summed hand by hand. ``earlier``:
    the game's earlier deals as a replay records them (their ``dealer``, ``hands`` and
    ``info``: what spans deals). A position with options to choose
    between (Barbu's declarations) is valued by :func:`_declaration_value`."""
    name = state.game.name
    position = FEATURES[name].position(state, earlier)
    if position.options:
        return _declaration_value(name, position, hands)
    return _linear_value(name, position, hands)


def _linear_value(name: str, position: Position, hands: Sequence[Sequence[str]]) -> list[float]:
    """The fitted linear value of ``position`` with ``hands`` (0 for a position never fitted)."""
    n = len(hands)
    if position.key not in fitted_weights()[name]:
        return [0.0] * n
    intercepts, weights = _weight_blocks(name, position.key)
    roles = [(s - position.anchor) % n for s in range(n)]
    if FEATURES[name].own_hand_only:  # one product per seat: nothing for a cache to share
        return [intercepts[role] + _dot(name, weights[role][0],
                                        _hand_features(name, position, tuple(hand)))
                for role, hand in zip(roles, hands, strict=True)]  # fmt: skip
    terms = [_hand_terms(name, position, role, tuple(hand))
             for role, hand in zip(roles, hands, strict=True)]  # fmt: skip
    return [intercepts[roles[s]] + sum(terms[(s + k) % n][k] for k in range(n))
            for s in range(n)]  # fmt: skip


def _declaration_value(
    name: str, position: Position, hands: Sequence[Sequence[str]]
) -> list[float]:
    """The value of a deal whose declarer (the anchor) picks one of ``position.options`` after
    seeing his hand: a mixture of the fitted value after the option the heuristic would pick
    and the mean over the options (a random pick), in the fitted proportions per role. The
    linear value's mean over the options of one contract is its value at their mean features,
    one evaluation per contract."""
    features = FEATURES[name]
    assert features.choice is not None and features.declared is not None
    n = len(hands)
    pick = features.choice(position, tuple(hands[position.anchor]))
    picked = _linear_value(name, features.declared(position, [pick]), hands)
    mean = [0.0] * n
    for group in option_groups(position.options):
        value = _linear_value(name, features.declared(position, group), hands)
        for s in range(n):
            mean[s] += value[s] * len(group) / len(position.options)
    agreed, chosen = position.agreed
    rate = (agreed + 1) / (chosen + 2)  # the chance his next pick is the heuristic's
    shares = [a + b * rate for a, b in fitted_weights()[name]["choice"]]
    return [shares[(s - position.anchor) % n] * (picked[s] - mean[s]) + mean[s] for s in range(n)]


def option_groups(options: Sequence[str]) -> list[list[str]]:
    """``options`` (declaration actions, sorted) grouped by contract."""
    groups: dict[str, list[str]] = {}
    for action in options:
        groups.setdefault(action.split(":")[1], []).append(action)
    return list(groups.values())


@functools.lru_cache(maxsize=4096)
def _hand_terms(name: str, position: Position, place: int, hand: tuple[str, ...]) -> list[float]:
    """Per offset ``k`` (a row's hand blocks, :meth:`GameFeatures.blocks`): what ``hand``,
    held by the seat ``place`` seats from the anchor, adds to the value of the seat ``k`` seats
    before it (its features times that block of that seat's role's weights). Cached: a deal's
    rotations value the same hands again."""
    x = _hand_features(name, position, hand)
    blocks = _weight_blocks(name, position.key)[1]
    n = len(blocks)
    return [_dot(name, blocks[(place - k) % n][k], x) for k in range(len(blocks[0]))]


def _dot(name: str, weights: Sequence[float], features: Sequence[float]) -> float:
    """``weights · features``, refusing weights fitted on another number of ``name``'s features
    (``map`` would drop the extra ones silently)."""
    if len(features) != len(weights):
        raise ValueError(f"{WEIGHTS_FILE.name} was fitted on other {name} features: refit it")
    total: float = sum(map(operator.mul, weights, features))
    return total


@functools.lru_cache(maxsize=1024)
def _hand_features(name: str, position: Position, hand: tuple[str, ...]) -> list[float]:
    """:mod:`engine.luck_features`' features of ``hand``, cached like :func:`_hand_terms`."""
    return FEATURES[name].hand(position, hand)


@functools.lru_cache
def _weight_blocks(name: str, key: str) -> tuple[list[float], list[list[list[float]]]]:
    """The weights of ``name``'s position ``key``: the intercept per role, and per role and
    offset the block that multiplies the features of that offset's hand."""
    weights = fitted_weights()[name][key]
    blocks = FEATURES[name].blocks(len(weights))
    d = (len(weights[0]) - 1) // blocks
    split = [[w[1 + k * d : 1 + (k + 1) * d] for k in range(blocks)] for w in weights]
    return [w[0] for w in weights], split


def game_value(name: str, earlier: Sequence[Mapping[str, Any]] = ()) -> Value:
    """The game's value estimate (docs/ranking.md, "Luck") for a deal played after the
    ``earlier`` deals of its game, as a replay records them (what spans deals, such as the
    contracts a Geronimo declarer has left and how he chose them)."""
    if name == "badugi":
        return badugi_value
    return functools.partial(fitted_value, earlier=earlier)


@dataclass(frozen=True)
class ChanceEvent:
    """One chance event of a deal: ``state`` is the position just after it (valid until the
    iteration moves on) and ``arrangements`` the seats' hands in each rearrangement, the
    realised one first."""

    state: State
    arrangements: list[list[list[str]]]


def _cards_in(observation: Any) -> set[str]:
    """Every card text anywhere in an observation."""
    found: set[str] = set()
    stack = [observation]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if value in CARD_BY_TEXT:
                found.add(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            stack.extend(value)
    return found


def chance_events(
    game: Game, deck: Sequence[str], dealer: int, actions: Sequence[str]
) -> Iterator[ChanceEvent]:
    """The chance events of a deal (module docstring), replaying ``actions`` (every action of
    the deal, or a prefix of it) only as far as the last event that can be corrected."""
    n = game.num_players
    state = deal_state(game, deck, dealer, ())
    # an observation is its seat's hand and what is public (docs/DESIGN: one observer per
    # game), so every card anyone has seen is in a hand or in seat 0's observation
    seen = _cards_in(state.observation(0)).union(*(state.hand_text(s) for s in range(n)))
    position = {text: k for k, text in enumerate(deck)}
    unseen = 1 + max(position[c] for c in seen)  # deck positions from here: seen by nobody
    hands = [list(state.hand_text(s)) for s in range(n)]
    if len({len(h) for h in hands}) == 1 and hands[0]:  # every rotation is a deal as likely
        yield ChanceEvent(state, [[hands[(s - r) % n] for s in range(n)] for r in range(n)])
    for action in actions:
        if unseen >= len(deck):  # nothing left that a later event could correct
            return
        before = [state.hand_text(s) for s in range(n)]  # shared until the hand changes
        state.apply_action(action)
        if state.deals[0].scores is not None:
            return
        after = [state.hand_text(s) for s in range(n)]
        gained = {c for s in range(n) if after[s] is not before[s]
                  for c in after[s] if c not in before[s] and c not in seen}  # fmt: skip
        if not gained:
            continue
        seen |= gained
        if len(gained) > len(deck) - unseen:  # a reshuffle: not a rearrangement of the deck
            unseen = len(deck)
            continue
        rest = len(deck) - unseen
        arrangements = []
        for j in range(LATER_SAMPLES):  # the unseen positions rotated by j / LATER_SAMPLES
            shift = j * rest // LATER_SAMPLES
            moved = {c: deck[unseen + (position[c] - unseen + shift) % rest] for c in gained}
            arrangements.append([[moved.get(c, c) for c in hand] for hand in after])
        unseen += len(gained)
        yield ChanceEvent(state, arrangements)


def deal_luck(
    game: Game,
    deck: Sequence[str],
    dealer: int,
    actions: Sequence[str],
    *,
    value: Value | None = None,
    earlier: Sequence[Mapping[str, Any]] = (),
) -> list[float]:
    """The luck per seat of one deal: the sum over its chance events of ``V(realised) −`` the
    average of ``V`` over the event's rearrangements (module docstring). ``actions`` are the
    deal's actions in order, as recorded (every action of the deal, or a prefix of it).
    ``value`` defaults to the game's (:func:`game_value`, after the game's ``earlier`` deals as
    a replay records them); exact values (fractions) give exact luck."""
    value = value or game_value(game.name, earlier)
    luck: list[float] = [0] * game.num_players  # a sum of the values' own type
    for event in chance_events(game, deck, dealer, actions):
        values = [value(event.state, hands) for hands in event.arrangements]
        for s in range(len(luck)):
            luck[s] += values[0][s] - sum(v[s] for v in values) / len(values)
    for team in game.teams or ():  # a side's seats score alike: they share the side's luck
        share = sum(luck[s] for s in team) / len(team)
        for s in team:
            luck[s] = share
    return luck


def replay_luck(replay: dict[str, Any]) -> list[list[list[float]]]:
    """Per game of a replay (docs/replay-format.md), per deal, per seat: the deal's luck (0 for
    a deal that did not finish, which has no score to correct). A finished deal's last action
    ends it, so it is no chance event and is not replayed (nor is the next deal started)."""
    game = load_game(replay["game"], **replay["params"])
    return [
        [
            deal_luck(
                game,
                deal["deck"],
                deal["dealer"],
                [e["action"] for e in deal["events"]][:-1],
                earlier=played["deals"][:i],
            )
            if deal["scores"] is not None
            else [0.0] * game.num_players
            for i, deal in enumerate(played["deals"])
        ]
        for played in replay["games"]
    ]


def state_luck(state: State) -> list[list[float]]:
    """Per deal of a played game (``state``: the game after its last action), per seat: the
    deal's luck (0 for a deal that did not finish; the last action skipped, as in
    :func:`replay_luck`)."""
    deals = [record.to_dict() for record in state.deals]
    return [
        deal_luck(
            state.game,
            record.deck,
            record.dealer,
            [a for _, a in state.history[record.start : record.end]][:-1],
            earlier=deals[:i],
        )
        if record.scores is not None
        else [0.0] * state.num_players
        for i, record in enumerate(state.deals)
    ]


def corrected_deal_scores(
    deal_scores: Sequence[Sequence[float] | None], luck: Sequence[Sequence[float]]
) -> list[list[float] | None]:
    """Each finished deal's scores minus its luck, per seat (``None`` stays ``None``). The
    luck is rounded to a multiple of :data:`LUCK_GRID`: sums of such numbers and integer
    scores are exact in binary floating point, so the luck a duplicate set's games share
    cancels exactly and boards tied on raw scores stay tied."""
    return [
        None
        if scores is None
        else [x - round(lk / LUCK_GRID) * LUCK_GRID for x, lk in zip(scores, deal, strict=True)]
        for scores, deal in zip(deal_scores, luck, strict=True)
    ]


def seat_luck(
    replay: dict[str, Any], luck: Sequence[Sequence[Sequence[float]]] | None = None
) -> tuple[float, ...]:
    """Per entrant: the luck of the seats it held, summed over the match's deals, in the units
    of the match's scores (``result.scores``: a team's seats each count their side's luck, as
    they each count its score). ``luck``: the replay's :func:`replay_luck`, if already
    computed."""
    per_game = replay_luck(replay) if luck is None else luck
    total = [0.0] * len(replay["entrants"])
    for played, deals in zip(replay["games"], per_game, strict=True):
        for deal in deals:
            for seat, entrant in enumerate(played["seats"]):
                total[entrant] += deal[seat]
    return tuple(total)


def corrected_boards_of_replay(
    replay: dict[str, Any], luck: Sequence[Sequence[Sequence[float]]] | None = None
) -> list[list[float]] | None:
    """:func:`engine.boards_of_replay` with every deal's scores luck-corrected
    (:func:`corrected_deal_scores`): per board, per entrant, its side's corrected score on that
    board, every deal its own board where the game says so (``Game.corrected_boards_each_deal``:
    Bauer); ``None`` where the replay has no boards (a plain match of a game scored by boards).
    A game scored by the match's total (Badugi, plain or duplicate) has one board: every
    entrant's total with its luck taken out, which its corrected scale shares by the margin
    (``Game.corrected_scale``). ``luck``: the replay's :func:`replay_luck`, if already
    computed."""
    per_game = replay_luck(replay) if luck is None else luck
    if not game_class(replay["game"]).scored_by_boards:
        totals = replay["result"]["scores"]
        luck_of = seat_luck(replay, per_game)
        return [[score - value for score, value in zip(totals, luck_of, strict=True)]]
    corrected = [
        corrected_deal_scores([deal["scores"] for deal in played["deals"]], deals)
        for played, deals in zip(replay["games"], per_game, strict=True)
    ]
    each_deal = game_class(replay["game"]).corrected_boards_each_deal
    return boards_of_replay(replay, corrected, each_deal=each_deal)
