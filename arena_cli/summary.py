"""The table ``arena play`` prints after its matches: how each entrant (or team) did.

In Belote and Bauer two entrants share a team's score and place, so the table ranks the teams
and lists each bot's own figures (time per decision, faults) under its team: a bot never looks
like a winner because its partner played well. A bot's time per decision counts only the
decisions it made itself; after a fault the engine's fallback agent plays its seat, and those
moves are not the bot's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TextIO

import engine
from sandbox.agent import SandboxedAgent

from .i18n import _, table


@dataclass
class Tally:
    """One entrant's figures over all matches."""

    score: float = 0.0
    places: list[int] = field(default_factory=list)
    faults: dict[str, int] = field(default_factory=dict)
    decision_ns: list[int] = field(default_factory=list)
    startup_s: list[float] = field(default_factory=list)


@dataclass
class TeamTally:
    members: list[int]  # entrant numbers
    score: float = 0.0
    places: list[int] = field(default_factory=list)


def entrant_teams(replay: dict[str, Any]) -> list[list[int]] | None:
    """Teams as entrant numbers (``[[0, 2], [1, 3]]``), or None for an individual game.

    A replay's ``teams`` are seat groups; the first game's ``seats`` says who sat where.
    """
    if not replay.get("teams"):
        return None
    seated = replay["games"][0]["seats"]
    return [[seated[s] for s in group] for group in replay["teams"]]


def tally_match(
    result: engine.MatchResult, agents: list[engine.Agent], tallies: list[Tally]
) -> None:
    """Add one match to every entrant's figures."""
    for i, tally in enumerate(tallies):
        tally.score += result.scores[i]
        tally.places.append(result.placings[i])
        agent = agents[i]
        if isinstance(agent, SandboxedAgent):
            tally.startup_s += agent.startup_seconds
    for f in result.faults:
        faults = tallies[f.entrant].faults
        faults[f.verdict] = faults.get(f.verdict, 0) + 1
    for play in result.games:
        took_over = {f.seat: f.decision for f in play.faults}  # the fallback plays from here on
        for decision, ((seat, _action), ns) in enumerate(
            zip(play.state.history, play.times_ns, strict=False)
        ):
            if decision < took_over.get(seat, len(play.times_ns)):
                tallies[play.seats[seat]].decision_ns.append(ns)


def tally_teams(result: engine.MatchResult, teams: list[TeamTally]) -> None:
    """Add one match to every team's figures: a team's place counts teams, not bots."""
    scores = [result.scores[team.members[0]] for team in teams]
    faulted = {f.entrant for f in result.faults}
    team_faults = [bool(faulted.intersection(team.members)) for team in teams]
    places = engine.placings(scores, last=[t for t, bad in enumerate(team_faults) if bad])
    for team, score, place in zip(teams, scores, places, strict=True):
        team.score += score
        team.places.append(place)


def print_summary(
    out: TextIO,
    headline: str,
    names: list[str],
    tallies: list[Tally],
    teams: list[TeamTally] | None,
) -> None:
    print(headline, file=out)
    if teams is not None:
        _print_teams(out, names, teams)
    ranked = teams is None
    headings = [(_("entrant") if ranked else _("bot"), "<", 8)]
    if ranked:
        headings += [(_("score"), ">", 10), (_("avg place"), ">", 9), (_("1st"), ">", 4)]
    else:
        headings += [(_("team"), ">", 4)]
    headings += [(_("ms/decision mean / max"), ">", 22), (_("start ms"), ">", 8),
                 (_("faults"), "<", 0)]  # fmt: skip
    team_of = {m: t for t, team in enumerate(teams or []) for m in team.members}
    rows = []
    for i, (name, t) in enumerate(zip(names, tallies, strict=True)):
        faults = ", ".join(f"{v}×{n}" for v, n in sorted(t.faults.items())) or "-"
        standing = (
            [f"{t.score:.1f}", f"{_mean(t.places):.2f}", str(t.places.count(1))]
            if ranked
            else [_team_letter(team_of[i])]
        )
        rows.append(
            [name, *standing, ms_per_decision(sorted(t.decision_ns)), startup_ms(t), faults]
        )
    print("\n".join(table(headings, rows, rule=True)), file=out)


def _print_teams(out: TextIO, names: list[str], teams: list[TeamTally]) -> None:
    headings = [(_("team"), "<", 8), (_("score"), ">", 10), (_("avg place"), ">", 9),
                (_("1st"), ">", 4)]  # fmt: skip
    rows = [
        [
            f"{_team_letter(t)}: {' + '.join(names[m] for m in team.members)}",
            f"{team.score:.1f}", f"{_mean(team.places):.2f}", str(team.places.count(1)),
        ]
        for t, team in enumerate(teams)
    ]  # fmt: skip
    print("\n".join(table(headings, rows, rule=True)), file=out)
    print(file=out)


def _team_letter(index: int) -> str:
    return "AB"[index] if index < 2 else str(index + 1)


def _mean(values: list[int]) -> float:
    return sum(values) / len(values)


def ms_per_decision(times: list[int]) -> str:
    """``mean / max`` in milliseconds of sorted decision times, ``-`` when there are none."""
    if not times:
        return "-"
    return f"{sum(times) / len(times) / 1e6:.3f} / {times[-1] / 1e6:.1f}"


def startup_ms(t: Tally) -> str:
    return f"{1000 * sum(t.startup_s) / len(t.startup_s):.0f}" if t.startup_s else "-"
