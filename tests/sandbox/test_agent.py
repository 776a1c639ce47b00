"""SandboxedAgent end to end: the protocol as a bot sees it, lifecycle, modes and runtimes."""

from __future__ import annotations

import json
import logging
import os
import random
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import engine
from sandbox import Limits, SandboxedAgent, SandboxUnavailable, clock, load_bot, protocol
from sandbox.bwrap import check_bwrap
from sandbox.slots import NoFreeSlot, acquire_slot

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "examples" / "random"  # a packaged bot: bot.toml + bot.py
GAME, PARAMS = "belote", {"target": 1}

RECORDER = """
def log(message):
    sys.stderr.write(json.dumps(message) + "\\n")
    sys.stderr.flush()

def act(m):
    log(m)
    return m["legal"][-1]

serve(act, on_hello=log)
"""


def _messages(stderr_log: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stderr_log.splitlines() if line.startswith("{")]


def test_protocol_as_the_bot_sees_it(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    big = limits.replace(max_stderr_bytes=512 * 1024)
    with SandboxedAgent(write_bot(RECORDER), big) as bot:
        bot.start({"game": GAME, "seat": 2, "params": {"target": 1}, "match_seed": 99})
        assert bot.act({"hand": ["7h", "Ah"]}, ["7h", "Ah"]) == "Ah"
        assert bot.act({"hand": ["7h"]}, ["7h"]) == "7h"
        bot.finish({"scores": [1, 2, 3, 4]})
        messages = _messages(bot.stderr_log)
    hello, first, second = messages
    assert hello.pop("clock") in (clock.WALL, clock.CPU_WAIT_EXCLUDED)  # test_clock.py
    assert hello == {
        "type": "hello",
        "version": protocol.PROTOCOL_VERSION,
        "game": GAME,
        "seat": 2,
        "params": {"target": 1},
        "limits": {
            "decision_timeout_ms": 10_000,
            "match_time_bank_ms": 120_000,
            "time_bank_ms": 120_000,
            "max_line_bytes": 16 * 1024,
            "address_space_bytes": 256 * 1024 * 1024,
        },
    }
    assert "match_seed" not in json.dumps(hello)  # deals derive from it: never sent to bots
    assert (first["type"], first["id"], first["legal"]) == ("act", 1, ["7h", "Ah"])
    assert first["observation"] == {"hand": ["7h", "Ah"]}
    assert second["id"] == 2
    assert 0 < second["time_left_ms"] <= first["time_left_ms"] <= 120_000
    assert bot.decisions == 2 and bot.time_bank_ms < 120_000


def test_sandboxed_random_bots_play_a_duplicate_match(bwrap_ok: None, limits: Limits) -> None:
    agents = [SandboxedAgent(RANDOM_BOT, limits) for _ in range(4)]
    try:
        result = engine.run_match(GAME, PARAMS, agents, seed=5, duplicate=True)
    finally:
        for agent in agents:
            agent.close()
    assert result.faults == []
    assert len(result.games) == 2  # partnership game: both sides
    assert all(len(a.startup_seconds) == 2 for a in agents)  # one process per game
    assert json.dumps(result.replay)


def test_exception_mid_game_still_kills_the_bot(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path], gone: Callable[..., list[int]]
) -> None:
    path = write_bot("serve(lambda m: m['legal'][0])\n")
    with pytest.raises(RuntimeError, match="worker trouble"):
        with SandboxedAgent(path, limits) as bot:
            bot.start({"game": GAME, "seat": 0, "params": PARAMS})
            bot.act({}, ["a"])
            raise RuntimeError("worker trouble")
    assert gone(path.stem) == []


