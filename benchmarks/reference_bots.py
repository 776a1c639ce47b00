"""Reference bots of known strength order for the ranking benchmark (in-process engine agents).

Two families per game and a third for Badugi, each ordered strongest first by construction:

- **Mixtures** ``mix(p)``: at each decision, with probability ``p`` the engine's heuristic move,
  otherwise a uniformly random legal move (its own seeded generator). Their own random moves
  add noise that no duplicate deal can cancel.
- **Deterministic variants** ``det(p)``: the same mixture, but the coin is a hash of the deal
  in front of the bot (its observation without the match's history, see :data:`HISTORY`, and
  the legal moves), so each variant is a fixed function of its situation, like a heuristic with
  one of its rules switched off. All variants share the hash: wherever ``det(0.5)`` keeps the
  heuristic move so do ``det(0.75)`` and ``det(1.0)``, so each variant is the one above it with
  more of its decisions switched off; ``det(0)`` plays a hash-chosen legal move everywhere. Two
  copies of one variant play identically, so a duplicate set between them always ends level.
- **Passive variants** ``passive(p)``: deterministic too, by the same hash, but only the betting
  is switched off: where the coin says so, a decision that offers a passive move (check, else
  call, else pass) takes it instead of the heuristic's bet, raise or fold; every other decision
  (Badugi's draws) is the heuristic's. ``passive(0)`` never bets, raises or folds. In Badugi
  (RULES §2.5: every replacement card comes from one ordered stub) two bots that draw alike
  receive the same cards in both rotations of a duplicate set, so these variants differ in
  skill where duplicate play can show it; variants that also draw differently (``det``) receive
  different cards from the first differing draw on.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Any

import engine

MIXTURE_PS = (1.0, 0.75, 0.5, 0.25, 0.0)
#: the families, by kind, with their names in reports
FAMILIES = {"mix": "mixtures", "det": "deterministic variants", "passive": "passive variants"}
#: the moves a passive variant prefers, in this order, where its coin switches the heuristic off
PASSIVE_MOVES = ("check", "call", "pass")

#: per game, the observation's keys that carry the match's history rather than the deal being
#: played: running scores, the previous deal or hand, Belote's litige pot, what is left of a
#: Geronimo's contracts. A deterministic variant's coin ignores them, so in a duplicate set it
#: meets the same deal with the same coins in every rotation, however the earlier deals went
#: (were they in the hash, one different move would re-draw every later coin of the set).
HISTORY = {
    "badugi": frozenset({"scores", "last_hand"}),
    "belote": frozenset({"scores", "last_deal", "litige"}),
    "bauer": frozenset({"points", "last_deal"}),
    "barbu": frozenset({"scores", "last_deal", "contracts_left"}),
}


@dataclass(frozen=True)
class BotSpec:
    kind: str  # one of FAMILIES
    p: float

    @property
    def name(self) -> str:
        return f"{self.kind}({self.p:g})"


def family(kind: str) -> list[BotSpec]:
    """The five bots of a family, strongest first."""
    return [BotSpec(kind, p) for p in MIXTURE_PS]


class MixtureAgent(engine.Agent):
    """The heuristic move with probability ``p``, else a random legal one."""

    def __init__(self, game: str, p: float, seed: int) -> None:
        self._heuristic = engine.make_agent(game, "heuristic", seed)
        self._p = p
        self._rng = random.Random(seed)

    def start(self, info: dict[str, Any]) -> None:
        self._heuristic.start(info)

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        if self._rng.random() < self._p:
            return self._heuristic.act(observation, legal)
        return legal[int(self._rng.random() * len(legal))]

    def finish(self, result: dict[str, Any]) -> None:
        self._heuristic.finish(result)


class HashedMixtureAgent(engine.Agent):
    """The heuristic move unless the decision's hash says otherwise: deterministic."""

    def __init__(self, game: str, p: float, key: bytes = b"") -> None:
        self._heuristic = engine.make_agent(game, "heuristic", 0)
        self._p = p
        self._history = HISTORY[game]
        self._key = key

    def start(self, info: dict[str, Any]) -> None:
        self._heuristic.start(info)

    def _digest(self, observation: dict[str, Any], legal: list[str]) -> tuple[float, int]:
        """The decision's coin in [0, 1) and a second number for picking a move."""
        deal = sorted((k, v) for k, v in observation.items() if k not in self._history)
        digest = hashlib.blake2b(repr((deal, legal)).encode(), digest_size=16, key=self._key)
        digest = digest.digest()
        return int.from_bytes(digest[:8], "big") / 2**64, int.from_bytes(digest[8:], "big")

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        coin, pick = self._digest(observation, legal)
        if coin < self._p:
            return self._heuristic.act(observation, legal)
        return legal[pick % len(legal)]

    def finish(self, result: dict[str, Any]) -> None:
        self._heuristic.finish(result)


class PassiveVariantAgent(HashedMixtureAgent):
    """The heuristic, except that it passes instead of betting where the decision's hash says
    so; decisions without a passive move are always the heuristic's."""

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        passive = next((move for move in PASSIVE_MOVES if move in legal), None)
        if passive is None or self._digest(observation, legal)[0] < self._p:
            return self._heuristic.act(observation, legal)
        return passive


def seed_of(*parts: object) -> int:
    """A 48-bit seed for a bot's generator (or a game), fixed by ``parts``."""
    return int.from_bytes(hashlib.blake2b(repr(parts).encode(), digest_size=6).digest(), "big")


def make_agent(game: str, spec: BotSpec, seed: int, *, key: bytes = b"") -> engine.Agent:
    """The bot ``spec``; a mixture's generator seeded with ``seed``, a hashed variant's coins
    keyed with ``key`` (the empty key, the benchmarks' bots, is BLAKE2b unkeyed; another key
    is another variant of the same strength, its coins drawn afresh)."""
    if spec.kind == "mix":
        return MixtureAgent(game, spec.p, seed)
    if spec.kind == "det":
        return HashedMixtureAgent(game, spec.p, key)
    if spec.kind == "passive":
        return PassiveVariantAgent(game, spec.p, key)
    raise ValueError(f"unknown reference bot kind {spec.kind!r}")
