"""``arena``: run matches between bots locally, through the same sandbox the platform uses.

    arena play belote mybot.py examples/belote/heuristic.py builtin:random builtin:heuristic \\
        --seed 7 --duplicate --matches 20 --replay out.json
    arena validate mybot.py --game barbu
    arena view out.json --seat 1
    arena games

A bot is a file, a ``.zip`` or a directory (see docs/protocol.md), or ``builtin:<kind>`` for the
engine's in-process agents (``random``, ``heuristic``). ``--trusted`` runs file bots without
bubblewrap, for debugging your own bot only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import engine
from engine.options import SMOKE_PARAMS, option_meanings, parse_option_words
from sandbox import catalog, cgroups, protocol, pysci
from sandbox.agent import SandboxedAgent
from sandbox.bwrap import SandboxUnavailable
from sandbox.bytecode import with_bytecode
from sandbox.compile import CompileError, built, cache_dir
from sandbox.limits import Limits
from sandbox.package import BotPackage, BotPackageError, load_bot
from sandbox.pool import SandboxPool, prepared_capacity
from sandbox.slots import SandboxSettingError

from . import client
from .i18n import LANGUAGE, _, translate_argparse
from .replay_text import render_replay
from .summary import (
    Tally,
    TeamTally,
    entrant_teams,
    ms_per_decision,
    print_summary,
    startup_ms,
    tally_match,
    tally_teams,
)
from .transcript import transcript

BUILTIN = "builtin:"

#: the games as people call them (the engine's titles, which are English)
GAME_TITLES = {"belote": _("Belote"), "bauer": _("Bauer"), "barbu": _("Barbu"),
               "badugi": _("Badugi")}  # fmt: skip

#: what to do about each verdict (the keys are verdicts: data, never translated)
HINTS = {
    "timeout": _(
        "answer every act within decision_timeout_ms (and the time bank) and flush "
        "stdout after each line; answer hello with ready within startup_timeout_ms"
    ),
    "crash": _("your program exited; its stderr (below) usually says why"),
    "memory": _("stay within address_space_bytes; watch for unbounded caches or recursion"),
    "output_limit": _("write less: stdout is for protocol lines only, stderr is capped too"),
    "protocol_error": _(
        'reply with exactly one JSON object per line: {"id": <id of the act>, '
        '"action": "<one of legal>"}'
    ),
    "illegal_action": _("the action must be one of the strings in the act's legal list, verbatim"),
}


class UsageError(Exception):
    pass


@dataclass
class Entrant:
    name: str
    spec: str
    package: BotPackage | None = None  # None for builtin agents
    kind: str | None = None


def main(argv: Sequence[str] | None = None) -> int:
    translate_argparse()
    parser, commands = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in commands:
        # options may come anywhere, also between a command's bots (argparse's subparsers
        # cannot do that, so each command's own parser reads the rest)
        command = commands[argv[0]]
        # parse_intermixed_args keeps the usage as format_usage()[7:], which cuts the translated
        # "usage: " wrong where it is not 7 characters long: give it the usage without it
        command.usage = command.format_usage().removeprefix(_("usage: "))
        args = command.parse_intermixed_args(argv[1:])
        args.command = argv[0]
    else:
        args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    # your own bots on your machine: without a per-bot cgroup, per-process limits (announced)
    os.environ.setdefault("ARENA_SANDBOX_CGROUPS", "auto")
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # a closed pipe shows up here, not in the interpreter's exit
        return code
    except (
        UsageError, BotPackageError, engine.InvalidParams, SandboxSettingError, pysci.InstallError,
    ) as err:  # fmt: skip
        print(f"arena: {err}", file=sys.stderr)
        return 2
    except SandboxUnavailable as err:
        print(
            f"arena: {err}\n" + _("(use --trusted to run your own bots without the sandbox)"),
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `arena transcript belote | head`: the reader left, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``arena`` parser and each command's own parser."""
    parser = argparse.ArgumentParser(
        prog="arena",
        description=_(
            "arena: run matches between bots locally, through the same sandbox the platform uses"
        ),
    )
    sub = parser.add_subparsers(dest="command")

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--trusted", action="store_true", help=_("run file bots WITHOUT the sandbox")
        )
        p.add_argument(
            "--param", action="append", default=[], metavar="NAME=VALUE", help=_("game rule option")
        )
        p.add_argument(
            "--limit", action="append", default=[], metavar="NAME=VALUE",
            help=_("sandbox limit, e.g. decision_timeout_ms=2000"),
        )  # fmt: skip
        p.add_argument("--pin-cpu", type=int, metavar="N", help=_("pin referee and bots to CPU N"))

    play = sub.add_parser("play", help=_("play matches and print a summary"))
    play.add_argument("game")
    play.add_argument(
        "bots", nargs="+", help=_("one per seat: path, .zip, directory or builtin:KIND")
    )
    play.add_argument("--seed", type=int, default=1)
    play.add_argument("--matches", type=int, default=1)
    play.add_argument("--duplicate", action="store_true", help=_("replay deals with seats rotated"))
    play.add_argument(
        "--replay", type=Path, metavar="FILE",
        help=_(
            "write the replay JSON to FILE; with --matches N>1, FILE-001.json ... FILE-N.json "
            "(FILE without its suffix); the folder must exist"
        ),
    )  # fmt: skip
    play.add_argument(
        "--show-stderr", metavar="SEAT|all",
        help=_("print what these bots wrote to stderr (last lines of the first match)"),
    )  # fmt: skip
    play.add_argument("-q", "--quiet", action="store_true", help=_("no progress bar"))
    common(play)
    play.set_defaults(func=cmd_play)

    validate = sub.add_parser("validate", help=_("smoke-test one bot and explain any fault"))
    validate.add_argument("bot")
    validate.add_argument("--game", required=True)
    validate.add_argument("--seed", type=int, default=1)
    common(validate)
    validate.set_defaults(func=cmd_validate)

    games = sub.add_parser("games", help=_("list games, seats and rule options"))
    games.set_defaults(func=cmd_games)

    runtimes = sub.add_parser(
        "runtimes", help=_("list the bot runtimes with their versions and libraries")
    )
    runtimes.add_argument(
        "action", nargs="?", choices=["list", "install"], default="list",
        help=_("install: the Python runtime's pinned scientific set (numpy)"),
    )  # fmt: skip
    runtimes.add_argument(
        "--force", action="store_true", help=_("install again even if it is installed")
    )
    runtimes.set_defaults(func=cmd_runtimes)

    verify = sub.add_parser("verify", help=_("re-simulate replay files and check every score"))
    verify.add_argument("replays", nargs="+", type=Path)
    verify.set_defaults(func=cmd_verify)

    view = sub.add_parser("view", help=_("print a replay deal by deal"))
    view.add_argument("replay", type=Path)
    view.add_argument("--seat", type=int, help=_("show only what this seat knew"))
    view.add_argument(
        "--game", type=int, action="append", metavar="K",
        help=_("only game K (from 1; repeatable)"),
    )  # fmt: skip
    view.set_defaults(func=cmd_view)

    shown = sub.add_parser(
        "transcript", help=_("print the protocol messages one seat exchanges in a sample game")
    )
    shown.add_argument("game")
    shown.add_argument("--seat", type=int, default=1)
    shown.add_argument("--seed", type=int, default=1)
    shown.add_argument("--decisions", type=int, default=3, help=_("distinct situations shown"))
    shown.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    shown.set_defaults(func=cmd_transcript)
    client.add_parsers(sub)  # login, submit, status, challenge, replay: talk to a server
    return parser, dict(sub.choices)


