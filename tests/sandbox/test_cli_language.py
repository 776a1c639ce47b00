"""The ``arena`` command in Korean and English (issue 19): the real command in a subprocess, its
language chosen from ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` as gettext does;
words translated, data (actions, JSON, verdicts) the same in both; and the catalogue complete,
checked and compiled by ``scripts/check_translations.sh``."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena_cli.i18n import columns, pad, table

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "arena_cli" / "locale" / "ko" / "LC_MESSAGES" / "arena.po"
KOREAN = {"LANG": "ko_KR.UTF-8"}
ENGLISH = {"LANG": "C.UTF-8"}
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
GENEROUS = ["--limit", "decision_timeout_ms=10000", "--limit", "startup_timeout_ms=20000",
            "--limit", "match_time_bank_ms=600000"]  # fmt: skip


def arena(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The installed command with exactly the locale variables in ``env``."""
    command = shutil.which("arena") or str(Path(sys.executable).parent / "arena")
    clean = {k: v for k, v in os.environ.items() if k not in LOCALE_VARIABLES}
    return subprocess.run(
        [command, *args], capture_output=True, text=True, timeout=300, cwd=ROOT,
        env=clean | env,
    )  # fmt: skip


def test_korean_help_lists_the_commands_in_korean() -> None:
    done = arena("--help", env=KOREAN)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("사용법: arena [-h]")
    assert "위치 인자:" in done.stdout and "옵션:" in done.stdout
    assert "이 도움말을 보여 주고 끝냅니다" in done.stdout  # argparse's own words too
    assert "경기를 하고 요약을 보여 줍니다" in done.stdout  # play
    assert "usage" not in done.stdout and "play matches" not in done.stdout
    play = arena("play", "--help", env=KOREAN)
    assert play.stdout.startswith("사용법: arena play [-h]")
    assert "--duplicate           자리를 돌려 같은 딜로 다시 경기합니다" in play.stdout


def test_korean_usage_errors() -> None:
    missing = arena("play", env=KOREAN)
    assert missing.returncode == 2
    lines = missing.stderr.splitlines()
    assert lines[0].startswith("사용법: arena play [-h]"), lines[0]  # nothing cut off
    assert lines[-1] == "arena play: 오류: 다음 인자가 필요합니다: game, bots"
    bad_int = arena("play", "badugi", "--seed", "z", env=KOREAN)
    assert bad_int.stderr.splitlines()[-1] == "arena play: 오류: 인자 --seed: 잘못된 int 값: 'z'"
    too_many = arena("play", "badugi", *["builtin:random"] * 3, env=KOREAN)
    assert too_many.returncode == 2
    assert too_many.stderr.strip() == (
        "arena: badugi에는 봇 2개가 필요한데 (자리마다 하나) 3개를 받았습니다. "
        "--param players=3를 붙이세요"
    )
    unknown = arena("play", "chess", "a", env=KOREAN)
    assert unknown.stderr.strip().startswith("arena: 알 수 없는 게임 'chess' (있는 게임: ")


@pytest.mark.parametrize(
    "env",
    [ENGLISH, {"LANG": "fr_FR.UTF-8"}, {"LANG": "en_US.UTF-8"}, {}, {"LANGUAGE": "de:fr"}],
    ids=["C", "french", "english", "nothing-set", "no-korean-in-LANGUAGE"],
)
def test_any_other_language_is_english(env: dict[str, str]) -> None:
    done = arena("play", env=env)
    assert done.returncode == 2
    assert done.stderr.startswith("usage: arena play [-h]")
    assert done.stderr.splitlines()[-1] == (
        "arena play: error: the following arguments are required: game, bots"
    )
    games = arena("games", env=env)
    assert "barbu: 4 seats; builtins: " in games.stdout
    assert "rules: docs/rules/barbu.md" in games.stdout


@pytest.mark.parametrize(
    ("env", "korean"),
    [
        ({"LANGUAGE": "ko", "LANG": "C.UTF-8"}, True),
        ({"LANGUAGE": "en", "LANG": "ko_KR.UTF-8"}, False),
        ({"LANGUAGE": "fr:ko_KR", "LANG": "C.UTF-8"}, True),  # the first with a catalogue
        ({"LC_ALL": "ko_KR.UTF-8", "LANG": "en_US.UTF-8"}, True),
        ({"LC_MESSAGES": "ko_KR.UTF-8", "LANG": "C.UTF-8"}, True),
        ({"LC_ALL": "C.UTF-8", "LC_MESSAGES": "ko_KR.UTF-8"}, False),
    ],
    ids=["LANGUAGE-ko", "LANGUAGE-en", "LANGUAGE-list", "LC_ALL", "LC_MESSAGES", "LC_ALL-first"],
)
def test_the_variables_are_read_in_gettext_order(env: dict[str, str], korean: bool) -> None:
    done = arena("play", "badugi", "builtin:random", env=env)
    assert done.returncode == 2
    expected = "봇 2개가 필요한데" if korean else "needs 2 bots (one per seat), got 1"
    assert expected in done.stderr, done.stderr


