"""The author's local workflow through the real ``arena`` command (a subprocess, as typed):
stderr on demand, ``arena view``, team tables, start-up faults, one decision numbering and
one-line errors for the usual mistakes."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENEROUS = ["--limit", "decision_timeout_ms=10000", "--limit", "startup_timeout_ms=20000",
            "--limit", "match_time_bank_ms=600000"]  # fmt: skip
CARD = re.compile(r"(?<![A-Za-z0-9?])[2-9TJQKA][shdc](?![A-Za-z0-9])")


def arena(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = shutil.which("arena") or str(Path(sys.executable).parent / "arena")
    return subprocess.run(
        [command, *args], capture_output=True, text=True, timeout=300, cwd=ROOT,
        env=os.environ | (env or {}),
    )  # fmt: skip


def one_line_error(done: subprocess.CompletedProcess[str], expected: str) -> None:
    assert done.returncode == 2, done
    assert done.stderr.strip() == f"arena: {expected}", done.stderr
    assert "Traceback" not in done.stderr


def test_options_may_come_between_the_bots() -> None:
    bots = ["builtin:random"] * 4
    done = arena("play", "belote", bots[0], "--seed", "5", *bots[1:], "--param", "target=100")
    assert done.returncode == 0, done.stderr
    assert 'belote {"target": 100}: 1 single match(es), seeds 5..5' in done.stdout


def test_team_games_rank_teams_and_list_each_bots_own_figures() -> None:
    done = arena(
        "play", "bauer", "builtin:heuristic", "builtin:random", "builtin:heuristic",
        "builtin:random", "--duplicate", "--matches", "2", "--param", "start_points=2", "-q",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    teams = [line for line in lines if line.startswith(("A: ", "B: "))]
    assert teams[0].startswith("A: builtin:heuristic + builtin:heuristic#2")
    assert teams[1].startswith("B: builtin:random + builtin:random#2")
    assert teams[0].split()[-1] == "2" and teams[1].split()[-1] == "0"  # 1st places: teams
    bot_header = next(line for line in lines if line.startswith("bot "))
    assert "1st" not in bot_header and "score" not in bot_header  # no bot wins by its partner
    assert re.search(r"^builtin:random#2\s+B\s", done.stdout, re.M)


def test_a_bot_that_cannot_start_is_reported_once_and_not_credited_with_moves(
    bwrap_ok: None, write_bot: Callable[..., Path]
) -> None:
    broken = write_bot("print(1\n", name="broken", prelude=False)  # a syntax error
    done = arena("play", "barbu", str(broken), *["builtin:random"] * 3, "--duplicate", *GENEROUS)
    assert done.returncode == 0, done.stderr
    failed = [line for line in done.stdout.splitlines() if "failed to start" in line]
    assert len(failed) == 1, done.stdout
    assert "games 1, 2, 3, 4: broken_" in failed[0] and "crash: exited with code 1" in failed[0]
    row = next(line for line in done.stdout.splitlines() if line.startswith("broken_"))
    assert re.search(r"\s-\s+-\s+crash×4$", row), row  # no time per decision: none were its own
    assert "SyntaxError" in done.stdout


def test_a_timeout_names_the_game_decision_and_the_bots_own_act(
    bwrap_ok: None, write_bot: Callable[..., Path]
) -> None:
    slow = write_bot(
        "serve(lambda m: time.sleep(10**6) if m['id'] == 3 else m['legal'][0])\n", name="slow"
    )
    done = arena(
        "play", "barbu", str(slow), *["builtin:random"] * 3, *GENEROUS,
        "--limit", "decision_timeout_ms=300",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if ": timeout:" in line)
    decision = int(re.search(r"decision (\d+):", line).group(1))  # type: ignore[union-attr]
    assert decision >= 3  # the bot's third act is at least the game's third decision
    assert "no answer within 300 ms for act 3" in line
    assert line.count("decision") == 1  # one numbering: the game's; the bot's is its act id


def test_show_stderr_prints_a_bots_log_when_nothing_went_wrong(
    bwrap_ok: None, write_bot: Callable[..., Path]
) -> None:
    chatty = write_bot(
        "def act(m):\n    sys.stderr.write(f'thinking about act {m[\"id\"]}\\n')\n"
        "    return m['legal'][0]\nserve(act)\n",
        name="chatty",
    )
    bots = [str(chatty), "builtin:random"]
    quiet = arena("play", "badugi", *bots, "--param", "hands=4", *GENEROUS)
    assert quiet.returncode == 0 and "thinking about" not in quiet.stdout
    shown = arena("play", "badugi", *bots, "--param", "hands=4", "--show-stderr", "0", *GENEROUS)
    assert shown.returncode == 0, shown.stderr
    assert "stderr of chatty_" in shown.stdout and "thinking about act" in shown.stdout
    validated = arena("validate", str(chatty), "--game", "badugi", *GENEROUS)
    assert validated.returncode == 0, validated.stdout
    assert "your bot's stderr" in validated.stdout and "thinking about act" in validated.stdout
    one_line_error(
        arena("play", "badugi", *bots, "--show-stderr", "2"),
        "--show-stderr '2': expected all or a seat from 0 to 1",
    )


def test_view_prints_a_replay_and_a_seat_view_shows_only_that_seats_cards(
    tmp_path: Path,
) -> None:
    out = tmp_path / "belote.json"
    played = arena("play", "belote", *["builtin:heuristic"] * 4, "--param", "target=200",
                   "--replay", str(out))  # fmt: skip
    assert played.returncode == 0, played.stderr
    full = arena("view", str(out))
    assert full.returncode == 0, full.stderr
    assert "-- deal 1, dealer seat" in full.stdout and "trick  8:" in full.stdout
    seat = arena("view", str(out), "--seat", "2")
    assert seat.returncode == 0, seat.stderr
    assert "seed not shown, as seat 2 saw it" in seat.stdout
    replay = json.loads(out.read_text())
    first = replay["games"][0]["deals"][0]
    for other in (0, 1, 3):
        assert f"hand {other}: 5 hidden cards" in seat.stdout
        unseen = set(first["hands"][other]) - {e["action"] for e in first["events"]}
        deal_text = seat.stdout.split("-- deal 2")[0]
        assert not unseen & set(CARD.findall(deal_text)), unseen


def test_the_usual_mistakes_get_one_line(tmp_path: Path) -> None:
    not_zip = tmp_path / "bot.zip"
    not_zip.write_text("hello")
    one_line_error(
        arena("validate", str(not_zip), "--game", "barbu"),
        "bot.zip: not a zip archive (is the file complete?)",
    )
    missing = tmp_path / "missing.json"
    one_line_error(
        arena("view", str(missing)), f"{missing}: cannot read it (No such file or directory)"
    )
    done = arena("verify", str(missing))
    assert done.returncode == 1
    assert done.stdout.strip() == f"{missing}: INVALID: cannot read it (No such file or directory)"
    target = tmp_path / "no" / "such" / "out.json"
    one_line_error(
        arena("play", "barbu", *["builtin:random"] * 4, "--replay", str(target)),
        f"--replay {target}: folder {target.parent} does not exist",
    )
    assert not (tmp_path / "no").exists()


def test_a_bad_sandbox_setting_is_one_line(bwrap_ok: None) -> None:
    if os.geteuid() != 0:
        pytest.skip("the uid pool is only read by a root process (which drops to those uids)")
    bot = str(ROOT / "examples" / "barbu" / "minimal.py")
    one_line_error(
        arena("validate", bot, "--game", "barbu", env={"ARENA_SANDBOX_UID_BASE": "lots"}),
        "ARENA_SANDBOX_UID_BASE='lots': expected a whole number such as 60000",
    )


def test_a_downloaded_seat_view_can_be_viewed_and_is_not_called_corrupt(tmp_path: Path) -> None:
    """A replay saved as one seat saw it (``arena replay --seat N``): viewing it as that seat
    works, another seat is one line, and verify says why it cannot re-simulate it."""
    from engine import seat_view

    out = tmp_path / "belote.json"
    played = arena("play", "belote", *["builtin:heuristic"] * 4, "--param", "target=200",
                   "--replay", str(out))  # fmt: skip
    assert played.returncode == 0, played.stderr
    view = tmp_path / "seat1.json"
    view.write_text(json.dumps(seat_view(json.loads(out.read_text()), 1)))
    same = arena("view", str(view), "--seat", "1")
    assert same.returncode == 0 and "seed not shown, as seat 1 saw it" in same.stdout, same.stderr
    summaries = [line for line in same.stdout.splitlines() if "summary:" in line]
    assert summaries and all("{" not in line for line in summaries)  # words, not JSON
    assert "summary: upcard " in summaries[0] and " · trump " in summaries[0]
    one_line_error(arena("view", str(view), "--seat", "2"),
                   f"{view} is already seat 1's view: it cannot show another seat's")  # fmt: skip
    verify = arena("verify", str(view))
    assert verify.returncode == 1 and "INVALID" not in verify.stdout
    assert f"{view}: not verifiable: seat 1's view has no seed or deck" in verify.stdout