# -- commands --------------------------------------------------------------------------------


def cmd_games(args: argparse.Namespace) -> int:
    for name in engine.available_games():
        game = engine.load_game(name)
        kinds = ", ".join(BUILTIN + k for k in engine.agent_kinds(name))
        title = GAME_TITLES.get(name, type(game).title)
        label = name if title == type(game).title else f"{name} ({title})"
        line = _("{game}: {seats}; builtins: {kinds}; rules: docs/rules/{name}.md")
        print(line.format(game=label, seats=_seats(game), kinds=kinds, name=name))
        meanings = option_meanings(name, language=LANGUAGE)
        for key, value in game.params_dict().items():
            meaning = meanings.get(key, "")
            print(f"    {key}={json.dumps(value)}" + (f"  {meaning}" if meaning else ""))
    return 0


def cmd_runtimes(args: argparse.Namespace) -> int:
    if args.action == "install":
        pysci.install(force=args.force, say=print)
        return 0
    for entry in catalog.describe():
        state = "" if entry["available"] else " " + _("(not available here)")
        print(f"{entry['name']}: {entry['version']}{state}")
        print(f"    {entry['description']}")
        for library in entry["libraries"]:
            print("    " + _("library: {name} {version}").format(**library))
        if entry["notes"]:
            print(f"    {entry['notes']}")
    print(_("details and limits: docs/runtimes.md"))
    return 0


