"""Luck: what the cards gave each seat, and deal scores with it taken out (AIVAT-style).

At every chance event of a deal the seats' prospects change by what chance dealt them. Let
``V(h)`` be an estimate of the deal's score per seat from position ``h``. A chance outcome ``a``
drawn at ``h`` is worth ``V(h·a) − E[V(h·a') | h]`` to each seat, its **luck**; the corrected
deal score is the deal score minus the deal's luck. Whatever ``V`` is, the luck of each event
has expectation zero given everything before it, so the corrected score keeps the raw score's
expectation exactly (Burch et al., AIVAT, AAAI 2018); a ``V`` close to the truth removes most
of the variance the cards add.

**The chance events** of a deal, found the same way in every game:

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
them), so the drawer gets other cards. An event that takes more cards than the unseen part of
the deck holds (a Badugi reshuffle; its order comes from a generator, not the deck) is not
corrected: whether that happens is fixed before the chance outcome, so skipping it keeps the
expectation.

**The value estimate** ``V``: the engine's own ``heuristic`` agent in every seat plays the deal
out in-process from the position, on the known cards (each agent sees only its observation,
as in a match), and the deal's scores are the value. It is deterministic (fixed agent seeds),
so the realised position and its rearrangements are valued alike. The deal is played as the
first deal of a new game with the same deck, dealer and rule options (:func:`deal_state`):
what spans deals (Belote's litige pot, what is left of a Geronimo's contracts, Badugi's
reshuffle generator) is not part of ``V``, which only costs accuracy, never the expectation.

:func:`deal_luck` computes one deal's luck per seat from its deck, dealer and actions (all in a
stored replay, docs/replay-format.md); :func:`replay_luck` every deal of a replay,
:func:`seat_luck` each entrant's total and :func:`corrected_deal_scores` the deal scores with
the luck taken out, the inputs of :func:`engine.board_scores` for corrected boards.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .agents import Agent, make_agent
from .cards import TEXT_OF
from .game import Game, State
from .games.badugi_hands import hand_value
from .registry import load_game

#: arrangements of the unseen cards, the realised one included, that value a later chance event
LATER_SAMPLES: Final = 4
#: the agent that plays the deals out
PLAYOUT_AGENT: Final = "heuristic"


def deal_state(game: Game, deck: Sequence[str], dealer: int, actions: Iterable[str]) -> State:
    """A deal as the first deal of a new game: this deck and dealer, then ``actions``."""
    state = game.new_initial_state(0, decks=[list(deck)], first_dealer=dealer)
    for action in actions:
        state.apply_action(action)
    return state


def playout_value(state: State, agents: Sequence[Agent]) -> list[float]:
    """``V`` by playout: the deal's score per seat when ``agents`` play it out from ``state``."""
    record = state.deals[0]
    while record.scores is None:
        seat = state.current_player()
        state.apply_action(agents[seat].act(state.observation(seat), state.legal_actions()))
    return [float(s) for s in record.scores]


def showdown_value(state: State, agents: Sequence[Agent]) -> list[float]:
    """``V`` for Badugi: each seat's share of the pot as it stands if the live hands were shown
    now (ties split), minus what the seat has put in; no further betting or drawing."""
    hands, folded = state.hands, state.folded  # type: ignore[attr-defined]
    values = {s: hand_value(hands[s]) for s in range(len(hands)) if not folded[s]}
    best = max(values.values())
    winners = [s for s, v in values.items() if v == best]
    pot: int = state.pot  # type: ignore[attr-defined]
    committed: list[int] = state.committed  # type: ignore[attr-defined]
    return [(pot / len(winners) if s in winners else 0.0) - committed[s] for s in range(len(hands))]


Value = Callable[[State, Sequence[Agent]], Sequence[float]]