def test_games_name_the_games_and_the_korean_rules_pages() -> None:
    done = arena("games", env=KOREAN)
    assert done.returncode == 0, done.stderr
    assert "badugi (바둑이): 자리 2~6개 (--param players=N, 기본 2); 내장 봇: " in done.stdout
    titles = dict(re.findall(r"^(\w+) \((\S+)\): ", done.stdout, re.M))
    assert titles == {"belote": "벨로테", "bauer": "바우어", "barbu": "바흐뷰", "badugi": "바둑이"}
    pages = re.findall(r"규칙: (docs/rules/\w+\.ko\.md)$", done.stdout, re.M)
    assert len(pages) == 4 and all((ROOT / page).is_file() for page in pages)

    def options(out: str) -> list[str]:
        return [line.strip().split("  ")[0] for line in out.splitlines() if line.startswith("    ")]

    english = arena("games", env=ENGLISH).stdout
    assert options(done.stdout) == options(english)  # names and JSON values are data
    assert "    players=2  테이블 인원 (BDG-7)" in done.stdout  # the meanings are Korean
    assert "    players=2  players at the table (BDG-7)" in english


def test_the_summary_table_is_korean_and_its_columns_line_up() -> None:
    done = arena("play", "badugi", "builtin:heuristic", "builtin:random", "--param", "hands=4",
                 "--seed", "3", "--matches", "2", "--duplicate", env=KOREAN)  # fmt: skip
    assert done.returncode == 0, done.stderr
    headline, header, rule, *rows = done.stdout.splitlines()
    assert headline.startswith('badugi {"hands": 4}: 듀플리케이트 경기 2개, 시드 3..4, ')
    assert header.split() == ["참가자", "점수", "평균", "순위", "1위", "결정당", "ms", "평균", "/",
                              "최대", "시작", "ms", "반칙"]  # fmt: skip
    assert rule == "-" * columns(header)
    # right-aligned columns end in the same terminal column in the header and in every row
    ends = [columns(header[: header.index(word) + len(word)]) for word in ("점수", "1위")]
    for row in rows:
        cells = re.match(r"(\S+)\s+(-?\d+\.\d)\s+(\d\.\d\d)\s+(\d+)\s", row)
        assert cells is not None, row
        assert [cells.end(2), cells.end(4)] == ends, (header, row)


def _without_times(value: Any) -> Any:
    """A replay without the milliseconds each decision took (they differ from run to run)."""
    if isinstance(value, dict):
        return {k: _without_times(v) for k, v in value.items() if k != "ms"}
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


def test_data_reads_the_same_in_both_languages(tmp_path: Path) -> None:
    """Replay JSON, the action strings of ``arena view`` and the protocol messages of
    ``arena transcript`` do not depend on the language; the words around them do."""
    replays, views = {}, {}
    for name, env in (("ko", KOREAN), ("en", ENGLISH)):
        out = tmp_path / f"{name}.json"
        played = arena("play", "badugi", "builtin:heuristic", "builtin:random", "--param",
                       "hands=3", "--seed", "11", "--replay", str(out), env=env)  # fmt: skip
        assert played.returncode == 0, played.stderr
        replays[name] = _without_times(json.loads(out.read_text(encoding="utf-8")))
        view = arena("view", str(out), env=env)
        assert view.returncode == 0, view.stderr
        views[name] = view.stdout
    assert replays["ko"] == replays["en"]
    actions = re.compile(r"\d:(?:draw|drew|call|check|bet|raise|fold)\S*")
    assert actions.findall(views["ko"]) == actions.findall(views["en"]) != []
    assert "  -- 딜 1, 딜러 자리 " in views["ko"] and "  -- deal 1, dealer seat " in views["en"]
    assert "     베팅:   " in views["ko"] and "     bets:  " in views["en"]
    summary = re.compile(r"^     (?:요약|summary): (.*)$", re.M)
    summaries = [summary.findall(views[name]) for name in ("ko", "en")]
    assert summaries[0] == summaries[1] != []  # the deal's public summary is JSON: data
    transcripts = [arena("transcript", "badugi", env=env).stdout for env in (KOREAN, ENGLISH)]
    assert transcripts[0] == transcripts[1] != ""


