"""``SandboxedAgent``: an engine :class:`~engine.agents.Agent` backed by a confined bot process.

Lifecycle per game (the match runner drives it): ``start`` claims a uid slot, makes the bot's
control group and spawns its gate, which a background thread admits to the group and opens, so
the bots of a match are admitted side by side; ``wait_ready`` (or else the first ``act``) sends
``hello`` and waits for ``ready`` within the start-up limit, counted from the spawn.
``act`` sends the observation and waits for the reply within ``min(decision timeout, time bank)``.
``finish`` sends ``over`` and hands the bot to a background thread, which gives it
:data:`OVER_GRACE_S` to exit and then kills and reaps every process of it, so the next game does
not wait; ``stderr_log`` and ``close`` wait for those. Any fault kills the bot at once. Use the
agent as a context manager (or call :meth:`close`) so the process is killed and reaped even if
the runner raises.

Where the machine has control groups (:mod:`sandbox.cgroups`), each game's bot runs in a group
of its own: one memory and process limit for all of its processes, frozen from its ``ready``
and each reply until its next ``act`` (unless ``run_between_turns``), so it runs only on its
own turn, and killed as a whole, the game ending only once every process of it is gone.

Faults are :class:`engine.AgentFault`. Their messages go into results and replays, which other
people see, so they never quote the bot's stderr: that is kept, capped, in :attr:`stderr_log`
for the bot's owner only.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
import weakref
from concurrent.futures import Future
from pathlib import Path
from typing import Any, NoReturn

from engine import Agent, AgentFault, Verdict

from . import cgroups, protocol, seccomp
from .bwrap import (
    PRLIMIT,
    SANDBOX_ENV,
    SandboxUnavailable,
    bwrap_argv,
    canary,
    check_bwrap,
    rlimit_argv,
)
from .cgroups import Usage
from .clock import DecisionClock
from .clock import kind as clock_kind
from .limits import DEFAULT_LIMITS, Limits, MiB
from .package import BotPackage, load_bot
from .pool import SandboxPool
from .process import BotProcess, Closed, LineTooLong, OutputLimit, RingBuffer, Timeout
from .resources import SandboxResources, background
from .runtimes import RUNTIMES, ResolvedRuntime, RuntimeUnavailable, resolve_runtime
from .slots import NoFreeSlot, uid_pool

log = logging.getLogger("sandbox")

EXIT_GRACE_S = 0.25  # after the bot closes its output, how long it gets to finish exiting
#: after ``over`` (and end-of-file on stdin) a bot may run this long to write its last stderr
#: lines and exit by itself before it is stopped (docs/protocol.md)
OVER_GRACE_S = 0.1


class _Resources(SandboxResources):
    """What an agent must release even if it is dropped without close(): the current game's
    sandbox, the later games' started ahead, finished games' bots being stopped, and the
    package it loaded itself."""

    def __init__(self) -> None:
        super().__init__()
        self.package: BotPackage | None = None  # only when the agent loaded it itself
        self.stopping: list[_Stopping] = []  # finished games' bots, stopped in the background
        self.stopped: list[_Stopping] = []  # their stderr taken, the teardown maybe going on
        self.ahead: list[_Ahead] = []  # later games' bots, started with the first game's

    def drop_ahead(self) -> None:
        """Stop every later game's bot started ahead (the match ended early)."""
        ahead, self.ahead = self.ahead, []
        for game in ahead:
            game.res.end_process()

    def close(self) -> None:
        self.end_process()
        self.drop_ahead()
        for stopping in self.stopping + self.stopped:
            stopping.done.result()
        if self.package is not None:
            self.package.close()
            self.package = None


class _Ahead:
    """A later game's bot, started with the match's first (:meth:`SandboxedAgent.start_games`):
    ready and frozen until its game's ``start`` takes it, or the fault it got starting."""

    def __init__(self, info: dict[str, Any], res: SandboxResources, hello: bytes | None) -> None:
        self.info, self.res, self.hello = info, res, hello
        self.fault: AgentFault | None = None
        self.process: BotProcess | None = None  # a faulted bot's, for its stderr
        self.memory_peak: int | None = None
        self.ready = False
        self.startup_seconds = 0.0
        self.turn_end: Usage | None = None  # its group's usage when it was frozen after ready