@dataclass(frozen=True)
class Estimate:
    """How a game's positions are valued: ``value`` (a position's value per seat, given the
    playout agents) and the weight of the luck of the deal and of each later event. ``V``
    scaled by a constant is still a value estimate; Belote's, Bauer's and Barbu's weights are
    least-squares fits of the raw deal margins on each kind of event's luck, on the reference
    mixtures (``mix(1)`` against ``mix(0.5)``, seeds apart from the benchmarks'; docs/ranking.md,
    "Luck")."""

    value: Value
    deal_weight: float = 1  # an int: exact values (fractions) stay exact
    later_weight: float = 1


#: per game, its :class:`Estimate` (docs/ranking.md, "Luck")
ESTIMATES: Final[dict[str, Estimate]] = {
    "belote": Estimate(playout_value, 0.35, 0.85),
    "bauer": Estimate(playout_value, 0.5),
    "barbu": Estimate(playout_value, 0.2),
    "badugi": Estimate(showdown_value),
}


def position_value(
    value: Value,
    game: Game,
    deck: Sequence[str],
    dealer: int,
    actions: Sequence[str],
    agents: Sequence[Agent],
    unseen: int,
) -> Sequence[float]:
    """``V`` of the position after ``actions``.

    The cards from deck position ``unseen`` on, which nobody has seen yet, are first put in a
    fixed order that depends only on which cards they are (:func:`canonical`): ``V`` is then a
    function of the position alone, blind to how later chance events will fall, as each event's
    luck needs (with the realised order a playout would foresee every later draw, and each
    event would count the luck of all those after it again).
    """
    fixed = [*deck[:unseen], *canonical(deck[unseen:])]
    return value(deal_state(game, fixed, dealer, actions), agents)


def canonical(cards: Sequence[str]) -> list[str]:
    """``cards`` in an order that depends only on the set: sorted, then shuffled by a fixed
    generator (a sorted stub would deal the low cards first)."""
    ordered = sorted(cards)
    random.Random(len(ordered)).shuffle(ordered)
    return ordered


def playout_agents(game: Game) -> list[Agent]:
    """One :data:`PLAYOUT_AGENT` per seat, started for ``game``; deterministic (fixed seeds)."""
    agents = [make_agent(game.name, PLAYOUT_AGENT, seed=seat) for seat in range(game.num_players)]
    params = game.params_dict()
    for seat, agent in enumerate(agents):
        agent.start({"game": game.name, "seat": seat, "params": params})
    return agents


def _cards_in(value: Any, texts: frozenset[str]) -> set[str]:
    """Every card text anywhere in an observation."""
    if isinstance(value, str):
        return {value} if value in texts else set()
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list | tuple):
        return set()
    found: set[str] = set()
    for item in value:
        found |= _cards_in(item, texts)
    return found


def _rotated_hands(deck: Sequence[str], hands: Sequence[Sequence[str]], r: int) -> list[str]:
    """The deck with the deal rotated by ``r`` seats: seat ``s`` gets what ``s − r`` was dealt
    (the same deck positions, in order)."""
    where = {text: k for k, text in enumerate(deck)}
    positions = [sorted(where[c] for c in hand) for hand in hands]
    n = len(hands)
    out = list(deck)
    for s in range(n):
        for k, p in zip(positions[s], positions[(s - r) % n], strict=True):
            out[k] = deck[p]
    return out