def _seats(game: engine.Game) -> str:
    """``4 seats``, or ``2-6 seats (--param players=N, default 2)`` where the count is a rule."""
    low, high = type(game).min_players, type(game).max_players
    if low == high:
        return _("{count} seats").format(count=low)
    return _("{low}-{high} seats (--param players=N, default {count})").format(
        low=low, high=high, count=game.num_players
    )


def cmd_verify(args: argparse.Namespace) -> int:
    """Replay every action through the engine; a replay that does not re-simulate fails."""
    failed = 0
    for path in args.replays:
        try:
            replay = _read_replay(path)
            if replay.get("viewpoint"):
                failed += 1
                print(_("{path}: not verifiable: seat {seat}'s view has no seed or deck; verify "
                        "the whole replay (arena replay ID)").format(
                    path=path, seat=replay["viewpoint"]["seat"]))  # fmt: skip
                continue
            states = engine.resimulate(replay)
        except (ReplayFileError, ValueError, KeyError, TypeError) as err:
            failed += 1
            reason = err.reason if isinstance(err, ReplayFileError) else err
            print(_("{path}: INVALID: {reason}").format(path=path, reason=reason))
            continue
        deals = sum(len(s.deals) for s in states)
        print(
            _("{path}: ok ({game}, {games} game(s), {deals} deals)").format(
                path=path, game=replay["game"], games=len(states), deals=deals
            )
        )
    return 1 if failed else 0


def cmd_view(args: argparse.Namespace) -> int:
    replay = _read_replay(args.replay)
    viewpoint = replay.get("viewpoint")
    if args.seat is not None and viewpoint and viewpoint["seat"] != args.seat:
        raise UsageError(
            _("{path} is already seat {seat}'s view: it cannot show another seat's").format(
                path=args.replay, seat=viewpoint["seat"]
            )
        )
    if args.seat is not None and not viewpoint:
        replay = engine.seat_view(replay, args.seat)
    for line in render_replay(replay, args.game):
        print(line)
    return 0


