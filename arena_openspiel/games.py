"""The four Card Arena games as OpenSpiel Python games: one deal each, dealt by chance nodes.

An OpenSpiel game here is **one deal** of the engine's game (like OpenSpiel's own euchre or
bridge): chance nodes deal the deck one card at a time (uniformly among the cards left, so the
deck order of the whole deal, the undealt Belote stock and the Badugi stub included, is chance's),
then the engine plays the deal with exactly that deck. The state is terminal when the deal is
scored; ``returns()`` are the deal's scores per seat as the engine records them (Belote's team
points, Bauer's 1 for the team that scores, Barbu's contract points with doubling, Badugi's net
chips). A Belote deal everyone passes twice scores 0 for all, as in OpenSpiel's euchre.

Rules, legality and scoring are the engine's: this module only numbers the actions
(:mod:`arena_openspiel.actions`) and turns the engine's per-seat observation, which never holds a
hidden card, into information-state strings (its JSON) and tensors (:class:`ArenaObserver`).
Badugi's reshuffles (only when the stub runs out, never heads-up) draw on the engine's seeded
generator (game parameter ``seed``), not on chance nodes.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found,unused-ignore]

import engine
from engine.cards import CARD_BY_TEXT, TEXT_OF

from .actions import NUM_CARDS, ActionCodec

#: (lowest, highest) deal score of one seat, per game, for OpenSpiel's GameInfo (loose bounds
#: where the rules allow doubling or unbounded stacks)
UTILITY_BOUNDS = {
    "bauer": (0.0, 1.0),
    "belote": (0.0, 292.0),  # a defenders' capot with both belote bonuses: 162 + 40 + 90
    "barbu": (-2200.0, 2200.0),
    "badugi": (-1e9, 1e9),
}
#: longest deal in decisions (passes, bets and Domino passes included), generous
MAX_DECISIONS = {"bauer": 36, "belote": 40, "barbu": 500, "badugi": 1000}
DREW = [f"drew:{k}" for k in range(5)]


def game_type(name: str) -> Any:
    cls = engine.registry.game_class(name)
    defaults = {f.name: f.default for f in dataclasses.fields(cls.Params)}
    spec = {**defaults, "first_dealer": 0, "seed": 0}
    zero_sum = name == "badugi"
    return pyspiel.GameType(
        short_name=f"arena_{name}",
        long_name=f"Card Arena {cls.title} (one deal)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=cls.max_players,
        min_num_players=cls.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=spec,
    )


class ArenaGame(pyspiel.Game):  # type: ignore[misc]
    """One deal of an engine game; OpenSpiel parameters are the engine's rule options plus
    ``first_dealer`` (the dealer seat) and ``seed`` (the engine's own randomness).

    :func:`register` makes one subclass per game, naming it in ``name``.
    """

    name: str

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        name = self.name
        given = dict(params or {})
        first_dealer = int(given.pop("first_dealer", 0))
        seed = int(given.pop("seed", 0))
        arena = engine.load_game(name, **given)
        codec = ActionCodec(arena)
        low, high = UTILITY_BOUNDS[name]
        info = pyspiel.GameInfo(
            num_distinct_actions=codec.num_actions,
            max_chance_outcomes=NUM_CARDS,
            num_players=arena.num_players,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0 if name == "badugi" else None,
            max_game_length=len(arena.deck) + MAX_DECISIONS[name],
        )
        super().__init__(game_type(name), info, params or {})
        self.setup = Setup(arena, codec, seed, first_dealer)

    def new_initial_state(self) -> ArenaState:
        return ArenaState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> ArenaObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        return ArenaObserver(self, iig_obs_type)


@dataclasses.dataclass(frozen=True)
class Setup:
    """What a state needs from its game. States hold this rather than the game: OpenSpiel clones
    states with ``copy.deepcopy``, which would rebuild a bare game object."""

    arena: engine.Game
    codec: ActionCodec
    seed: int
    first_dealer: int

    def __deepcopy__(self, memo: object) -> Setup:
        return self  # immutable: clones share it


class ArenaState(pyspiel.State):  # type: ignore[misc]
    """Chance deals the deck, then the engine's state plays the deal to its score."""

    def __init__(self, game: ArenaGame) -> None:
        super().__init__(game)
        self.setup = game.setup
        self.dealt: list[int] = []  # card ids, top of the deck first
        self.inner: engine.State | None = None

    def current_player(self) -> int:
        inner = self.inner
        if inner is None:
            return int(pyspiel.PlayerId.CHANCE)
        if inner.is_terminal() or len(inner.deals) > 1:
            return int(pyspiel.PlayerId.TERMINAL)
        return inner.current_player()

    def is_terminal(self) -> bool:
        inner = self.inner
        return inner is not None and (inner.is_terminal() or len(inner.deals) > 1)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        taken = set(self.dealt)
        left = [int(c) for c in self.setup.arena.deck if int(c) not in taken]
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _legal_actions(self, player: int) -> list[int]:
        inner = self.inner
        assert inner is not None and player == inner.current_player()
        encode = self.setup.codec.encode
        return sorted(encode(inner, a) for a in inner.legal_actions())

    def _apply_action(self, action: int) -> None:
        setup = self.setup
        if self.inner is None:
            self.dealt.append(action)
            if len(self.dealt) == len(setup.arena.deck):
                deck = [TEXT_OF[c] for c in self.dealt]
                self.inner = setup.arena.new_initial_state(
                    setup.seed, decks=[deck], first_dealer=setup.first_dealer
                )
            return
        self.inner.apply_action(setup.codec.decode(self.inner, action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal:{TEXT_OF[action]}"
        inner = self.inner
        if inner is not None and player == inner.current_player():
            return self.setup.codec.decode(inner, action)
        return f"action:{action}"  # a draw's cards depend on the hand at the time

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.setup.arena.num_players
        assert self.inner is not None
        scores = self.inner.deals[0].scores
        assert scores is not None
        return [float(s) for s in scores]

    def __str__(self) -> str:
        if self.inner is None:
            return f"dealing: {' '.join(TEXT_OF[c] for c in self.dealt)}"
        return " ".join(f"{seat}:{action}" for seat, action in self.inner.history)


class ArenaObserver:
    """Information states from the engine's observation of one seat (never a hidden card).

    The string is the observation's JSON (keys sorted): within a deal it holds the whole public
    history and the seat's own cards, so it is a perfect-recall information state. The tensor
    summarises it: seat, own hand, cards each seat played, the trick on the table, face-up cards
    (Belote's upcard), own discards (Badugi) and, per seat, how often it made each public
    non-card action (bids, calls, contracts, bets, ``drew:k``). A public observer
    (``private_info`` NONE) leaves out the hand, the discards and the legal actions.
    """

    def __init__(self, game: ArenaGame, iig_obs_type: Any) -> None:
        codec = game.setup.codec
        n = game.setup.arena.num_players
        self.private = (
            iig_obs_type is None
            or iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        )
        self.public_actions = codec.others + (DREW if codec.draws else [])
        self._public_id = {a: i for i, a in enumerate(self.public_actions)}
        pieces = [
            ("player", n, (n,)),
            ("hand", NUM_CARDS, (NUM_CARDS,)),
            ("played", n * NUM_CARDS, (n, NUM_CARDS)),
            ("trick", NUM_CARDS, (NUM_CARDS,)),
            ("face_up", NUM_CARDS, (NUM_CARDS,)),
            ("discards", NUM_CARDS, (NUM_CARDS,)),
            ("actions", n * len(self.public_actions), (n, len(self.public_actions))),
        ]
        self.tensor = np.zeros(sum(size for _, size, _ in pieces), np.float32)
        self.dict: dict[str, Any] = {}
        index = 0
        for name, size, shape in pieces:
            self.dict[name] = self.tensor[index : index + size].reshape(shape)
            index += size

    def _observation(self, state: ArenaState, player: int) -> dict[str, Any] | None:
        if state.inner is None:
            return None
        observation = dict(state.inner.observation(player))
        if not self.private:
            for key in ("hand", "discards", "legal"):
                observation.pop(key, None)
        return observation

    def set_from(self, state: ArenaState, player: int) -> None:
        self.tensor.fill(0)
        self.dict["player"][player] = 1
        observation = self._observation(state, player)
        if observation is None:
            return
        for key, piece in (("hand", "hand"), ("discards", "discards")):
            for text in observation.get(key) or ():
                self.dict[piece][CARD_BY_TEXT[text]] = 1
        for entry in observation.get("trick") or ():
            self.dict["trick"][CARD_BY_TEXT[entry["card"]]] = 1
        if observation.get("upcard"):
            self.dict["face_up"][CARD_BY_TEXT[observation["upcard"]]] = 1
        inner = state.inner
        assert inner is not None
        played, actions = self.dict["played"], self.dict["actions"]
        for seat, action in inner.history[inner.deals[0].start :]:
            card = CARD_BY_TEXT.get(action)
            if card is not None:
                played[seat, card] = 1  # a card played to a trick or the layout: public
                continue
            if action.startswith("draw:"):  # others see only how many cards were drawn
                action = DREW[len(action[5:].split(",")) if len(action) > 5 else 0]
            actions[seat, self._public_id[action]] += 1

    def string_from(self, state: ArenaState, player: int) -> str:
        observation = self._observation(state, player)
        if observation is None:
            return f"seat {player}: dealing"
        return json.dumps(observation, sort_keys=True, separators=(",", ":"))


def register() -> list[str]:
    """Register the four games with OpenSpiel (idempotent); their short names."""
    names = []
    for name in engine.available_games():
        short = f"arena_{name}"
        if short not in pyspiel.registered_names():
            cls = type(f"Arena{name.title()}Game", (ArenaGame,), {"name": name})
            pyspiel.register_game(game_type(name), cls)
        names.append(short)
    return names