def test_stderr_log_heads_each_acts_lines_with_its_id(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    """The replay viewer shows an act's stderr to the bot's owner: the log heads what the bot
    wrote during each act (and only acts that wrote something) with the act's protocol id."""
    body = """
sys.stderr.write("starting\\n")
def act(m):
    if m["id"] != 2:
        sys.stderr.write(f"thinking about {m['id']}")  # a line left open: the header starts anew
        sys.stderr.flush()
    return m["legal"][0]
serve(act)
"""
    with SandboxedAgent(write_bot(body), limits) as bot:
        bot.start({"game": GAME, "seat": 0, "params": PARAMS})
        for _ in range(3):
            bot.act({}, ["a"])
        bot.finish({})
        log = bot.stderr_log
    assert log == (
        "--- game 1 ---\nstarting\n--- act 1 ---\nthinking about 1\n"
        "--- act 3 ---\nthinking about 3"
    )


def test_stderr_log_spans_games_and_is_capped(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    body = "sys.stderr.write('x' * 10000 + 'END\\n')\nserve(lambda m: m['legal'][0])\n"
    with SandboxedAgent(write_bot(body), limits) as bot:
        for seat in range(2):
            bot.start({"game": GAME, "seat": seat, "params": PARAMS})
            bot.act({}, ["a"])
            bot.finish({})
        log = bot.stderr_log
    assert "--- game 2 ---" in log and log.endswith("END\n")
    assert "earlier bytes dropped" in log
    assert len(log) <= limits.max_stderr_bytes + 100


def test_broken_sandbox_is_an_internal_error_not_the_bots_fault(
    bwrap_ok: None, limits: Limits
) -> None:
    bot = load_bot(RANDOM_BOT)
    shutil.rmtree(bot.root)  # the platform lost the staged files
    agents: list[engine.Agent] = [engine.RandomAgent(i) for i in range(4)]
    with SandboxedAgent(bot, limits) as broken:
        agents[0] = broken
        with pytest.raises(engine.MatchAborted, match="sandbox does not start"):
            engine.run_match(GAME, PARAMS, agents, seed=1)


def test_trusted_mode_is_explicit_and_logged(
    limits: Limits, write_bot: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    body = "serve(lambda m: 'unconfined' if not os.path.exists('/bot') else 'confined')\n"
    with caplog.at_level(logging.WARNING, logger="sandbox"):
        with SandboxedAgent(write_bot(body), limits, trusted=True) as bot:
            bot.start({"game": GAME, "seat": 0, "params": PARAMS})
            assert bot.act({}, ["unconfined", "confined"]) == "unconfined"
    assert "WITHOUT the sandbox" in caplog.text


def test_untrusted_bots_refused_without_bubblewrap(
    limits: Limits, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    check_bwrap.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable, match="bubblewrap .* is not installed"):
            SandboxedAgent(RANDOM_BOT, limits)
    finally:
        check_bwrap.cache_clear()


def test_node_runtime(bwrap_ok: None, limits: Limits, tmp_path: Path) -> None:
    if not os.path.exists("/usr/bin/node"):
        pytest.skip("no node here")
    source = tmp_path / "bot.js"
    source.write_text(
        """
        const rl = require("readline").createInterface({ input: process.stdin });
        rl.on("line", (line) => {
          const m = JSON.parse(line);
          if (m.type === "hello") console.log(JSON.stringify({ type: "ready" }));
          else if (m.type === "act") console.log(JSON.stringify({ id: m.id, action: m.legal[0] }));
          else rl.close();
        });
        """
    )
    with SandboxedAgent(source, limits) as bot:
        bot.start({"game": GAME, "seat": 0, "params": PARAMS})
        assert bot.act({}, ["Qs", "Kd"]) == "Qs"


C_BOT = r"""
#include <stdio.h>
#include <string.h>
int main(void) {
    static char line[1 << 16];
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"type\":\"hello\"")) { puts("{\"type\":\"ready\"}"); }
        else if (strstr(line, "\"type\":\"act\"")) {
            char *id = strstr(line, "\"id\":") + 5, *legal = strstr(line, "\"legal\":[\"") + 10;
            *strchr(legal, '"') = 0;
            printf("{\"id\":%ld,\"action\":\"%s\"}\n", strtol(id, NULL, 10), legal);
        } else break;
        fflush(stdout);
    }
    return 0;
}
"""


def test_native_static_runtime(bwrap_ok: None, limits: Limits, tmp_path: Path) -> None:
    if shutil.which("gcc") is None:
        pytest.skip("no C compiler here")
    (tmp_path / "bot.c").write_text("#include <stdlib.h>\n" + C_BOT)
    binary = tmp_path / "bot"
    built = subprocess.run(
        ["gcc", "-static", "-O1", "-o", str(binary), str(tmp_path / "bot.c")], capture_output=True
    )
    if built.returncode != 0:
        pytest.skip(f"no static libc: {built.stderr.decode()[:200]}")
    with SandboxedAgent(binary, limits) as bot:
        assert bot.runtime.runtime.name == "native"
        bot.start({"game": GAME, "seat": 0, "params": PARAMS})
        assert bot.act({"x": 1}, ["Td", "Ah"]) == "Td"


def test_uid_slots_are_distinct_and_released() -> None:
    if os.geteuid() != 0:
        pytest.skip("slots only matter for a root worker")
    first, second = acquire_slot(), acquire_slot()
    try:
        assert first.uid != second.uid and first.uid and first.uid >= 1000
    finally:
        first.release()
        second.release()


def test_lock_directory_made_by_someone_else_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a shared /tmp anybody can create arena-uids first (to hold every slot's lock or plant
    links for root to follow): a lock directory we do not own is refused."""
    if os.geteuid() != 0:
        pytest.skip("slots only matter for a root worker")
    planted = tmp_path / "arena-uids"
    planted.mkdir()
    os.chown(planted, 65534, 65534)
    monkeypatch.setenv("ARENA_SANDBOX_LOCKS", str(planted))
    with pytest.raises(NoFreeSlot, match="not a directory owned by us"):
        acquire_slot()
    planted.rmdir()
    planted.symlink_to(tmp_path)
    with pytest.raises(NoFreeSlot, match="not a directory owned by us"):
        acquire_slot()


def test_limits_validate() -> None:
    with pytest.raises(ValueError, match="decision_timeout_ms"):
        Limits(decision_timeout_ms=0)
    assert Limits().replace(cpu_seconds=3).cpu_seconds == 3


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (b"nope", "not JSON"),
        (b"[]", "JSON object"),
        (b'{"id": 2, "action": "x"}', "id 1"),
        (b'{"id": true, "action": "x"}', "id 1"),
        (b'{"id": 1}', '"action" as a string'),
        (b'{"id": 1, "action": 5}', '"action" as a string'),
        (b"\xff\xfe", "not UTF-8"),
        (b'{"id": 1, "action": ' + b"[" * 5000 + b"]" * 5000 + b"}", "nested too deeply"),
        (b'{"id": ' + b"1" * 5000 + b', "action": "x"}', "not JSON"),
        (b'{"id": 1e999999, "action": "x"}', "id 1"),  # inf
        (b'{"id": NaN, "action": "x"}', "id 1"),
    ],
)
def test_reply_parsing(line: bytes, error: str) -> None:
    with pytest.raises(protocol.ProtocolViolation, match=error):
        protocol.parse_reply(line, 1)
    assert protocol.parse_reply(b'{"id": 1, "action": "Qh", "note": "ok"}', 1) == "Qh"


@pytest.mark.parametrize("game", ["barbu", "badugi", "belote", "bauer"])
def test_protocol_lines_are_the_bytes_json_would_write(game: str) -> None:
    """``protocol.encode`` (orjson, for speed) writes every act, hello and over of real games
    exactly as ``json.dumps`` with compact separators and UTF-8 does (docs/protocol.md)."""

    def as_json(message: dict[str, object]) -> bytes:
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"

    rng = random.Random(3)
    for seed in range(3):
        state = engine.load_game(game).new_initial_state(seed)
        while (seat := state.current_player()) != engine.TERMINAL:
            legal, observation = state.legal_actions(), state.observation(seat)
            sent = {"type": "act", "id": 7, "observation": observation, "legal": legal}
            line = protocol.act(7, observation, legal, 59_870)
            assert line == as_json({**sent, "time_left_ms": 59_870}), line
            state.apply_action(rng.choice(legal))
        over = protocol.over({"scores": state.returns(), "terminal": True, "seat": 0})
        assert protocol.encode(over) == as_json(over)
    hello = protocol.hello(game, 1, {"é": "Belote à l'atout", 3: 0.5}, {"decision_ms": 1})
    assert protocol.encode(hello) == as_json(hello)
    with pytest.raises(TypeError):
        protocol.encode({"observation": object()})


def test_a_bot_that_never_gets_ready_costs_no_other_bot_its_start(
    bwrap_ok: None, write_bot: Callable[..., Path]
) -> None:
    """Issue 12 (1): start-up waits ran one after another, so a silent bot in seat 0 used up
    the start-up limits of the bots waited for after it, whose ``ready`` sat unread in the pipe."""
    limits = Limits(startup_timeout_ms=4_000, decision_timeout_ms=10_000)
    silent = write_bot("time.sleep(10**6)\n", name="silent")
    polite = write_bot("serve(lambda m: m['legal'][0])\n", name="polite")
    agents: list[engine.Agent] = [SandboxedAgent(silent, limits)]
    agents += [SandboxedAgent(polite, limits) for _ in range(3)]
    try:
        result = engine.run_match("barbu", {"mode": "base"}, agents, seed=3)
    finally:
        for agent in agents:
            agent.close()
    assert [(f.seat, f.verdict) for f in result.faults] == [(0, "timeout")]
    assert result.placings[0] == 4 and max(result.placings[1:]) < 4


UNTIL_EOF = """
import time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        send({"type": "ready"})
    elif message["type"] == "act":
        send({"id": message["id"], "action": message["legal"][0]})
"""
AFTER_OVER = UNTIL_EOF + """\
    elif message["type"] == "over":
        time.sleep(0.02)  # a summary that takes a moment to write
        sys.stderr.write("final scores " + json.dumps(message["result"]["scores"]) + "\\n")
sys.stderr.write("stdin closed: bye\\n")
"""


def test_stderr_written_after_over_reaches_the_log(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path], gone: Callable[..., list[int]]
) -> None:
    """After ``over`` the bot's stdin is closed and it has a short grace to finish its stderr
    (docs/protocol.md); then it is stopped, whether it exited or not."""
    path = write_bot(AFTER_OVER)
    with SandboxedAgent(path, limits) as bot:
        bot.start({"game": GAME, "seat": 0, "params": PARAMS})
        bot.act({}, ["a", "b"])
        bot.finish({"scores": [3, 1, 3, 1]})
        log = bot.stderr_log  # waits until the finished bot is stopped
        assert gone(path.stem) == []  # it exited by itself: nothing of it is left
    assert "final scores [3, 1, 3, 1]" in log and "stdin closed: bye" in log


def test_a_bot_that_lingers_after_over_is_stopped_after_the_grace(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path], gone: Callable[..., list[int]]
) -> None:
    path = write_bot(UNTIL_EOF + 'sys.stderr.write("lingering\\n")\ntime.sleep(3600)\n')
    with SandboxedAgent(path, limits) as bot:
        bot.start({"game": GAME, "seat": 0, "params": PARAMS})
        bot.act({}, ["a"])
        bot.finish({"scores": [0, 0, 0, 0]})
        assert "lingering" in bot.stderr_log
        assert gone(path.stem) == []  # stopped at the end of the grace