class _Stopping:
    """A finished game's bot, stopped in the background so that the next game does not
    wait for it: it has :data:`OVER_GRACE_S` to write its last stderr and exit, then every
    process of it is killed and reaped, its group removed and its uid freed
    (:meth:`SandboxResources.end_process`). Its stderr and memory peak are taken once it is
    joined: as soon as its output is closed (:attr:`drained`, :attr:`complete`; it exited),
    while the rest of its teardown may still go on (:attr:`done`)."""

    def __init__(self, res: SandboxResources, game: int) -> None:
        self.res, self.game = res, game
        self.process = res.process
        self.memory_peak: int | None = None
        self.drained = threading.Event()
        self.complete = False  # its stderr was complete when drained was set
        self.done = background("stop").submit(self._run)

    def _run(self) -> None:
        try:
            if self.process is not None:
                self.process.drain_post_mortem(time.monotonic() + OVER_GRACE_S)
            if self.res.group is not None:
                self.memory_peak = self.res.group.memory_peak_bytes()
            self.complete = self.process is None or self.process.output_closed
        except OSError:
            log.exception("sandbox: reading a finished bot's last output or memory peak")
        finally:
            self.drained.set()
            self.res.end_process()

    def wait_output(self) -> None:
        """Until its stderr is complete: its output closed, else its processes killed."""
        self.drained.wait()
        if not self.complete:
            self.done.result()


