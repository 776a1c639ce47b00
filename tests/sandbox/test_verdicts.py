"""Verdicts from evidence (issue 29): a bot is blamed for ``memory`` only when its own group
counted an out-of-memory kill; a SIGKILL the bot did not cause is the platform's fault (the
match is aborted and retried), and a bot cannot forge one because it cannot send SIGKILL."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

import engine
from sandbox import Limits, SandboxedAgent
from tests.sandbox.conftest import processes_matching

SLEEPER = """
serve(lambda m: time.sleep(10**6))
"""


def _bot_processes(token: str) -> list[int]:
    """The bot's own (interpreter) processes, not the bubblewrap around them."""
    found = []
    for pid in processes_matching(token):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                program = f.read().split(b"\0", 1)[0]
        except OSError:
            continue
        if os.path.basename(program).startswith(b"python"):
            found.append(pid)
    return found


def test_a_kill_from_outside_is_the_platforms_fault(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    """An operator's (or another deployment's) SIGKILL used to read ``memory``: now it is an
    internal error marked transient, which aborts the match for another attempt."""
    path = write_bot(SLEEPER, name="victim")
    with SandboxedAgent(path, limits) as bot:
        bot.start({"game": "badugi", "seat": 0, "params": {}})
        bot.wait_ready()
        victims = _bot_processes(path.stem)
        assert victims
        for pid in victims:
            os.kill(pid, signal.SIGKILL)
        with pytest.raises(engine.AgentFault) as raised:
            bot.act({}, ["fold"])
    fault = raised.value
    assert fault.verdict == engine.Verdict.INTERNAL_ERROR, fault
    assert fault.detail.get("transient") is True
    assert "not the bot's fault" in fault.message


def test_the_match_of_a_bot_killed_from_outside_is_aborted_not_scored(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    path = write_bot('serve(lambda m: m["legal"][0])\n', name="victim")

    class Killer(engine.RandomAgent):
        """Kills the other seat's bot from outside at its every decision (the bot is frozen
        then: it dies when thawed for its next decision)."""

        def act(self, observation: dict[str, object], legal: list[str]) -> str:
            for pid in _bot_processes(path.stem):
                os.kill(pid, signal.SIGKILL)
            return super().act(observation, legal)

    with SandboxedAgent(path, limits) as bot:
        agents: list[engine.Agent] = [Killer(1), bot]
        with pytest.raises(engine.MatchAborted, match="not the bot's fault"):
            engine.run_match("badugi", {"hands": 4}, agents, seed=3)


def test_a_bot_cannot_send_sigkill_but_other_signals_work(
    bwrap_ok: None, limits: Limits, write_bot: Callable[..., Path]
) -> None:
    body = """
import signal
def act(m):
    child = os.fork()
    if child == 0:
        time.sleep(10**6)
    for name, target in (("self", os.getpid()), ("child", child)):
        try:
            os.kill(target, signal.SIGKILL)
            sys.stderr.write(f"SIGKILL {name}: sent\\n")
        except OSError as err:
            sys.stderr.write(f"SIGKILL {name}: {err.errno}\\n")
    os.kill(child, signal.SIGTERM)
    _, status = os.waitpid(child, 0)
    sys.stderr.write(f"SIGTERM child: {os.waitstatus_to_exitcode(status)}\\n")
    return m["legal"][0]
serve(act)
"""
    with SandboxedAgent(write_bot(body, name="killer"), limits) as bot:
        agents: list[engine.Agent] = [bot, engine.RandomAgent(1)]
        result = engine.run_match("badugi", {"hands": 1}, agents, seed=1)
        log = bot.stderr_log
    assert result.faults == [], log
    assert "SIGKILL self: 1\n" in log and "SIGKILL child: 1\n" in log
    assert f"SIGTERM child: {-signal.SIGTERM}\n" in log