def test_a_fault_is_explained_in_korean_and_its_verdict_stays_a_verdict(
    bwrap_ok: None, write_bot: Callable[..., Path]
) -> None:
    bad = write_bot("serve(lambda m: 'nonsense')\n", name="bad")
    done = arena("validate", str(bad), "--game", "badugi", *GENEROUS, env=KOREAN)
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(r"^반칙: 게임 1 \(자리 0, 결정 \d+\): illegal_action$", done.stdout, re.M)
    hint = "  도움말: 행동은 act의 legal 목록에 있는 문자열 하나를 그대로 써야 합니다"
    assert hint in done.stdout
    assert "내 봇의 stderr (마지막 줄들):" in done.stdout


def test_the_server_client_speaks_korean_too(tmp_path: Path) -> None:
    """Its errors before (or without) any server: no login, a missing file, nobody listening."""
    env = KOREAN | {"ARENA_CONFIG": str(tmp_path / "credentials"), "ARENA_TOKEN": "",
                    "ARENA_URL": "http://127.0.0.1:1"}  # fmt: skip
    anonymous = arena("status", env=env)
    assert anonymous.returncode == 4
    assert anonymous.stderr.strip() == (
        "arena: 로그인하지 않았습니다: arena login을 실행하세요 (또는 ARENA_TOKEN을 설정하세요)"
    )
    missing = tmp_path / "missing.py"
    no_file = arena("submit", str(missing), "--bot", "b", "--game", "barbu",
                    env=env | {"ARENA_TOKEN": "t"})  # fmt: skip
    assert no_file.returncode == 2
    assert no_file.stderr.strip() == f"arena: {missing}: 그런 파일이나 폴더가 없습니다"
    nobody = arena("status", env=env | {"ARENA_TOKEN": "t"})
    assert nobody.returncode == 3
    assert nobody.stderr.startswith("arena: http://127.0.0.1:1에 연결할 수 없습니다: ")


def test_display_width_counts_hangul_as_two_columns() -> None:
    assert columns("참가자") == 6 and columns("bot") == 3
    assert pad("점수", 6, ">") == "  점수" and pad("점수", 6) == "점수  "
    assert table([("이름", "<", 0), ("n", ">", 3)], [["abcdef", "1"]], rule=True) == [
        "이름      n", "-----------", "abcdef    1",
    ]  # fmt: skip


def _check_a_copy(
    tmp_path: Path, edit: Callable[[Path], None] | None = None
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Run ``check_translations.sh arena`` on a copy of the command's sources and catalogue,
    after ``edit(copied_root)`` (the real script and programs; the checkout is left alone)."""
    shutil.copytree(ROOT / "scripts", tmp_path / "scripts")
    shutil.copytree(ROOT / "arena_cli", tmp_path / "arena_cli",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    if edit is not None:
        edit(tmp_path)
    done = subprocess.run(
        ["bash", str(tmp_path / "scripts" / "check_translations.sh"), "arena"],
        capture_output=True, text=True, timeout=120, env=os.environ | {"PYTHON": sys.executable},
    )  # fmt: skip
    return done, tmp_path / "arena_cli" / "locale" / "ko" / "LC_MESSAGES" / "arena.po"


def _decompiled(mo: Path) -> str:
    return subprocess.run(["msgunfmt", str(mo)], capture_output=True, text=True,
                          check=True).stdout  # fmt: skip


def test_the_catalogue_is_complete_and_its_compiled_form_up_to_date(tmp_path: Path) -> None:
    done, po = _check_a_copy(tmp_path)
    assert done.returncode == 0, done.stderr
    # re-extracting and merging changed nothing: every marked string (and argparse's) is there
    assert po.read_text(encoding="utf-8") == CATALOGUE.read_text(encoding="utf-8")
    # the committed .mo says what a fresh compile of the .po says
    assert _decompiled(CATALOGUE.with_suffix(".mo")) == _decompiled(po.with_suffix(".mo"))


def test_the_check_fails_on_a_string_nobody_translated(tmp_path: Path) -> None:
    def add_a_heading(root: Path) -> None:
        source = root / "arena_cli" / "summary.py"
        text = source.read_text(encoding="utf-8")
        assert '_("avg place")' in text
        source.write_text(text.replace('_("avg place")', '_("a new heading")'), encoding="utf-8")

    done, _po = _check_a_copy(tmp_path, add_a_heading)
    assert done.returncode == 1
    assert "arena.po: 1 untranslated, 0 fuzzy" in done.stderr
    assert 'msgid "a new heading"' in done.stderr