def deal_luck(
    game: Game,
    deck: Sequence[str],
    dealer: int,
    actions: Sequence[str],
    *,
    estimate: Estimate | None = None,
    agents: Sequence[Agent] | None = None,
) -> list[float]:
    """The luck per seat of one deal: the sum over its chance events of ``V(realised) −`` the
    average of ``V`` over the event's rearrangements (module docstring). ``actions`` are the
    deal's actions in order, as recorded (every action of the deal, or a prefix of it).
    ``estimate`` and ``agents`` default to the game's (:data:`ESTIMATES`, :func:`playout_agents`);
    exact values (fractions) give exact luck."""
    n = game.num_players
    estimate = estimate or ESTIMATES[game.name]
    agents = agents if agents is not None else playout_agents(game)
    luck: list[float] = [0] * n  # a sum of the values' own type
    state = deal_state(game, deck, dealer, ())
    texts = frozenset(TEXT_OF[c] for c in game.deck)
    seen = set().union(*(_cards_in(state.observation(s), texts) for s in range(n)))
    position = {text: k for k, text in enumerate(deck)}
    unseen = 1 + max(position[c] for c in seen)  # deck positions from here: seen by nobody
    hands = [list(state.hand_text(s)) for s in range(n)]
    if len({len(h) for h in hands}) == 1 and hands[0]:  # every rotation is a deal as likely
        rotations = [_rotated_hands(deck, hands, r) for r in range(n)]
        values = [position_value(estimate.value, game, d, dealer, (), agents, unseen)
                  for d in rotations]  # fmt: skip
        _add_event(luck, values, estimate.deal_weight)
    for t, action in enumerate(actions):
        before = [set(state.hand_text(s)) for s in range(n)]
        state.apply_action(action)
        if state.deals[0].scores is not None:
            break
        gained = [c for s in range(n) for c in state.hand_text(s)
                  if c not in before[s] and c not in seen]  # fmt: skip
        seen.update(gained)
        if not gained:
            continue
        if len(gained) > len(deck) - unseen:  # a reshuffle: not a rearrangement of the deck
            unseen = len(deck)
            continue
        rest = list(deck[unseen:])
        samples = [
            [*deck[:unseen], *rest[j * len(rest) // LATER_SAMPLES :],
             *rest[: j * len(rest) // LATER_SAMPLES]]
            for j in range(LATER_SAMPLES)
        ]  # fmt: skip
        unseen += len(gained)
        values = [position_value(estimate.value, game, d, dealer, actions[: t + 1], agents,
                                 unseen) for d in samples]  # fmt: skip
        _add_event(luck, values, estimate.later_weight)
    return luck


def _add_event(luck: list[float], values: Sequence[Sequence[float]], weight: float) -> None:
    """Add one event's luck: the realised value (``values[0]``) minus the mean of all."""
    for s in range(len(luck)):
        luck[s] += weight * (values[0][s] - sum(v[s] for v in values) / len(values))


def replay_luck(replay: dict[str, Any]) -> list[list[list[float]]]:
    """Per game of a replay (docs/replay-format.md), per deal, per seat: the deal's luck (0 for
    a deal that did not finish, which has no score to correct)."""
    game = load_game(replay["game"], **replay["params"])
    return [
        [
            deal_luck(game, deal["deck"], deal["dealer"], [e["action"] for e in deal["events"]])
            if deal["scores"] is not None
            else [0.0] * game.num_players
            for deal in played["deals"]
        ]
        for played in replay["games"]
    ]


def state_luck(state: State) -> list[list[float]]:
    """Per deal of a played game (``state``: the game after its last action), per seat: the
    deal's luck (0 for a deal that did not finish)."""
    return [
        deal_luck(
            state.game,
            record.deck,
            record.dealer,
            [a for _, a in state.history[record.start : record.end]],
        )
        if record.scores is not None
        else [0.0] * state.num_players
        for record in state.deals
    ]


def corrected_deal_scores(
    deal_scores: Sequence[Sequence[float] | None], luck: Sequence[Sequence[float]]
) -> list[list[float] | None]:
    """Each finished deal's scores minus its luck, per seat (``None`` stays ``None``)."""
    return [
        None if scores is None else [x - lk for x, lk in zip(scores, deal, strict=True)]
        for scores, deal in zip(deal_scores, luck, strict=True)
    ]


def seat_luck(replay: dict[str, Any]) -> tuple[float, ...]:
    """Per entrant: the luck of the seats it held, summed over the match's deals, in the units
    of the match's scores (``result.scores``: a team's seats each count their side's luck, as
    they each count its score)."""
    luck = [0.0] * len(replay["entrants"])
    for played, deals in zip(replay["games"], replay_luck(replay), strict=True):
        for deal in deals:
            for seat, entrant in enumerate(played["seats"]):
                luck[entrant] += deal[seat]
    return tuple(luck)
