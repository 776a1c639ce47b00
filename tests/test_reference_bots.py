"""The ranking benchmark's passive variants (benchmarks/reference_bots.py): what they switch off,
and that they are the fixed, nested functions the benchmark's true order relies on."""

from typing import Any

import engine
from benchmarks.reference_bots import BotSpec, make_agent

BETS = {"bet", "raise", "half", "fold"}


class Recording(engine.Agent):
    """Plays as ``inner`` and keeps every (observation, legal, move)."""

    def __init__(self, inner: engine.Agent) -> None:
        self.inner = inner
        self.moves: list[tuple[dict[str, Any], list[str], str]] = []

    def start(self, info: dict[str, Any]) -> None:
        self.inner.start(info)

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        move = self.inner.act(observation, legal)
        self.moves.append((observation, list(legal), move))
        return move


def passive(p: float) -> engine.Agent:
    return make_agent("badugi", BotSpec("passive", p), 0)


def played_moves(p: float, seed: int) -> list[tuple[dict[str, Any], list[str], str]]:
    bot = Recording(passive(p))
    engine.run_match("badugi", {"players": 2, "hands": 20}, [bot, passive(1.0)], seed)
    return bot.moves


def test_passive_zero_never_bets_raises_or_folds_and_draws_as_the_heuristic() -> None:
    heuristic = engine.make_agent("badugi", "heuristic", 0)
    moves = played_moves(0.0, seed=3)
    draws = [m for m in moves if m[0]["phase"] == "draw"]
    assert draws and len(draws) < len(moves)
    for observation, legal, move in moves:
        if observation["phase"] == "draw":
            assert move == heuristic.act(observation, legal)
        else:
            assert move not in BETS
            assert move == ("check" if "check" in legal else "call")


def test_variants_are_nested_and_full_strength_is_the_heuristic() -> None:
    """Wherever a weaker variant keeps the heuristic's move, every stronger one does too."""
    heuristic = engine.make_agent("badugi", "heuristic", 0)
    ladder = [passive(p) for p in (1.0, 0.75, 0.5, 0.25)]
    switched = [0, 0, 0, 0]
    for observation, legal, _ in played_moves(0.5, seed=11) + played_moves(0.0, seed=12):
        best = heuristic.act(observation, legal)
        kept = [bot.act(observation, legal) == best for bot in ladder]
        assert kept[0]
        assert kept == sorted(kept, reverse=True)  # True for the strongest ones, then False
        switched = [n + (not k) for n, k in zip(switched, kept, strict=True)]
    assert switched[0] == 0 < switched[1] <= switched[2] <= switched[3]


def test_two_copies_end_a_duplicate_set_level() -> None:
    result = engine.run_match(
        "badugi", {"players": 2, "hands": 10}, [passive(0.5), passive(0.5)], 7, duplicate=True
    )
    assert result.scores[0] == result.scores[1]


def test_a_key_draws_the_coins_afresh_and_the_empty_key_is_the_unkeyed_hash() -> None:
    """``key`` makes another variant of the same family (benchmarks/variance.py --rekey): the
    empty key plays as the benchmarks' bots, another key switches other decisions off, and
    under one key the variants stay nested."""
    heuristic = engine.make_agent("badugi", "heuristic", 0)
    moves = played_moves(0.5, seed=11) + played_moves(0.0, seed=12)
    spec = BotSpec("passive", 0.5)
    plain, unkeyed = make_agent("badugi", spec, 0), make_agent("badugi", spec, 0, key=b"")
    keyed = [make_agent("badugi", BotSpec("passive", p), 0, key=b"other")
             for p in (1.0, 0.75, 0.5, 0.25)]  # fmt: skip
    differ = 0
    for observation, legal, _ in moves:
        assert plain.act(observation, legal) == unkeyed.act(observation, legal)
        differ += plain.act(observation, legal) != keyed[2].act(observation, legal)
        best = heuristic.act(observation, legal)
        kept = [bot.act(observation, legal) == best for bot in keyed]
        assert kept == sorted(kept, reverse=True)
    assert differ > 0
