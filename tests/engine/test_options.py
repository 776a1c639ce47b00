"""``engine.options.describe_game`` says exactly what ``load_game`` accepts."""

from __future__ import annotations

import pytest

import engine
from engine.options import describe_game


@pytest.mark.parametrize("game", engine.available_games())
def test_described_options_are_what_load_game_accepts(game: str) -> None:
    spec = describe_game(game)
    defaults = engine.load_game(game).params_dict()
    assert [o.name for o in spec.options] == list(defaults)
    for option in spec.options:
        assert option.default == defaults[option.name]
        assert option.type in ("boolean", "integer", "string")
        if option.maximum is not None:
            with pytest.raises(engine.InvalidParams, match=option.name):
                engine.load_game(game, **{option.name: option.maximum + 1})
        if option.choices is not None:
            with pytest.raises(engine.InvalidParams, match=option.name):
                engine.load_game(game, **{option.name: "not-a-choice"})
    assert spec.min_seats <= spec.default_seats <= spec.max_seats


def test_seats_of_a_variable_table() -> None:
    spec = describe_game("badugi")
    assert (spec.min_seats, spec.max_seats, spec.default_seats) == (2, 6, 2)