class ReplayFileError(UsageError):
    """A file that cannot be read as a replay."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.reason = reason


def _read_replay(path: Path) -> dict[str, Any]:
    try:
        replay: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ReplayFileError(
            path, _("cannot read it ({reason})").format(reason=err.strerror)
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ReplayFileError(
            path, _("not a replay (not JSON: {error})").format(error=err)
        ) from None
    if not isinstance(replay, dict) or replay.get("format") != engine.replay.REPLAY_FORMAT:
        raise ReplayFileError(path, _('not a replay (no "format": "card-arena-replay")'))
    return replay


def cmd_transcript(args: argparse.Namespace) -> int:
    game = _game(args.game, args.param)
    if not 0 <= args.seat < game.num_players:
        raise UsageError(
            _("--seat must be 0..{last} for {game}").format(
                last=game.num_players - 1, game=game.name
            )
        )
    lines = transcript(
        game.name, parse_params(args.param), seat=args.seat, seed=args.seed, shown=args.decisions
    )
    print("\n".join(lines))
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    game = _game(args.game, args.param)
    if len(args.bots) != game.num_players:
        low, high = type(game).min_players, type(game).max_players
        hint = (
            _("add --param players={count}").format(count=len(args.bots))
            if low <= len(args.bots) <= high and low != high
            else _("name a bot twice to fill seats")
        )
        raise UsageError(
            _("{game} needs {count} bots (one per seat), got {got}; {hint}").format(
                game=game.name, count=game.num_players, got=len(args.bots), hint=hint
            )
        )
    if args.matches < 1:
        raise UsageError(_("--matches must be at least 1"))
    if args.replay is not None and not args.replay.parent.is_dir():
        raise UsageError(
            _("--replay {file}: folder {folder} does not exist").format(
                file=args.replay, folder=args.replay.parent
            )
        )
    show = _stderr_seats(args.show_stderr, game.num_players)
    limits = _limits(args.limit)
    _pin(args.pin_cpu)
    entrants = _entrants(args.bots)
    tallies = [Tally() for _entrant in entrants]
    teams: list[TeamTally] | None = None
    fault_lines: list[str] = []
    logs: dict[int, str] = {}
    shown_logs: dict[int, str] = {}
    started = time.monotonic()
    bar = Progress(args.matches, enabled=not args.quiet and args.matches > 1)
    pool = _sandbox_pool(game, entrants, args.duplicate) if args.matches > 1 else None
    if pool is not None and pool.capacity <= 0:
        pool = None
    try:
        for index in range(args.matches):
            seed = args.seed + index
            result, agents = _play_one(
                game, entrants, limits, seed, args.duplicate, args.trusted, pool
            )
            tally_match(result, agents, tallies)
            if teams is None and (grouped := entrant_teams(result.replay)) is not None:
                teams = [TeamTally(members) for members in grouped]
            if teams is not None:
                tally_teams(result, teams)
            fault_lines += _fault_lines(result, entrants, seed)
            for i, agent in enumerate(agents):
                if isinstance(agent, SandboxedAgent):
                    if agent.fault is not None:
                        logs.setdefault(i, agent.stderr_log)
                    if i in show:
                        shown_logs.setdefault(i, agent.stderr_log)
            if args.replay is not None:
                _write_replay(args.replay, result.replay, index, args.matches)
            bar.update(index + 1)
    finally:
        bar.close()
        if pool is not None:
            pool.close()
        for entrant in entrants:
            if entrant.package is not None:
                entrant.package.close()
    elapsed = time.monotonic() - started
    names = [e.name for e in entrants]
    print_summary(sys.stdout, _headline(game, args, elapsed), names, tallies, teams)
    if fault_lines:
        print()
        print(
            _(
                "faults (from a fault on, the engine's random fallback plays that seat; its moves\n"
                "are not counted in the bot's figures above):"
            )
        )
        print("\n".join(fault_lines[:50]))
        if len(fault_lines) > 50:
            print(_("  ... and {count} more").format(count=len(fault_lines) - 50))
        for i, log in logs.items():
            if log.strip() and i not in shown_logs:
                print()
                print(
                    _("stderr of {bot} (last lines, from its first faulted match):").format(
                        bot=names[i]
                    )
                )
                print(_tail(log, 15))
    for i in sorted(show):
        if entrants[i].package is None:
            continue  # a builtin agent has no stderr
        log = shown_logs.get(i, "")
        print()
        print(
            _("stderr of {bot} (seat {seat}; last lines of the first match):").format(
                bot=names[i], seat=i
            )
        )
        print(_tail(log, 40) if log.strip() else "    " + _("(nothing)"))
    return 0


def _stderr_seats(raw: str | None, seats: int) -> set[int]:
    """``--show-stderr``: ``all`` or one seat number (the entrant that starts in that seat)."""
    if raw is None:
        return set()
    if raw == "all":
        return set(range(seats))
    if raw.isdigit() and int(raw) < seats:
        return {int(raw)}
    raise UsageError(
        _("--show-stderr {value}: expected all or a seat from 0 to {last}").format(
            value=repr(raw), last=seats - 1
        )
    )


def _fault_lines(result: engine.MatchResult, entrants: list[Entrant], seed: int) -> list[str]:
    """One line per fault; a bot that fails its start-up in every game gets one line."""
    lines: list[str] = []
    startup: dict[tuple[int, str, str], list[int]] = {}
    for f in result.faults:
        name = entrants[f.entrant].name
        if f.decision < 0:
            startup.setdefault((f.entrant, f.verdict, f.message), []).append(f.game_index + 1)
            continue
        where = _("seed {seed}, game {game}, seat {seat}, decision {decision}").format(
            seed=seed, game=f.game_index + 1, seat=f.seat, decision=f.decision
        )
        lines.append(f"  {where}: {name}: {f.verdict}: {f.message}")
    for (entrant, verdict, message), games in startup.items():
        where = (
            _("seed {seed}, game {game}").format(seed=seed, game=games[0])
            if len(games) == 1
            else _("seed {seed}, games {games}").format(seed=seed, games=", ".join(map(str, games)))
        )
        failed = _("{bot} failed to start").format(bot=entrants[entrant].name)
        lines.insert(0, f"  {where}: {failed}: {verdict}: {message}")
    return lines


def _headline(game: engine.Game, args: argparse.Namespace, elapsed: float) -> str:
    defaults = engine.load_game(game.name).params_dict()
    changed = {k: v for k, v in game.params_dict().items() if v != defaults[k]}
    rules = json.dumps(changed) if changed else _("(default rules)")
    matches = (
        _("{count} duplicate match(es)") if args.duplicate else _("{count} single match(es)")
    ).format(count=args.matches)
    seeds = _("seeds {first}..{last}").format(first=args.seed, last=args.seed + args.matches - 1)
    return f"{game.name} {rules}: {matches}, {seeds}, {elapsed:.2f} s"


def cmd_validate(args: argparse.Namespace) -> int:
    params = {**SMOKE_PARAMS.get(args.game, {}), **parse_params(args.param)}
    game = _game(args.game, [f"{k}={json.dumps(v)}" for k, v in params.items()])
    limits = _limits(args.limit)
    _pin(args.pin_cpu)
    package = load_bot(args.bot)
    print(
        _("bot {bot}: runtime {runtime}, entry {entry}").format(
            bot=package.name, runtime=package.runtime, entry=package.entry
        )
    )
    package = _built(package)
    others = [Entrant(f"random#{i}", "builtin:random", kind="random") for i in range(1, 9)]
    entrants = [Entrant(package.name, args.bot, package)] + others[: game.num_players - 1]
    try:
        result, agents = _play_one(game, entrants, limits, args.seed, True, args.trusted)
    finally:
        package.close()
    bot = agents[0]
    assert isinstance(bot, SandboxedAgent)
    mine = [f for f in result.faults if f.entrant == 0]
    tally = [Tally() for _entrant in entrants]
    tally_match(result, agents, tally)
    times = sorted(tally[0].decision_ns)
    figures = _(
        "{games} games (every seat), {decisions} decisions, {ms} ms per decision "
        "(mean / max), start-up {startup} ms"
    ).format(
        games=len(result.games), decisions=len(times), ms=ms_per_decision(times),
        startup=startup_ms(tally[0]),
    )  # fmt: skip
    print(f"{game.name} {json.dumps(params)}: {figures}")
    for f in mine:
        where = _("at start-up") if f.decision < 0 else _("decision {n}").format(n=f.decision)
        print()
        print(
            _("FAULT in game {game} (seat {seat}, {where}): {verdict}").format(
                game=f.game_index + 1, seat=f.seat, where=where, verdict=f.verdict
            )
        )
        print(f"  {f.message}")
        if f.detail:
            print("  " + _("detail: {detail}").format(detail=json.dumps(f.detail)))
        print("  " + _("hint: {hint}").format(hint=HINTS.get(f.verdict, "")))
    log = bot.stderr_log
    print()
    print(_("your bot's stderr (last lines):"))
    print(_tail(log, 30) if log.strip() else "    " + _("(nothing)"))
    if not mine:
        print()
        print(_("OK: no faults"))
        return 0
    return 1


# -- helpers ---------------------------------------------------------------------------------


def _game(name: str, raw_params: list[str]) -> engine.Game:
    if name not in engine.available_games():
        raise UsageError(
            _("unknown game {game} (available: {games})").format(
                game=repr(name), games=", ".join(engine.available_games())
            )
        )
    return engine.load_game(name, **parse_params(raw_params))


def parse_params(raw: list[str]) -> dict[str, Any]:
    """``engine.parse_option_words`` with a usage error naming the bad ``--param``."""
    try:
        return parse_option_words(raw)
    except ValueError as err:
        raise UsageError(
            _("--param {value}: expected NAME=VALUE").format(value=repr(str(err)))
        ) from None


def _limits(raw: list[str]) -> Limits:
    known = {f.name for f in fields(Limits)}
    changes: dict[str, int] = {}
    for item in raw:
        key, sep, value = item.partition("=")
        if not sep or key not in known or not value.isdigit():
            raise UsageError(
                _("--limit {value}: expected NAME=INTEGER, NAME one of {names}").format(
                    value=repr(item), names=sorted(known)
                )
            )
        changes[key] = int(value)
    return Limits(**changes)


def _pin(cpu: int | None) -> None:
    """Pin this process (and so the bots it starts) to one CPU: round trips get faster."""
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})


def _entrants(specs: list[str]) -> list[Entrant]:
    entrants: list[Entrant] = []
    loaded: dict[str, BotPackage] = {}
    for spec in specs:
        if spec.startswith(BUILTIN):
            kind = spec[len(BUILTIN) :]
            entrants.append(Entrant(spec, spec, kind=kind))
            continue
        package = loaded.get(spec) or _built(load_bot(spec))
        loaded[spec] = package
        entrants.append(Entrant(package.name, spec, package))
    counts: dict[str, int] = {}
    for entrant in entrants:  # make names unique: greedy, greedy#2, ...
        counts[entrant.name] = counts.get(entrant.name, 0) + 1
        if counts[entrant.name] > 1:
            entrant.name = f"{entrant.name}#{counts[entrant.name]}"
    return entrants


def _built(package: BotPackage) -> BotPackage:
    """A C++ bot's executable, compiled in the sandbox unless the local cache has it; a Python
    bot with its bytecode (compiled in the sandbox once, kept in the same cache)."""
    with_bytecode(package, cache_dir() / "bytecode")
    try:
        executable, compiled = built(package)
    except CompileError as err:  # the messages may come from someone else's sources: escaped
        raise UsageError(f"{package.name}: {err.reason}:\n{_tail(err.log, 40)}") from None
    if executable is not package:
        package.close()  # the sources; what plays is the executable
    if compiled is not None:
        print(
            _("arena: compiled {bot} in {seconds} s").format(
                bot=package.name, seconds=f"{compiled.seconds:.1f}"
            ),
            file=sys.stderr,
        )
        if compiled.log.strip():
            print(_tail(compiled.log, 30), file=sys.stderr)
    return executable


_announced: list[bool] = []  # the sandbox's mode is shown once per run


def _sandbox_pool(game: engine.Game, entrants: list[Entrant], duplicate: bool) -> SandboxPool:
    """Sandboxes prepared while each match plays, for the next (``ARENA_PREPARED_SANDBOXES``,
    default none): at most one per sandboxed seat of each of its games."""
    games = len(game.duplicate_rotations()) if duplicate else 1
    wanted = games * sum(e.package is not None for e in entrants)
    return SandboxPool(min(prepared_capacity(), wanted))


def _play_one(
    game: engine.Game,
    entrants: list[Entrant],
    limits: Limits,
    seed: int,
    duplicate: bool,
    trusted: bool,
    pool: SandboxPool | None = None,
) -> tuple[engine.MatchResult, list[engine.Agent]]:
    agents: list[engine.Agent] = []
    try:
        for i, entrant in enumerate(entrants):
            if entrant.package is None:
                agents.append(engine.make_agent(game.name, entrant.kind or "", seed * 31 + i))
            else:
                agents.append(SandboxedAgent(entrant.package, limits, trusted=trusted, pool=pool))
                if not trusted and not _announced:
                    _announced.append(True)
                    print(f"arena: sandbox: {cgroups.describe_mode()}", file=sys.stderr)
        result = engine.run_match(
            game, None, agents, seed, duplicate=duplicate, entrants=[e.name for e in entrants]
        )
    finally:
        for agent in agents:
            if isinstance(agent, SandboxedAgent):
                agent.close(wait=False)  # its stderr is complete
    return result, agents


def _tail(text: str, lines: int) -> str:
    """The last lines of a bot's stderr, for a terminal: escape sequences made harmless (the bot
    may be someone else's: no clearing the screen or writing the clipboard)."""
    return "\n".join("    " + protocol.printable(line, 1000) for line in text.splitlines()[-lines:])


def _write_replay(path: Path, replay: dict[str, Any], index: int, total: int) -> None:
    if total > 1:
        path = path.with_name(f"{path.stem}-{index + 1:03d}{path.suffix or '.json'}")
    path.write_text(json.dumps(replay, separators=(",", ":")), encoding="utf-8")


class Progress:
    """A one-line progress bar on stderr (only when it is a terminal)."""

    def __init__(self, total: int, *, enabled: bool) -> None:
        self.total = total
        self.enabled = enabled and sys.stderr.isatty()
        self.started = time.monotonic()

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * done / self.total)
        elapsed = time.monotonic() - self.started
        eta = elapsed / done * (self.total - done)
        progress = _("{done}/{total} matches, {elapsed}s elapsed, ~{left}s left").format(
            done=done, total=self.total, elapsed=f"{elapsed:.0f}", left=f"{eta:.0f}"
        )
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {progress} ")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


if __name__ == "__main__":
    sys.exit(main())
