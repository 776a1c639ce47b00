"""Numbering of each game's action strings, as OpenSpiel wants actions: integers from 0.

Ids 0-51 are the cards (the engine's card index, so the id order is the text order of the
cards); then each game's other actions in a fixed list. Badugi's draws depend on the hand: id
``DRAW_BASE + mask`` discards the cards at the bit positions of ``mask`` in the sorted hand.
Chance outcomes are card ids too: a deal is the deck order, dealt one card at a time.
"""

from __future__ import annotations

from itertools import combinations

from engine import Game, State
from engine.cards import CARD_BY_TEXT, TEXT_OF
from engine.games.barbu_rules import contract_actions

NUM_CARDS = 52
DRAW_MASKS = 16


def _non_card_actions(game: Game) -> list[str]:
    """Every non-card action string the game can ever offer, in a fixed order."""
    if game.name == "bauer":
        return ["pass", "trump:c", "trump:d", "trump:h", "trump:s"]
    if game.name == "belote":
        return ["pass", "take", "trump:c", "trump:d", "trump:h", "trump:s"]
    if game.name == "barbu":
        low = 7 if game.params.deck == 32 else 2
        seats = range(4)
        subsets = [",".join(map(str, c)) for k in (1, 2, 3) for c in combinations(seats, k)]
        doubles = ["double:none", "double:all", *(f"double:{s}" for s in subsets)]
        return ["pass", *contract_actions(game.contracts, low), *doubles]  # type: ignore[attr-defined]
    if game.name == "badugi":
        return ["bet", "call", "check", "fold", "half", "raise"]
    raise ValueError(f"no OpenSpiel action numbering for {game.name!r}")


class ActionCodec:
    """Action strings of one game (with its options) to OpenSpiel ids and back."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.others = _non_card_actions(game)
        self._other_id = {a: NUM_CARDS + i for i, a in enumerate(self.others)}
        self.draw_base = NUM_CARDS + len(self.others)
        self.draws = game.name == "badugi"
        self.num_actions = self.draw_base + (DRAW_MASKS if self.draws else 0)

    def encode(self, state: State, action: str) -> int:
        """The id of ``action``, legal in ``state`` for the player to act."""
        found = CARD_BY_TEXT.get(action)
        if found is not None:
            return int(found)
        other = self._other_id.get(action)
        if other is not None:
            return other
        if self.draws and action.startswith("draw:"):
            hand = [TEXT_OF[c] for c in state.hands[state.current_player()]]  # type: ignore[attr-defined]
            out = action[5:].split(",") if len(action) > 5 else []
            return self.draw_base + sum(1 << hand.index(t) for t in out)
        raise ValueError(f"{self.game.name}: action {action!r} has no OpenSpiel id")

    def decode(self, state: State, action_id: int) -> str:
        """The action string of id ``action_id`` for the player to act in ``state``."""
        if 0 <= action_id < NUM_CARDS:
            return TEXT_OF[action_id]
        if action_id < self.draw_base:
            return self.others[action_id - NUM_CARDS]
        if self.draws and action_id < self.num_actions:
            mask = action_id - self.draw_base
            hand = [TEXT_OF[c] for c in state.hands[state.current_player()]]  # type: ignore[attr-defined]
            return "draw:" + ",".join(t for i, t in enumerate(hand) if mask >> i & 1)
        raise ValueError(f"{self.game.name}: no action has id {action_id}")
