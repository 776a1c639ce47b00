"""Play one match of stored bot versions in the sandbox (no database writes here).

Used by the match task and by upload validation. Each seat gets its own sandboxed process per
game; the two seats of a team are two processes of the same bot that share nothing. A worker
process keeps sandboxes prepared ahead (:func:`sandbox_pool`) for the runtimes it has just
used, so its next match's sandboxes are prepared while the current one plays, and a Python bot's
bytecode compiled once per machine (:mod:`sandbox.bytecode`). Whatever the
platform gets wrong (no sandbox, a corrupt package, an internal error mid-match) raises
:class:`PlatformFailure`, which callers record as a platform error, never as a bot's fault.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings

import engine
from matches import formats
from matches.package_cache import CorruptPackage, bytecode_cache, package_path
from matches.progress import MatchProgress, ProgressAgent
from sandbox import (
    DEFAULT_LIMITS,
    BotPackage,
    BotPackageError,
    Limits,
    SandboxedAgent,
    SandboxUnavailable,
    load_bot,
)
from sandbox.bytecode import with_bytecode
from sandbox.pool import SandboxPool


class PlatformFailure(Exception):
    """The platform, not a bot, failed; the message is for operators."""


class PlatformRetry(PlatformFailure):
    """A failure of the moment (a bot killed from outside its sandbox): try the match again."""


@dataclass(frozen=True)
class SeatBot:
    """The stored package that plays a seat (``None`` in a seat list: the engine's heuristic
    house agent, used as the opponent in validation)."""

    name: str
    sha256: str
    filename: str


_pool: tuple[int, SandboxPool] | None = None  # (the process that made it, the pool)
_pool_lock = threading.Lock()


def sandbox_pool() -> SandboxPool | None:
    """This worker process's prepared sandboxes (at most ``ARENA_PREPARED_SANDBOXES``), or
    None where matches run inline (in a web process: nothing is kept there) or it is 0. Made
    on first use in each process (a forked child makes its own); :func:`sandbox_pool_close` at
    the worker's shutdown tears it down."""
    global _pool
    if settings.ARENA_EXECUTION != "celery" or settings.ARENA_PREPARED_SANDBOXES <= 0:
        return None
    with _pool_lock:
        if _pool is None or _pool[0] != os.getpid():
            _pool = (os.getpid(), SandboxPool(settings.ARENA_PREPARED_SANDBOXES))
        return _pool[1]


def sandbox_pool_close() -> None:
    """Tear down this process's prepared sandboxes (a worker shutting down)."""
    global _pool
    with _pool_lock:
        made, _pool = _pool, None
    if made is not None and made[0] == os.getpid():
        made[1].close()


@dataclass
class Played:
    result: engine.MatchResult
    logs: list[str]  # each seat's stderr ("" for house agents): private to the bot's owner


def play(
    *,
    game: str,
    params: dict[str, Any],
    seed: int,
    duplicate: bool,
    seats: Sequence[SeatBot | None],
    limits: Limits = DEFAULT_LIMITS,
    progress: MatchProgress | None = None,
) -> Played:
    rules = formats.load(game, params)
    packages: dict[str, BotPackage] = {}
    agents: list[engine.Agent] = []
    try:
        # every database read before the first bot starts: a bot never waits on the database
        for seat in seats:
            if seat is not None and seat.sha256 not in packages:
                packages[seat.sha256] = load_bot(package_path(seat.sha256, seat.filename))
        for package in packages.values():  # after them: a first compile takes a moment
            with_bytecode(package, bytecode_cache())
        pool = sandbox_pool()
        for index, seat in enumerate(seats):
            if seat is None:
                agents.append(engine.make_agent(game, "heuristic", seed * 31 + index))
            else:
                trusted = settings.ARENA_TRUSTED_BOTS
                agents.append(
                    SandboxedAgent(packages[seat.sha256], limits, trusted=trusted, pool=pool)
                )
        names = [s.name if s else "house heuristic" for s in seats]
        playing = agents if progress is None else [ProgressAgent(a, progress) for a in agents]
        result = engine.run_match(rules, None, playing, seed, duplicate=duplicate, entrants=names)
        logs = [a.stderr_log if isinstance(a, SandboxedAgent) else "" for a in agents]
    except (engine.MatchAborted, SandboxUnavailable, CorruptPackage, BotPackageError) as err:
        cause = err.__cause__
        if isinstance(cause, engine.AgentFault) and cause.detail.get("transient"):
            raise PlatformRetry(f"{type(err).__name__}: {err}") from err
        raise PlatformFailure(f"{type(err).__name__}: {err}") from err
    finally:
        for agent in agents:  # stderr complete; the rest of the teardown in the background
            if isinstance(agent, SandboxedAgent):
                agent.close(wait=False)
        for package in packages.values():
            package.close()
    return Played(result, logs)


def fault_summary(result: engine.MatchResult, seat: int) -> tuple[str, str]:
    """The first fault of ``seat`` as (verdict, where and what), or ("", "")."""
    faults = [f for f in result.faults if f.entrant == seat]
    if not faults:
        return "", ""
    first = faults[0]
    where = "at start-up" if first.decision < 0 else f"at decision {first.decision}"
    message = f"game {first.game_index + 1}, {where}: {first.message}"
    if len(faults) > 1:
        message += f" (and {len(faults) - 1} more fault(s) in later games)"
    return first.verdict, message