class SandboxedAgent(Agent):
    """Plays one entrant's seat with the bot ``bot`` (a :class:`BotPackage` or a path).

    One agent serves one match: the time bank spans all its games. ``trusted=True`` runs the bot
    without bubblewrap (for bundled bots and local debugging only; logged).
    """

    def __init__(
        self,
        bot: BotPackage | str | os.PathLike[str],
        limits: Limits = DEFAULT_LIMITS,
        *,
        trusted: bool = False,
        run_between_turns: bool = False,
        pool: SandboxPool | None = None,
    ) -> None:
        self._res = _Resources()
        self._pool = pool
        self._closing: Future[Any] | None = None  # close(wait=False)'s background teardown
        self._finalizer = weakref.finalize(self, self._res.close)
        if not isinstance(bot, BotPackage):
            bot = self._res.package = load_bot(bot)
        if RUNTIMES[bot.runtime].compiled:  # C++ sources: the executable built from them
            from .compile import built  # it tears builds down with _Resources: import late

            sources = self._res.package
            try:
                bot = self._res.package = built(bot)[0]
            finally:
                if sources is not None:
                    sources.close()
        self.bot = bot
        self.limits = limits
        self.trusted = trusted
        self._switch_uid = os.geteuid() == 0 and not trusted
        try:
            self.runtime: ResolvedRuntime = resolve_runtime(
                bot.runtime, for_other_uid=self._switch_uid
            )
        except RuntimeUnavailable as err:
            self.close()
            raise SandboxUnavailable(str(err)) from None
        if trusted:
            log.warning("bot %s runs WITHOUT the sandbox (trusted mode)", bot.name)
        else:
            check_bwrap(uid_pool().start if self._switch_uid else None)
        try:
            self._cgroups = cgroups.backend()
            if self._cgroups is None and not trusted and cgroups.policy() == "required":
                raise cgroups.CgroupUnavailable(
                    f"no per-bot control group ({cgroups.unavailable_reason()}); set "
                    "ARENA_SANDBOX_CGROUPS=auto to run bots with per-process limits only"
                )
        except cgroups.CgroupUnavailable as err:
            self.close()
            raise SandboxUnavailable(str(err)) from None
        #: freeze the bot between its decisions (needs a control group)
        self.freezes = self._cgroups is not None and not run_between_turns
        self.time_bank_ms = float(limits.match_time_bank_ms)
        self.fault: AgentFault | None = None  # the last fault, if any
        self.decisions = 0
        self.decision_seconds = 0.0  # as charged: wall time less the host's CPU wait
        self.cpu_wait_excluded_seconds = 0.0
        self.startup_seconds: list[float] = []
        #: CPU time the bot's processes used between its turns (zero when it is frozen then)
        #: and the highest memory use of its group in any game; both need a control group
        self.off_turn_cpu_seconds = 0.0
        self.memory_peak_bytes: int | None = None
        self._turn_end: Usage | None = None  # the group's usage when its last turn ended
        self._log = RingBuffer(limits.max_stderr_bytes)
        self._act_started: int | None = None  # the stderr position when the current act began
        self._games = 0
        self._seq = 0
        self._ready = False
        self._hello: bytes | None = None  # not sent yet: the process waits at its gate

    # -- the Agent interface ------------------------------------------------------------------

    def start_games(self, infos: list[dict[str, Any]]) -> None:
        """Start the bot of every game of the match now, side by side (duplicate rotations
        get a process each: a reused one would remember the deck); :meth:`wait_games_ready`
        waits for them, and each game's :meth:`start` takes its own. Only where bots are
        frozen between turns (a control group): a later game's bot then waits ready and
        frozen, and no game's bot runs beside another's decisions. Start-up faults are kept
        for their game's ``start``."""
        if not self.freezes:
            return  # each game starts its bot in start()
        self._end_game()
        self._res.drop_ahead()
        for info in infos:
            try:
                res, hello = self._launch(info)
                self._res.ahead.append(_Ahead(info, res, hello))
            except AgentFault as fault:
                failed = _Ahead(info, SandboxResources(), None)
                failed.fault = fault
                self._res.ahead.append(failed)

    def wait_games_ready(self) -> None:
        """Wait for every bot :meth:`start_games` started (each in a thread of its own, as
        :func:`engine.match.wait_ready_all` does) and freeze each once ready."""
        waiting = [game for game in self._res.ahead if game.fault is None and not game.ready]
        errors: list[BaseException] = []

        def wait(game: _Ahead) -> None:
            try:
                self._wait_ahead(game)
            except BaseException as err:  # noqa: BLE001 - raised in the caller's thread below
                errors.append(err)

        threads = [threading.Thread(target=wait, args=(game,), daemon=True) for game in waiting]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if self._pool is not None:
            self._pool.refill()  # the next match's sandboxes, now that these have started
        if errors:
            raise errors[0]

    def start(self, info: dict[str, Any]) -> None:
        self._end_game()
        self._games += 1
        self._seq = 0
        self._ready = False
        ahead = self._res.ahead.pop(0) if self._res.ahead else None
        if ahead is not None and ahead.info != info:  # not the game it was started for
            ahead.res.end_process()
            self._res.drop_ahead()
            ahead = None
        if ahead is None:
            try:
                res, self._hello = self._launch(info)
            except AgentFault as fault:
                raise self._record(fault) from fault.__cause__
            self._res.adopt(res)
            return
        self._res.adopt(ahead.res)
        self._note_memory_peak(ahead.memory_peak)
        if ahead.fault is not None:
            self._settle()  # earlier games' stderr comes first in the log
            if ahead.process is not None:
                self._collect_stderr(ahead.process)
            raise self._record(ahead.fault)
        if ahead.ready:
            self._ready = True
            self.startup_seconds.append(ahead.startup_seconds)
            self._turn_end = ahead.turn_end
        else:  # started ahead, never waited for: wait_ready does
            self._hello = ahead.hello

    def act(self, observation: dict[str, Any], legal: list[str]) -> str:
        if self._res.process is None:
            raise self._record(
                AgentFault(Verdict.INTERNAL_ERROR, "act() without a running bot (start() missing?)")
            )
        if not self._ready:
            self.wait_ready()
        self._seq += 1
        allowed_ms = min(self.limits.decision_timeout_ms, self.time_bank_ms)
        if allowed_ms <= 0:
            self._fail(AgentFault(Verdict.TIMEOUT, "the match time bank is used up"))
        try:
            message = protocol.act(self._seq, observation, legal, int(self.time_bank_ms))
        except (TypeError, ValueError) as err:
            raise self._record(AgentFault(Verdict.INTERNAL_ERROR, f"observation: {err}")) from None
        process = self._process
        self._act_started = process.stderr.total
        # into the pipe while the bot is still frozen: thawed, it finds the message at once
        # (sent after the thaw, it would wake up twice: to go back to its read, then to read)
        rest = process.send_now(message)
        clock = self._start_turn()  # the bot's time: from its thaw to its reply
        try:
            if rest:  # a message longer than the pipe takes at once (64 KiB)
                process.send(rest, clock.started + allowed_ms / 1000)
            line = self._read_reply(process, clock, allowed_ms / 1000)
            self._end_turn(clock)
            process.drain_ready()  # what it wrote before its reply is in the pipe already
            self._mark_act(process)
        except Timeout:
            self._charge(clock)
            self._fail(self._timeout_fault(allowed_ms))
        except Closed:
            self._fail(self._exit_fault(f"before answering act {self._seq}"))
        except LineTooLong as err:
            self._fail(AgentFault(Verdict.PROTOCOL_ERROR, f"oversize line: {err}"))
        except OutputLimit as err:
            self._fail(AgentFault(Verdict.OUTPUT_LIMIT, f"the bot {err}"))
        self._charge(clock)
        try:
            action = protocol.parse_reply(line, self._seq)
        except protocol.ProtocolViolation as err:
            self._fail(AgentFault(Verdict.PROTOCOL_ERROR, str(err)))
        if action not in legal:
            self._fail(
                AgentFault(
                    Verdict.ILLEGAL_ACTION,
                    f"{action[:100]!r} is not legal",
                    action=protocol.printable(action, 200),  # it goes into results and replays
                )
            )
        return action

    def finish(self, result: dict[str, Any]) -> None:
        """Send ``over``, close the bot's stdin and give it :data:`OVER_GRACE_S` to write its
        last stderr and exit (what it writes then reaches its log); then stop it."""
        process = self._res.process
        if process is not None and self._ready and not process.exited:
            try:
                process.send(protocol.encode(protocol.over(result)), time.monotonic() + 0.05)
                process.close_stdin()
                if self._res.group is not None and self._res.group.frozen:
                    self._res.group.thaw()
            except (Closed, Timeout, OutputLimit):
                pass  # the game is over: misbehaving now changes nothing (and must not raise)
            self._res.stopping.append(_Stopping(self._res.detach(), self._games))
        self._end_game()

    # -- lifecycle ----------------------------------------------------------------------------

    def close(self, *, wait: bool = True) -> None:
        """Kill the bot if it runs, wait until the bots of finished games have stopped (their
        stderr is then complete), release uids and staged files. ``wait=False`` (a runner
        moving on to its next match): what is left of the teardown (removing control groups,
        freeing uids and folders, the processes' last exit) goes on in the background, and a
        later ``close()`` waits for it. Idempotent."""
        self._end_game()
        self._settle()
        if not wait:
            if self._closing is None:
                self._closing = background("close").submit(self._finalizer)
            return
        if self._closing is not None:
            self._closing.result()
        self._finalizer()

    def __enter__(self) -> SandboxedAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def stderr_log(self) -> str:
        """What the bot wrote to stderr (the last ``max_stderr_bytes``), for its owner only;
        waits for the bots of finished games to be stopped (their last lines come then)."""
        self._settle()
        self._collect_stderr()
        return self._log.text()

    @property
    def time_per_decision_ms(self) -> float:
        return 1000 * self.decision_seconds / self.decisions if self.decisions else 0.0

    # -- internals ----------------------------------------------------------------------------

    @property
    def _process(self) -> BotProcess:
        assert self._res.process is not None
        return self._res.process

    def _launch(self, info: dict[str, Any]) -> tuple[SandboxResources, bytes]:
        """A new sandbox running the bot for the game ``info`` (a prepared one from the pool
        where one waits), and its ``hello``; raises the start-up fault (not recorded)."""
        res = SandboxResources()
        try:
            if not self._take_prepared(res):
                res.claim(
                    self.runtime, self.limits, switch_uid=self._switch_uid, backend=self._cgroups
                )
                res.wrapped = not self.trusted
                self._spawn(res)
        except (OSError, NoFreeSlot, SandboxUnavailable, cgroups.CgroupUnavailable) as err:
            res.end_process()
            raise AgentFault(Verdict.INTERNAL_ERROR, f"cannot start the bot: {err}") from err
        hello = protocol.hello(
            info["game"], info["seat"], info.get("params", {}), self._hello_limits(),
            clock=clock_kind(res.group),
        )  # fmt: skip
        return res, protocol.encode(hello)

    def _take_prepared(self, res: SandboxResources) -> bool:
        """Give the bot a prepared sandbox from the pool, if one waits (True)."""
        if self._pool is None or self.trusted or not self.runtime.gated:
            return False
        assignment = self.runtime.assignment(self.bot.entry, self.bot.pythonpath)
        prepared = self._pool.take(self.runtime, self.limits) if assignment else None
        if prepared is None or assignment is None:
            return False
        try:
            res.adopt(prepared.assign(self.bot, assignment))
        except SandboxUnavailable as err:  # it was torn down: a fresh one instead
            log.warning("sandbox: %s; starting the bot fresh", err)
            return False
        return True

    def _spawn(self, res: SandboxResources) -> None:
        root = str(self.bot.root)
        seccomp_fd = None if self.trusted else seccomp.program_fd()  # bubblewrap reads it
        try:
            pythonpath = self.bot.pythonpath
            if self.trusted:
                command = self.runtime.command(
                    self.bot.entry, self.limits, root=root, pythonpath=pythonpath
                )
                if os.path.exists(PRLIMIT):  # memory, CPU, files; no process limit (rlimit_argv)
                    command = rlimit_argv(self.runtime, self.limits, nproc=False) + command
                env = {**SANDBOX_ENV, "PATH": os.environ.get("PATH", SANDBOX_ENV["PATH"])}
                env["HOME"] = env["TMPDIR"] = os.environ.get("TMPDIR", "/tmp")
                res.spawn(command, self.limits, cwd=root, env=env)
            else:
                command = bwrap_argv(
                    self.runtime,
                    Path(root),
                    self.runtime.command(self.bot.entry, self.limits, pythonpath=pythonpath),
                    self.limits,
                    seccomp_fd,
                )
                res.spawn(command, self.limits, seccomp_fd=seccomp_fd)
        finally:
            if seccomp_fd is not None:
                os.close(seccomp_fd)

    def _hello_limits(self) -> dict[str, int]:
        limits = self.limits.to_bot()
        limits["address_space_bytes"] = self.runtime.address_space_bytes(self.limits)
        limits["time_bank_ms"] = int(self.time_bank_ms)
        return limits

    def wait_ready(self) -> None:
        """Wait for ``ready`` (else the first ``act`` does). Raises the start-up fault, if any.

        A runner that calls every agent's ``start`` first and then ``wait_ready`` starts the bots
        in parallel and keeps start-up time out of the first decision's time.
        """
        if self._ready:
            return
        if self._res.process is None:
            raise self._record(AgentFault(Verdict.INTERNAL_ERROR, "wait_ready() without start()"))
        hello, self._hello = self._hello, None
        fault = self._startup(self._res, hello)
        if fault is not None:
            self._fail(fault)
        self._ready = True
        self.startup_seconds.append(time.monotonic() - self._process.started)
        self._res.watch_init()
        self._end_turn()
        if self._pool is not None:
            self._pool.refill()

    def _wait_ahead(self, game: _Ahead) -> None:
        """Wait for a bot started ahead; once ready, freeze it until its game (its usage
        then starts its off-turn time); if it failed, keep the fault and stop it now."""
        res = game.res
        hello, game.hello = game.hello, None
        fault = self._startup(res, hello)
        if fault is not None:
            game.fault, game.process = fault, res.process
            if res.group is not None:
                game.memory_peak = res.group.memory_peak_bytes()
            res.end_process()
            return
        assert res.process is not None
        game.startup_seconds = time.monotonic() - res.process.started
        res.watch_init()
        if res.group is not None:
            res.group.freeze(wait=False)  # start_games runs only where bots are frozen
            game.turn_end = res.group.usage()
        game.ready = True

    def _startup(self, res: SandboxResources, hello: bytes | None) -> AgentFault | None:
        """Send ``hello`` (if not sent yet) and wait for ``ready`` within the start-up limit,
        counted from the spawn (from the assignment, for a prepared sandbox); the fault, if
        any. ``hello`` goes once the gate is open (the process admitted to its group: opened
        in the background, so that the bots of a match are admitted side by side and share
        the kernel's wait for an RCU grace period, 4-12 ms each when one after another)."""
        process = res.process
        assert process is not None
        deadline = process.started + self.limits.startup_timeout_ms / 1000
        try:
            if hello is not None:
                try:
                    res.gate_opened()
                except OSError as err:
                    return AgentFault(Verdict.INTERNAL_ERROR, f"cannot start the bot: {err}")
                try:
                    process.send(hello, deadline)
                except (Closed, Timeout):
                    return self._startup_exit_fault(res)
            line = process.read_line(deadline)
            protocol.parse_ready(line)
        except Timeout:
            return AgentFault(
                Verdict.TIMEOUT,
                f"not ready within the start-up limit of {self.limits.startup_timeout_ms} ms "
                '(answer hello with {"type": "ready"} and flush)',
            )
        except Closed:
            return self._startup_exit_fault(res)
        except LineTooLong as err:
            return AgentFault(Verdict.PROTOCOL_ERROR, f"oversize line at start-up: {err}")
        except OutputLimit as err:  # sending may wait, and drains the bot's output meanwhile
            return AgentFault(Verdict.OUTPUT_LIMIT, f"the bot {err}")
        except protocol.ProtocolViolation as err:
            return AgentFault(Verdict.PROTOCOL_ERROR, str(err))
        return None

    @staticmethod
    def _read_reply(process: BotProcess, clock: DecisionClock, allowed_s: float) -> bytes:
        """The reply, within ``allowed_s`` of the bot's clock: the wall-clock deadline moves
        out by the time the host kept the bot waiting for a CPU (:mod:`sandbox.clock`)."""
        excluded = 0.0
        while True:
            try:
                return process.read_line(clock.started + allowed_s + excluded)
            except Timeout:
                more = clock.excluded()
                if more <= excluded + 0.0005:
                    raise
                excluded = more

    def _charge(self, clock: DecisionClock) -> None:
        seconds = clock.charged()
        self.cpu_wait_excluded_seconds += max(0.0, time.monotonic() - clock.started - seconds)
        self.time_bank_ms -= seconds * 1000
        self.decisions += 1
        self.decision_seconds += seconds

    def _timeout_fault(self, allowed_ms: float) -> AgentFault:
        if allowed_ms < self.limits.decision_timeout_ms:
            what = f"the match time bank ({self.limits.match_time_bank_ms} ms) ran out"
        else:
            what = f"no answer within {self.limits.decision_timeout_ms} ms"
        return AgentFault(
            Verdict.TIMEOUT,
            f"{what} for act {self._seq} (reply with one line and flush stdout)",
            act_id=self._seq,
        )

    def _startup_exit_fault(self, res: SandboxResources) -> AgentFault:
        """The bot died before ``ready``: its fault, unless the sandbox itself is broken."""
        fault = self._exit_fault("during start-up", res)
        if not self.trusted and fault.verdict == Verdict.CRASH:
            slot = res.slot
            broken = canary(
                self.runtime, self.bot.root, self.limits, slot.uid if slot is not None else None
            )
            if broken is not None:
                return AgentFault(Verdict.INTERNAL_ERROR, f"the sandbox does not start: {broken}")
        return fault

    def _exit_fault(self, when: str, res: SandboxResources | None = None) -> AgentFault:
        """Classify why the bot's output ended: crash, memory, CPU time or a closed stream
        (the current game's bot, or the one in ``res``)."""
        res = res if res is not None else self._res
        process = res.process
        assert process is not None
        info = process.wait_exit(EXIT_GRACE_S)
        code = info.returncode
        if code is None:
            return AgentFault(
                Verdict.PROTOCOL_ERROR, f"closed its stdin/stdout {when} but kept running"
            )
        process.drain_post_mortem(time.monotonic() + 0.1)
        group = res.group
        if group is not None and group.oom_kills():  # the group's own counter: evidence
            return AgentFault(
                Verdict.MEMORY,
                f"its processes together reached the memory limit of "
                f"{self.limits.memory_bytes // MiB} MiB {when} (killed)",
                **({"exit_code": code} if code >= 0 else {"signal": _signal_name(-code)}),
            )
        tail = process.stderr.text()[-4096:].encode()
        out_of_memory = any(marker in tail for marker in self.runtime.runtime.memory_markers)
        signum = -code if code < 0 else (code - 128 if code > 128 and not self.trusted else 0)
        if signum:
            name = _signal_name(signum)
            cpu_spent = info.cpu_seconds >= self.limits.cpu_seconds - 0.5
            if signum == signal.SIGXCPU or (signum == signal.SIGKILL and cpu_spent):
                return AgentFault(
                    Verdict.TIMEOUT, f"CPU time limit ({self.limits.cpu_seconds} s) hit {when}",
                    signal=name,
                )  # fmt: skip
            if signum == signal.SIGKILL and not (out_of_memory and group is None):
                return self._foreign_kill_fault(when)
            if out_of_memory:
                return AgentFault(
                    Verdict.MEMORY, f"killed by {name} {when} (out of memory)", signal=name
                )
            return AgentFault(Verdict.CRASH, f"killed by {name} {when}", signal=name)
        if out_of_memory:
            limit = self.runtime.address_space_bytes(self.limits) // MiB
            return AgentFault(
                Verdict.MEMORY, f"ran out of memory {when} (limit {limit} MiB)", exit_code=code
            )
        return AgentFault(Verdict.CRASH, f"exited with code {code} {when}", exit_code=code)

    def _foreign_kill_fault(self, when: str) -> AgentFault:
        """A SIGKILL with no evidence against the bot: the platform's fault.

        A bot cannot send SIGKILL (the seccomp filter refuses it), so the kill came from
        outside: the kernel (its group's OOM counter was checked first; the CPU limit too), an
        operator, another deployment, a host out of memory. Blaming the bot would rate it for
        the host's trouble: the match is aborted and tried again (``transient``)."""
        return AgentFault(
            Verdict.INTERNAL_ERROR,
            f"the bot was killed {when} by SIGKILL from outside the sandbox (its control group "
            "recorded no out-of-memory kill): not the bot's fault",
            transient=True,
        )

    def _fail(self, fault: AgentFault) -> NoReturn:
        """Record ``fault``, stop the bot (it gets nothing more this game) and raise."""
        self._record(fault)
        self._end_game()
        raise fault

    def _record(self, fault: AgentFault) -> AgentFault:
        self.fault = fault
        return fault

    def _mark_act(self, process: BotProcess) -> None:
        """Head what the bot wrote to stderr during this act with ``--- act <id> ---`` (the
        act's protocol id, per game), so a replay's decision finds its own lines in the log;
        an act that wrote nothing gets no header."""
        started, self._act_started = self._act_started, None
        if started is not None and process.stderr.total > started:
            process.stderr.mark(started, f"--- act {self._seq} ---\n".encode())

    def _settle(self) -> None:
        """Wait for the bots of finished games to have stopped (their stderr complete; the
        rest of their teardown may go on: :meth:`close` waits for it); log their stderr, game by
        game."""
        while self._res.stopping:
            stopping = self._res.stopping.pop(0)
            self._res.stopped.append(stopping)
            stopping.wait_output()
            self._note_memory_peak(stopping.memory_peak)
            if stopping.process is not None:
                self._collect_stderr(stopping.process, stopping.game)

    def _note_memory_peak(self, peak: int | None) -> None:
        if peak is not None:
            self.memory_peak_bytes = max(peak, self.memory_peak_bytes or 0)

    def _collect_stderr(self, process: BotProcess | None = None, game: int | None = None) -> None:
        process = process or self._res.process
        if process is not None and game is None:
            self._mark_act(process)  # an act cut short by a fault: what it wrote so far
        if process is not None and process.stderr.total:
            header = f"--- game {self._games if game is None else game} ---\n".encode()
            text = process.stderr.text().encode()
            room = max(0, self._log.capacity - len(header))
            self._log.write(header + (text[-room:] if room else b""))
            process.stderr = RingBuffer(process.stderr.capacity)

    def _end_turn(self, clock: DecisionClock | None = None) -> None:
        """Its reply is in (or it is ready): freeze it until its next ``act``, and read its
        group's usage once, which ends ``clock`` (the decision's) and starts its off-turn."""
        group = self._res.group
        if group is not None:
            if self.freezes:
                group.freeze(wait=False)  # stopped microseconds later; no need to wait
            self._turn_end = usage = group.usage()
            if clock is not None:
                clock.stop(usage)

    def _start_turn(self) -> DecisionClock:
        """Thaw the bot for a decision; the decision's clock, started at the thaw.

        A frozen group's CPU time is read once more (what it used since its turn ended, before
        the freeze took hold, is off-turn time); its CPU wait is not: frozen, it waits for no
        CPU, so the reading at its turn's end serves (what it waited in the microseconds
        before the freeze took hold is a bound the clock's cap keeps small)."""
        group = self._res.group
        if group is None:
            return DecisionClock.start(None)
        last = self._turn_end
        if group.frozen and last is not None:
            usage = Usage(group.cpu_seconds(), last.wait)
            group.thaw()
        else:
            usage = group.usage()
        if last is not None:
            self.off_turn_cpu_seconds += usage.cpu - last.cpu
        return DecisionClock.start(group, usage)

    def _end_game(self) -> None:
        """Stop the current game's bot now (a fault, or the agent closing mid-game)."""
        process = self._res.process
        if process is not None:
            self._settle()  # earlier games' stderr comes first in the log
            if self._res.group is not None:
                self._note_memory_peak(self._res.group.memory_peak_bytes())
        self._res.end_process()
        if process is not None:
            self._collect_stderr(process)
        self._ready = False
        self._hello = None
        self._turn_end = None


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
