"""The four Card Arena games as OpenSpiel Python games: one deal each, dealt by chance nodes.

An OpenSpiel game here is **one deal** of the engine's game (like OpenSpiel's own euchre or
bridge): chance nodes deal the deck one card at a time (uniformly among the cards left, so the
deck order of the whole deal, the undealt Belote stock and the Badugi stub included, is chance's),
then the engine plays the deal with exactly that deck. The state is terminal when the deal is
scored; ``returns()`` are the deal's scores per seat as the engine records them (Belote's team
points, Bauer's 1 for the team that scores, Barbu's contract points with doubling, Badugi's net
chips). A Belote deal everyone passes twice scores 0 for all, as in OpenSpiel's euchre.

Rules, legality and scoring are the engine's: this module only numbers the actions
(:mod:`arena_openspiel.actions`), keeps what each seat has seen (:class:`Deal`) and turns it into
observations and perfect-recall information states (:class:`ArenaObserver`). One rule is the
adapter's own: with Badugi's ``unlimited_heads_up`` a betting round heads-up is capped at
``max_bets_heads_up`` bets (default 20), so that the game has a maximum length.
Badugi's reshuffles (only when the stub runs out, never heads-up) draw on the engine's seeded
generator (game parameter ``seed``), not on chance nodes.

Games and states pickle: the game classes are module-level (pickle finds them by name, and
pyspiel rebuilds a game from its parameters), and a state's Python side is one :class:`Deal`,
which pickles as its deck and its actions and is replayed on loading (the engine's own objects,
C extensions in a compiled engine, are never pickled).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from typing import Any, ClassVar

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
DREW = [f"drew:{k}" for k in range(5)]
#: Badugi: the adapter's cap on bets (the bet and raises) in a heads-up betting round when the
#: engine's ``unlimited_heads_up`` lifts the rules' cap (game parameter ``max_bets_heads_up``)
HEADS_UP_CAP = 20
DRAWS = 3  # Badugi: draws per hand
#: how many times a seat receives cards in a deal (the deal included): Belote deals 5 cards, then
#: completes the hands after the bidding; Badugi deals 4 and may draw 3 times
RECEIPTS = {"bauer": 1, "belote": 2, "barbu": 1, "badugi": 1 + DRAWS}
#: most non-card actions in a deal (Badugi: computed by :func:`badugi_max_calls`): Belote two
#: bidding rounds of 4; Bauer one round of 4 calls; Barbu a contract and 3 designations
#: (Domino passes are counted with the card plays, see :class:`ArenaObserver`)
MAX_CALLS = {"bauer": 4, "belote": 8, "barbu": 4}
#: games where ``pass`` is a move of the card play (Barbu's Domino), not a bid
PASS_IN_PLAY = {"barbu"}
#: the observation key of announcements the rules make along with a card play
ANNOUNCEMENTS = {"belote": "belote"}
#: Barbu's Domino: at most 3 passes in a row (a 4th player always has a card to lay)
MAX_PASSES = 3


def badugi_max_calls(arena: engine.Game, heads_up_cap: int) -> int:
    """The most decisions in one Badugi hand (bets, calls, checks, folds and draws).

    A betting round with ``k`` bets and raises made by the players has at most ``n + k(n - 1)``
    actions (``n`` players): at most ``n - 1`` checks or calls before the first bet (``n`` end
    the round), ``n - 2`` between two bets and ``n - 1`` after the last. ``k`` is at most the
    round's cap (in the fixed-limit game the big blind is round 1's first bet), or
    ``max(cap, heads_up_cap)`` when ``unlimited_heads_up`` lifts the cap heads-up. Each of the
    3 draws takes at most ``n`` actions. Heads-up with the default caps this is 29, which a
    hand reaches (tests/engine/test_openspiel.py plays it).
    """
    p = arena.params
    n = arena.num_players
    total = DRAWS * n
    for street in range(4):
        if p.korean_betting:
            bets = p.max_raises_per_round + 1  # the opening bet and the raises; no blinds
        else:
            bets = p.round_caps[street]
            if p.unlimited_heads_up:
                bets = max(bets, heads_up_cap)
            if street == 0:
                bets -= 1  # the big blind is the first bet
        total += n + bets * (n - 1)
    return int(total)


def max_calls(arena: engine.Game, heads_up_cap: int) -> int:
    if arena.name == "badugi":
        return badugi_max_calls(arena, heads_up_cap)
    return MAX_CALLS[arena.name]


def max_decisions(arena: engine.Game, heads_up_cap: int) -> int:
    """The most player decisions in one deal (a true bound: see docs/training.md)."""
    if arena.name == "badugi":
        return badugi_max_calls(arena, heads_up_cap)
    plays = len(arena.deck)
    if arena.name in PASS_IN_PLAY:
        # Domino: the deal ends when the third player is out, so at most plays - 1 cards are
        # laid, each after at most 3 passes; the trick contracts play at most every card
        plays = max(plays, (1 + MAX_PASSES) * (plays - 1))
    return MAX_CALLS[arena.name] + plays


def game_type(name: str) -> Any:
    cls = engine.registry.game_class(name)
    defaults = {f.name: f.default for f in dataclasses.fields(cls.Params)}
    spec = {**defaults, "first_dealer": 0, "seed": 0}
    if name == "badugi":
        spec["max_bets_heads_up"] = HEADS_UP_CAP
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


@dataclasses.dataclass(frozen=True)
class Setup:
    """What a state needs from its game: the engine game, the action numbering, the OpenSpiel-only
    parameters and the deal's bounds.

    States hold this rather than the game: OpenSpiel clones states with ``copy.deepcopy``, which
    would rebuild a bare game object. It is immutable (clones share it) and pickles as its game's
    name and parameters.
    """

    name: str
    params: tuple[tuple[str, Any], ...]  # the OpenSpiel parameters, sorted
    arena: engine.Game
    codec: ActionCodec
    seed: int
    first_dealer: int
    heads_up_cap: int  # Badugi with unlimited_heads_up; 0 otherwise
    max_decisions: int
    max_calls: int

    def __deepcopy__(self, memo: object) -> Setup:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (make_setup, (self.name, self.params))


@functools.lru_cache(maxsize=64)
def make_setup(name: str, params: tuple[tuple[str, Any], ...]) -> Setup:
    """The :class:`Setup` of game ``name`` with OpenSpiel parameters ``params`` (shared)."""
    given = dict(params)
    first_dealer = int(given.pop("first_dealer", 0))
    seed = int(given.pop("seed", 0))
    cap = int(given.pop("max_bets_heads_up", HEADS_UP_CAP)) if name == "badugi" else 0
    arena = engine.load_game(name, **given)
    if name == "badugi":
        p = arena.params
        if cap < 1:
            raise ValueError(f"max_bets_heads_up must be at least 1, got {cap}")
        if not p.unlimited_heads_up or p.korean_betting:
            cap = 0  # the engine's caps bound every round
    if not 0 <= first_dealer < arena.num_players:
        raise ValueError(f"first_dealer must be a seat 0..{arena.num_players - 1}")
    return Setup(
        name,
        params,
        arena,
        ActionCodec(arena),
        seed,
        first_dealer,
        cap,
        max_decisions(arena, cap),
        max_calls(arena, cap),
    )


class ArenaGame(pyspiel.Game):  # type: ignore[misc]
    """One deal of an engine game; OpenSpiel parameters are the engine's rule options plus
    ``first_dealer`` (the dealer seat), ``seed`` (the engine's own randomness) and, for Badugi,
    ``max_bets_heads_up`` (the cap of a heads-up round under ``unlimited_heads_up``).

    One module-level subclass per game (:data:`GAME_CLASSES`) names it in ``name``, so that
    pickle finds the class of a game by its qualified name.
    """

    name: ClassVar[str]

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = dict(params or {})
        setup = make_setup(self.name, tuple(sorted(given.items())))
        arena = setup.arena
        low, high = UTILITY_BOUNDS[self.name]
        info = pyspiel.GameInfo(
            num_distinct_actions=setup.codec.num_actions,
            max_chance_outcomes=NUM_CARDS,
            num_players=arena.num_players,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0 if self.name == "badugi" else None,
            max_game_length=len(arena.deck) + setup.max_decisions,
        )
        super().__init__(game_type(self.name), info, given)
        self.setup = setup

    def new_initial_state(self) -> ArenaState:
        return ArenaState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> ArenaObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        return ArenaObserver(self, iig_obs_type)


class ArenaBauerGame(ArenaGame):
    name = "bauer"


class ArenaBeloteGame(ArenaGame):
    name = "belote"


class ArenaBarbuGame(ArenaGame):
    name = "barbu"


class ArenaBadugiGame(ArenaGame):
    name = "badugi"


GAME_CLASSES: dict[str, type[ArenaGame]] = {
    cls.name: cls for cls in (ArenaBauerGame, ArenaBeloteGame, ArenaBarbuGame, ArenaBadugiGame)
}


def seen_by(seat: int, actor: int, action: str) -> str:
    """``action`` of ``actor`` as ``seat`` sees it: a Badugi draw of another seat shows only how
    many cards were drawn (``drew:k``); everything else is public."""
    if actor != seat and action.startswith("draw:"):
        return DREW[len(action[5:].split(",")) if len(action) > 5 else 0]
    return action


class Deal:
    """The Python side of an :class:`ArenaState`: the cards chance dealt, the engine's state once
    the deck is complete, and each seat's private record (the cards it received, when).

    ``received[seat]`` lists ``(move, cards)``: after ``move`` actions of the deal, ``seat``
    received ``cards`` (move 0: the hand dealt; Belote: the cards completing the hand after the
    bidding; Badugi: the cards of each draw). With the public actions and the seat's own actions
    this is everything the seat has seen, so information states built from it have perfect
    recall.

    A deal pickles as its deck and its actions and is rebuilt by replaying them; ``deepcopy``
    clones the engine state (which replays its actions too).
    """

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.dealt: list[int] = []  # card ids, top of the deck first
        self.inner: engine.State | None = None
        n = setup.arena.num_players
        self.received: list[list[tuple[int, tuple[str, ...]]]] = [[] for _ in range(n)]
        self.face_up: tuple[str, ...] = ()  # cards the deal shows everyone (Belote's upcard)
        #: ``(move, call)``: the card play that ended move ``move`` came with a public
        #: announcement (Belote's ``belote`` and ``rebelote``, made by the rules, not chosen)
        self.announced: list[tuple[int, str]] = []

    @property
    def moves(self) -> int:
        """Actions played in the deal so far."""
        inner = self.inner
        return 0 if inner is None else len(inner.history) - inner.deals[0].start

    def over(self) -> bool:
        inner = self.inner
        return inner is not None and (inner.is_terminal() or len(inner.deals) > 1)

    def deal_card(self, card: int) -> None:
        setup = self.setup
        self.dealt.append(card)
        if len(self.dealt) == len(setup.arena.deck):
            deck = [TEXT_OF[c] for c in self.dealt]
            inner = self.inner = setup.arena.new_initial_state(
                setup.seed, decks=[deck], first_dealer=setup.first_dealer
            )
            for seat, record in enumerate(self.received):
                record.append((0, tuple(inner.hand_text(seat))))
            upcard = inner.observation(0).get("upcard")
            self.face_up = (upcard,) if upcard else ()

    def play(self, action: str) -> None:
        """Apply the engine action ``action`` and note the cards each seat receives."""
        inner = self.inner
        assert inner is not None
        n = len(self.received)
        before = [inner.hand_text(seat) for seat in range(n)]
        actor = inner.current_player()
        inner.apply_action(action)
        over = self.over()
        if action[0] in "KQ" and ANNOUNCEMENTS.get(self.setup.name) and action in CARD_BY_TEXT:
            self._note_announcement(over)  # Belote's belote and rebelote: the trump K and Q
        if over:
            return  # the engine deals the next deal at once: not part of this game
        if action.startswith("draw:"):
            gone = set(action[5:].split(",")) if len(action) > 5 else set()
        else:
            gone = {action}
        move = self.moves
        for seat in range(n):
            after = inner.hand_text(seat)
            if after is before[seat]:
                continue  # unchanged (hands are rebuilt, never edited, when they change)
            old = set(before[seat])
            if seat == actor:
                old -= gone  # a card discarded may come back in a reshuffled stub
            got = tuple(c for c in after if c not in old)
            if got:
                self.received[seat].append((move, got))

    def _note_announcement(self, over: bool) -> None:
        inner = self.inner
        assert inner is not None
        key = ANNOUNCEMENTS[self.setup.name]
        public = inner.observation(0)
        calls = (public["last_deal"] if over else public)[key]
        if len(calls) > len(self.announced):
            self.announced.append((self.moves, calls[-1]["call"]))

    def outcome(self) -> Any:
        """The engine's public record of the deal once it is over (None before)."""
        inner = self.inner
        if inner is None or not self.over():
            return None
        public = inner.observation(0)
        return public.get("last_deal") or public.get("last_hand")

    def actions(self) -> list[tuple[int, str]]:
        """The deal's ``(seat, action)`` pairs so far."""
        inner = self.inner
        if inner is None:
            return []
        record = inner.deals[0]
        end = record.end if record.end is not None else len(inner.history)
        return inner.history[record.start : end]

    def __deepcopy__(self, memo: object) -> Deal:
        other = Deal.__new__(Deal)
        other.setup = self.setup
        other.dealt = self.dealt[:]
        other.inner = None if self.inner is None else self.inner.clone()
        other.received = [record[:] for record in self.received]
        other.face_up = self.face_up
        other.announced = self.announced[:]
        return other

    def __reduce__(self) -> tuple[Any, ...]:
        return (replay_deal, (self.setup, self.dealt[:], [a for _, a in self.actions()]))


def replay_deal(setup: Setup, dealt: list[int], actions: list[str]) -> Deal:
    """The deal of ``setup`` with the cards ``dealt`` (top first) and then ``actions`` played."""
    deal = Deal(setup)
    for card in dealt:
        deal.deal_card(card)
    for action in actions:
        deal.play(action)
    return deal


class ArenaState(pyspiel.State):  # type: ignore[misc]
    """Chance deals the deck, then the engine's state plays the deal to its score.

    Its only Python attribute is ``deal`` (a :class:`Deal`): OpenSpiel clones and serialises a
    Python state through its ``__dict__``.
    """

    def __init__(self, game: ArenaGame) -> None:
        super().__init__(game)
        self.deal = Deal(game.setup)

    @property
    def setup(self) -> Setup:
        return self.deal.setup

    @property
    def inner(self) -> engine.State | None:
        """The engine's state (None while chance deals); it may run on to the next deal when
        this one is over."""
        return self.deal.inner

    @property
    def dealt(self) -> list[int]:
        return self.deal.dealt

    def current_player(self) -> int:
        inner = self.deal.inner
        if inner is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.deal.over():
            return int(pyspiel.PlayerId.TERMINAL)
        return inner.current_player()

    def is_terminal(self) -> bool:
        return self.deal.over()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        taken = set(self.deal.dealt)
        left = [int(c) for c in self.setup.arena.deck if int(c) not in taken]
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _capped(self, inner: engine.State) -> bool:
        """Badugi under ``unlimited_heads_up``: the round has reached ``max_bets_heads_up``."""
        cap = self.setup.heads_up_cap
        if not cap:
            return False
        observation = inner.observation(inner.current_player())
        return bool(observation["bet_count"] >= max(cap, observation["max_bets"]))

    def _legal_actions(self, player: int) -> list[int]:
        inner = self.deal.inner
        assert inner is not None and player == inner.current_player()
        legal: list[str] = inner.legal_actions()
        if "raise" in legal and self._capped(inner):
            legal = [a for a in legal if a != "raise"]
        encode = self.setup.codec.encode
        return sorted(encode(inner, a) for a in legal)

    def _apply_action(self, action: int) -> None:
        deal = self.deal
        inner = deal.inner
        if inner is None:
            deal.deal_card(action)
            return
        text = self.setup.codec.decode(inner, action)
        if text == "raise" and self._capped(inner):
            raise ValueError(
                f"raise is not legal: the round has {self.setup.heads_up_cap} bets "
                "(max_bets_heads_up)"
            )
        deal.play(text)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal:{TEXT_OF[action]}"
        inner = self.deal.inner
        if inner is not None and player == inner.current_player():
            return self.setup.codec.decode(inner, action)
        return f"action:{action}"  # a draw's cards depend on the hand at the time

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.setup.arena.num_players
        assert self.deal.inner is not None
        scores = self.deal.inner.deals[0].scores
        assert scores is not None
        return [float(s) for s in scores]

    def __str__(self) -> str:
        if self.deal.inner is None:
            return f"dealing: {' '.join(TEXT_OF[c] for c in self.deal.dealt)}"
        return " ".join(f"{seat}:{action}" for seat, action in self.deal.actions())


class ArenaObserver:
    """Observations and information states of one seat, from the engine's observation of that
    seat (never a hidden card) and the deal's record (docs/training.md, "OpenSpiel", describes
    both and tabulates the tensor).

    Observation (``perfect_recall`` False, OpenSpiel's default observer): the string is the
    engine's observation as JSON (keys sorted; ``{"seat", "dealt"}`` while chance deals and
    ``{"seat", "returns"}`` at the end); the tensor is the *summary* pieces below.

    Information state (``perfect_recall`` True): the string is JSON of ``seat``, ``dealt``
    (cards chance has dealt), ``face_up`` (Belote's upcard), ``received`` (``[move, cards]``: the
    cards the seat received and after how many actions of the deal), ``actions`` (every
    ``[seat, action]`` of the deal as the seat saw it: its own in full, another's Badugi draw as
    ``drew:k``, a Belote announcement as a third item), ``observation`` (the engine's, null
    while dealing and at the end), ``outcome`` (the engine's public record of the deal) and
    ``returns`` (both at the end). The tensor is the summary pieces followed by the *history*
    pieces, which hold the seat's whole history.

    Summary pieces: ``player`` (n, one-hot seat), ``hand`` (52, own cards), ``played`` (n x 52,
    cards each seat played), ``trick`` (52, cards on the table), ``face_up`` (52, Belote's
    upcard), ``discards`` (52, own Badugi discards), ``actions`` (n x A, how often each seat made
    each public non-card action: bids, calls, contracts, designations, bets, ``drew:k``).

    History pieces: ``dealt`` (1, fraction of the deck dealt), ``received`` (R x 52: slot 0 the
    hand dealt; Belote slot 1 the cards completing it; Badugi slot d the cards received at own
    draw d), ``draw_discards`` (Badugi, 3 x 52: the cards discarded at own draw d+1), ``plays``
    (P x 52, every card play of the deal in order, P the deck size; not Badugi), ``passes``
    (Barbu, P x 4: one-hot count of the Domino passes just before play i), ``announced``
    (Belote, P: play i came with belote or rebelote), ``calls`` (C x A: the non-card actions of
    the deal in order, one-hot; Barbu's Domino passes are in ``passes``), ``returns`` (n, at the
    end), ``revealed`` (Badugi, n x 52: the hands shown at the showdown). Who acted is not
    stored: the rules fix it from the actions before.

    A public observer (``private_info`` NONE) leaves out the hand, the discards, the received
    cards, the legal actions, and shows own draws as ``drew:k``.
    """

    def __init__(self, game: ArenaGame, iig_obs_type: Any) -> None:
        setup = game.setup
        codec = setup.codec
        n = setup.arena.num_players
        self.name = setup.arena.name
        self.deck_size = len(setup.arena.deck)
        self.private = (
            iig_obs_type is None
            or iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        )
        self.perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        self.draws = codec.draws  # only then does a seat see another's action differently
        self.public_actions = codec.others + (DREW if codec.draws else [])
        self._public_id = {a: i for i, a in enumerate(self.public_actions)}
        actions = len(self.public_actions)
        pieces = [
            ("player", (n,)),
            ("hand", (NUM_CARDS,)),
            ("played", (n, NUM_CARDS)),
            ("trick", (NUM_CARDS,)),
            ("face_up", (NUM_CARDS,)),
            ("discards", (NUM_CARDS,)),
            ("actions", (n, actions)),
        ]
        if self.perfect_recall:
            pieces += [("dealt", (1,)), ("received", (RECEIPTS[self.name], NUM_CARDS))]
            if codec.draws:
                pieces.append(("draw_discards", (DRAWS, NUM_CARDS)))
            else:
                pieces.append(("plays", (self.deck_size, NUM_CARDS)))
            if self.name in PASS_IN_PLAY:
                pieces.append(("passes", (self.deck_size, MAX_PASSES + 1)))
            if self.name in ANNOUNCEMENTS:
                pieces.append(("announced", (self.deck_size,)))
            pieces.append(("calls", (setup.max_calls, actions)))
            pieces.append(("returns", (n,)))
            if codec.draws:
                pieces.append(("revealed", (n, NUM_CARDS)))
        self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
        self.dict: dict[str, Any] = {}
        index = 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[index : index + size].reshape(shape)
            index += size

    def _observation(self, state: ArenaState, player: int) -> dict[str, Any] | None:
        """The engine's observation while the deal is on (without private parts if public)."""
        if state.deal.inner is None or state.is_terminal():
            return None
        observation = dict(state.deal.inner.observation(player))
        if not self.private:
            for key in ("hand", "discards", "legal"):
                observation.pop(key, None)
        return observation

    def _seen(self, player: int, actor: int, action: str) -> str:
        return seen_by(player if self.private else -1, actor, action)

    def set_from(self, state: ArenaState, player: int) -> None:
        self.tensor.fill(0)
        self.dict["player"][player] = 1
        deal = state.deal
        if self.perfect_recall:
            self.dict["dealt"][0] = len(deal.dealt) / self.deck_size
        if deal.inner is None:
            return
        observation = self._observation(state, player)
        if observation is not None:
            for key in ("hand", "discards"):
                for text in observation.get(key) or ():
                    self.dict[key][CARD_BY_TEXT[text]] = 1
            for entry in observation.get("trick") or ():
                self.dict["trick"][CARD_BY_TEXT[entry["card"]]] = 1
        for text in deal.face_up:
            self.dict["face_up"][CARD_BY_TEXT[text]] = 1
        played, counts = self.dict["played"], self.dict["actions"]
        actions = deal.actions()
        for seat, action in actions:
            card = CARD_BY_TEXT.get(action)
            if card is not None:
                played[seat, card] = 1  # a card played to a trick or the layout: public
            else:
                counts[seat, self._public_id[seen_by(-1, seat, action)]] += 1
        if self.perfect_recall:
            self._set_history(deal, player, actions)

    def _set_history(self, deal: Deal, player: int, actions: list[tuple[int, str]]) -> None:
        if self.private:
            received = self.dict["received"]
            draws = [
                m for m, (seat, a) in enumerate(actions) if seat == player and a.startswith("draw:")
            ]
            for slot, (move, cards) in enumerate(deal.received[player]):
                if "draw_discards" in self.dict and move:  # Badugi: the slot of the draw
                    slot = 1 + draws.index(move - 1)
                for text in cards:
                    received[slot, CARD_BY_TEXT[text]] = 1
            for d, move in enumerate(draws):
                for text in actions[move][1][5:].split(",") if len(actions[move][1]) > 5 else ():
                    self.dict["draw_discards"][d, CARD_BY_TEXT[text]] = 1
        plays: Any = self.dict.get("plays")
        passes: Any = self.dict.get("passes")
        announced: Any = self.dict.get("announced")
        calls = self.dict["calls"]
        pass_in_play = passes is not None
        with_call = {move - 1 for move, _ in deal.announced}
        played = pending = called = 0
        for move, (seat, action) in enumerate(actions):
            card = CARD_BY_TEXT.get(action)
            if card is not None:
                plays[played, card] = 1
                if pass_in_play:
                    passes[played, pending] = 1
                if move in with_call:
                    announced[played] = 1
                played += 1
                pending = 0
            elif pass_in_play and action == "pass":
                pending += 1
            else:
                calls[called, self._public_id[seen_by(-1, seat, action)]] = 1
                called += 1
        if deal.over():
            self.dict["returns"][:] = deal.inner.deals[0].scores  # type: ignore[union-attr]
            if "revealed" in self.dict:  # Badugi: the hands shown at the showdown
                for seat, shown in enumerate(deal.outcome()["revealed"]):
                    for text in shown or ():
                        self.dict["revealed"][seat, CARD_BY_TEXT[text]] = 1

    def string_from(self, state: ArenaState, player: int) -> str:
        deal = state.deal
        observation = self._observation(state, player)
        returns = state.returns() if state.is_terminal() else None
        if not self.perfect_recall:
            if observation is None:
                if returns is not None:
                    return json.dumps({"returns": returns, "seat": player}, sort_keys=True)
                return json.dumps({"dealt": len(deal.dealt), "seat": player}, sort_keys=True)
            return json.dumps(observation, sort_keys=True, separators=(",", ":"))
        if self.draws:
            actions: list[list[Any]] = [[s, self._seen(player, s, a)] for s, a in deal.actions()]
        else:  # every action is public (seen_by): 10 % of the string's cost in Barbu
            actions = [[s, a] for s, a in deal.actions()]
        for move, call in deal.announced:
            actions[move - 1].append(call)
        history = {
            "seat": player,
            "dealt": len(deal.dealt),
            "face_up": list(deal.face_up),
            "received": [[m, list(c)] for m, c in deal.received[player]] if self.private else [],
            "actions": actions,
            "observation": observation,
            "outcome": deal.outcome(),
            "returns": returns,
        }
        return json.dumps(history, sort_keys=True, separators=(",", ":"))


def register() -> list[str]:
    """Register the four games with OpenSpiel (idempotent); their short names."""
    names = []
    for name in engine.available_games():
        short = f"arena_{name}"
        if short not in pyspiel.registered_names():
            cls = GAME_CLASSES.get(name)
            if cls is None:
                raise ValueError(f"the engine's game {name!r} has no OpenSpiel class here")
            pyspiel.register_game(game_type(name), cls)
        names.append(short)
    return names
