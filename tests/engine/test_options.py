"""``engine.options.describe_game`` says exactly what ``load_game`` accepts."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine
from engine.options import describe_game, option_meanings


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


@pytest.mark.parametrize("language", ["en", "ko"])
def test_every_option_has_a_one_line_meaning_in_both_languages(language: str) -> None:
    for name in engine.available_games():
        meanings = option_meanings(name, language=language)
        options = [option.name for option in describe_game(name).options]
        assert sorted(meanings) == sorted(options), name
        assert all(meanings[o] and "\n" not in meanings[o] for o in options), name


def test_without_the_rules_pages_options_have_no_meaning(tmp_path: Path) -> None:
    assert option_meanings("belote", rules_dir=tmp_path) == {}
