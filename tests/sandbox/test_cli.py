"""The ``arena`` command: play, validate, games."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import engine
from arena_cli.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
#: bots that must answer get 10-50x the time they need even on a loaded machine (the defaults
#: are meant for production, not for a CI machine under load): no verdict depends on its speed
GENEROUS = ["--limit", "decision_timeout_ms=10000", "--limit", "startup_timeout_ms=20000",
            "--limit", "match_time_bank_ms=600000"]  # fmt: skip


def test_play_summary_and_replays(
    bwrap_ok: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = [str(EXAMPLES / "belote" / "heuristic.py"), "builtin:random", str(EXAMPLES / "random")]
    code = main(
        ["play", "belote", *bots, "builtin:heuristic", "--matches", "2", "--duplicate",
         "--seed", "7", "--param", "target=100", "--replay", str(tmp_path / "out.json"), *GENEROUS]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert 'belote {"target": 100}: 2 duplicate match(es), seeds 7..8' in out
    for name in ("heuristic", "builtin:random", "random", "builtin:heuristic"):
        assert f"\n{name} " in out
    replays = sorted(tmp_path.glob("out-*.json"))
    assert [p.name for p in replays] == ["out-001.json", "out-002.json"]
    replay = json.loads(replays[0].read_text())
    assert replay["format"] == "card-arena-replay" and replay["seed"] == 7


def test_play_reports_faults_with_the_bots_log(
    bwrap_ok: None, write_bot: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write_bot("sys.stderr.write('about to misbehave\\n')\nserve(lambda m: 'nonsense')\n")
    code = main(
        ["play", "bauer", str(bad), *["builtin:random"] * 3, "--param", "start_points=1", *GENEROUS]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "illegal_action×1" in out
    assert "'nonsense' is not legal" in out
    assert "about to misbehave" in out


def test_bot_logs_cannot_drive_the_terminal(
    bwrap_ok: None, write_bot: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Another author's stderr shown by ``arena play`` loses its escape sequences (clear the
    screen, write the clipboard with OSC 52, retitle the window)."""
    bad = write_bot(
        "sys.stderr.write('\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07\\x1b]0;pwned\\x07 hi\\n')\n"
        "serve(lambda m: 'nonsense')\n"
    )
    code = main(
        ["play", "bauer", str(bad), *["builtin:random"] * 3, "--param", "start_points=1", *GENEROUS]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07" in out


def test_validate_ok_and_fault(
    bwrap_ok: None, write_bot: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    minimal = str(EXAMPLES / "badugi" / "minimal.py")
    assert main(["validate", minimal, "--game", "badugi", *GENEROUS]) == 0
    assert "OK: no faults" in capsys.readouterr().out

    slow = write_bot("serve(lambda m: time.sleep(10**6))\n")  # never answers: a sure timeout
    code = main(
        ["validate", str(slow), "--game", "belote", *GENEROUS, "--limit", "decision_timeout_ms=200"]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "FAULT in game 1" in out and ": timeout" in out
    assert "no answer within 200 ms" in out
    assert "hint: answer every act" in out


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "belote", "builtin:random"]) == 2
    assert "belote needs 4 bots" in capsys.readouterr().err
    assert main(["play", "chess", "a", "b"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
    assert main(["validate", "/nonexistent.py", "--game", "barbu"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["play", "badugi", "builtin:random", "builtin:random", "--limit", "x=1"]) == 2
    assert main(["games"]) == 0
    assert "barbu: 4 seats" in capsys.readouterr().out


def test_arena_verify_accepts_a_true_replay_and_rejects_a_forged_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agents = [engine.make_agent("bauer", "random", i) for i in range(4)]
    replay = engine.run_match("bauer", {"start_points": 2}, agents, seed=5).replay
    good = tmp_path / "good.json"
    good.write_text(json.dumps(replay))
    replay["games"][0]["deals"][0]["scores"][0] += 1
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(replay))
    assert main(["verify", str(good)]) == 0
    assert main(["verify", str(good), str(forged), str(tmp_path / "missing.json")]) == 1
    out = capsys.readouterr().out
    assert "good.json: ok (bauer" in out
    assert "forged.json: INVALID: game 0, deal 0: scores differ" in out
    assert "missing.json: INVALID: cannot read it (No such file or directory)" in out


def _arena(*args: str) -> list[str]:
    """The installed ``arena`` command (a real process, as an author runs it)."""
    import shutil
    import sys

    found = shutil.which("arena") or str(Path(sys.executable).parent / "arena")
    return [found, *args]


def test_games_shows_badugi_seat_range_and_the_rules_pages() -> None:
    import subprocess

    done = subprocess.run(_arena("games"), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert "badugi: 2-6 seats (--param players=N, default 2)" in done.stdout
    assert "rules: docs/rules/barbu.md" in done.stdout
    # every option with its default and its meaning, one line each
    assert "\n    doubling=false  Add the designation phase and side bets" in done.stdout


def test_too_many_badugi_bots_suggest_the_players_option() -> None:
    import subprocess

    bots = ["builtin:random"] * 3
    done = subprocess.run(_arena("play", "badugi", *bots), capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "arena: badugi needs 2 bots (one per seat), got 3; add --param players=3"
    )


def test_a_reader_that_left_is_not_an_error() -> None:
    """``arena transcript barbu | head -1``: the reader may be gone before arena writes."""
    import os
    import subprocess

    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has already gone
    try:
        done = subprocess.run(_arena("transcript", "barbu"), stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=60)  # fmt: skip
    finally:
        os.close(write_end)
    assert done.returncode == 0
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr
