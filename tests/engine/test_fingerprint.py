# ruff: noqa: E501  (the golden table: one option set and its hash per line)
"""Golden fingerprints: the engine's behaviour, byte for byte, across speed work.

For every game and option set (the conformance suite's example parameters, plus Bauer and Belote
variants), seeded random playouts are hashed: the JSON of every observation of every seat at
every decision (key order included), every legal list, and the game's replay section. A change
of any deck, rule, observation or replay byte changes a hash. The golden values were recorded
before the engine's speed work (issue 15); regenerate them only for an intended behaviour change,
with ``python tests/engine/test_fingerprint.py``, and say so in the change.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine  # noqa: E402
from engine.registry import game_class  # noqa: E402
from engine.replay import game_replay  # noqa: E402

EXTRA_PARAMS: dict[str, list[dict[str, Any]]] = {
    "bauer": [{}, {"start_points": 3}, {"start_points": 8, "max_deals": 5}],
    "belote": [{"undertrump": True}, {"overtrump_on_trump_lead": False, "target": 500}],
}
SEEDS = (0, 1)


def option_sets() -> list[tuple[str, dict[str, Any]]]:
    return [
        (name, params)
        for name in engine.available_games()
        for params in getattr(game_class(name), "example_params", []) + EXTRA_PARAMS.get(name, [])
    ]


def case_id(name: str, params: dict[str, Any]) -> str:
    return f"{name}-{json.dumps(params, sort_keys=True)}"


def fingerprint(name: str, params: dict[str, Any]) -> str:
    """sha256 of seeded random playouts of ``name`` with ``params`` (see the module docstring)."""
    game = engine.load_game(name, **params)
    digest = hashlib.sha256()
    for seed in SEEDS:
        state = game.new_initial_state(seed)
        pick = random.Random(seed + 1000).random
        while True:
            for seat in range(game.num_players):
                digest.update(json.dumps(state.observation(seat)).encode())
            to_act = state.current_player()
            if to_act < 0:
                break
            legal = state.legal_actions()
            digest.update(json.dumps(legal).encode())
            action = legal[int(pick() * len(legal))]
            if action == "fold":  # fold less, so that Badugi hands reach draws and reshuffles
                action = legal[int(pick() * len(legal))]
            state.apply_action(action)
        replay = game_replay(state, list(range(game.num_players)), [], [])
        digest.update(json.dumps(replay).encode())
    return digest.hexdigest()


GOLDEN: dict[str, str] = {
    'badugi-{}': 'dfc99fce0fb03df7e0301ac93e9026b12e321513d5928355c1288e7ac1ee98d2',
    'badugi-{"players": 3}': '2a207a05beebf911d6c7e31caaecb2831d10ccf4f9c17868c06655720d699d86',
    'badugi-{"hands": 30, "players": 6}': 'dfd720e8492eb1247bc1d633486df7fdff190cbf6898c3e41e94bc17bfd29652',
    'badugi-{"hands": 30, "never_return_own_discards": true, "players": 6}': '266d3903355e4f1f5f95d520e3b3b02309bedde6830aea28aa1ff010e6051ef6',
    'badugi-{"big_bet": 20, "big_blind": 10, "hands": 20, "max_bets_per_round": 5, "players": 4, "small_blind": 5, "stack": 1000}': '0a5d13dc74bdba0db48a85714bed0aa76a963ad274c642441305ea12c0e2d69a',
    'badugi-{"hands": 50, "unlimited_heads_up": true}': '0c74f831a5dc78ffb57e918eada5f089d38abaa4fbb48049ad4581a88b790f42',
    'badugi-{"hands": 20, "players": 4, "unlimited_heads_up": true}': 'c0e7d3a2753ccf7a5d7e10632d55af7d6e869c20cfe00724e8ddd83cb16668bc',
    'badugi-{"hands": 50, "korean_betting": true}': '92fa4c056c4db091dd18caa50275d8b01a4732f80e02e993a1487bfe5dddcf0a',
    'badugi-{"ante": 2, "hands": 20, "korean_betting": true, "max_raises_per_round": 2, "players": 5}': 'c0b1c8c450b7cdce5f8e655e2aac6431c29628102dbff670e06d927d04102fb1',
    'barbu-{}': '80c5dd3a0cd6246f68a5e35f4a7db706fc9840b1c6f542bd6f70e9dc7c7e5bcb',
    'barbu-{"mode": "repeat", "repeats": 3}': 'bf01e863d6060f6e265d00fd8d3a89769dd58b4fdab187929d2b3f8960fcd992',
    'barbu-{"mode": "geronimo"}': 'ce03abe58f9fad569b9f0426a7c74bc271e539afb44dd0b2247d727503cb8ea5',
    'barbu-{"doubling": true, "mode": "geronimo"}': '06e186f82046862a8cac4b173a30ed47e85d78c6ec0e242a05924f16a9a74472',
    'barbu-{"doubling": true, "doubling_any_subset": true, "doubling_cap_per_deal": 1, "doubling_payout": "proposer_gain_only", "mode": "geronimo"}': '08b7ddefd6bfe1357e7da120bf58533dc17ca7a9668edb9b1b0b3c71bfbc8209',
    'barbu-{"doubling": true, "geronimo_blocks": true, "mode": "geronimo", "pagat_doubling_duties": true}': '405051fc15a854a73c078e4f2b5b00d51de118091a035cd822758f0d3a1bcd7f',
    'barbu-{"salad": true}': '848819a620fe180042b2f8f6fbaedf610b64ab8411264d41f6a6a414a65e2a8c',
    'barbu-{"deck": 32, "doubling": true, "mode": "geronimo", "salad": true}': 'bfec66f45c8389493b7cd489e5a49c2d513c70f07f7716bb5d9d384c280be533',
    'barbu-{"deck": 32, "mode": "repeat", "repeats": 2}': 'b645ba45d5171c715670e93b02bbc60c8c8c029bf75421af1161c82b386fa25b',
    'barbu-{"domino_first": "left", "first_player": "declarer", "force_kh_discard": true, "must_overtrump": true, "must_trump_when_void": true}': '7e69069e2f09158cb57896dbf39af54019710560c173ead3fc9fb6a2c2f428cb',
    'bauer-{}': 'aba8271ebc974e48395caa7ce90e165527f58e6b6b15aee561c58f441147dc9b',
    'bauer-{"start_points": 3}': '56ed10d174c7443dd306749aebc4e896fd92db0f298de67ba9e3ffd7dbd18142',
    'bauer-{"max_deals": 5, "start_points": 8}': 'f92935ce5f36d3f496cae71162e12b62f742d4d6d146a33eb2e32ba9dd8bbeeb',
    'belote-{}': '55aa7328df0b960bcf10da1d227173a7cc46c0f809c2155722fcedd3d83fd78e',
    'belote-{"belote_stays_with_holder": true, "capot_all_tricks": true, "defender_capot_bonus": false, "first_lead": "eldest", "overtrump_on_trump_lead": false, "target": 300, "target_inclusive": true, "undertrump": true}': '8d36d702cd952086b1880460728243c0b60b72b4d71f8538ed5783c23f41e4f3',
    'belote-{"undertrump": true}': '08b3d48ad52d88bd3d31ac2070ba5d33c8dc4b8899c05bd2c75ba5ceb5e777cd',
    'belote-{"overtrump_on_trump_lead": false, "target": 500}': 'e57f57fe763ffa7465a0ca3e79da35aa14c84006ea3c8068befef380a64a5174',
}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "params"), [pytest.param(n, p, id=case_id(n, p)) for n, p in option_sets()]
)
def test_behaviour_is_byte_identical_to_the_recorded_fingerprint(
    name: str, params: dict[str, Any]
) -> None:
    assert fingerprint(name, params) == GOLDEN[case_id(name, params)]


def test_every_option_set_has_a_golden_fingerprint() -> None:
    assert sorted(GOLDEN) == sorted(case_id(n, p) for n, p in option_sets())


if __name__ == "__main__":
    for n, p in option_sets():
        print(f"    {case_id(n, p)!r}: {fingerprint(n, p)!r},")
