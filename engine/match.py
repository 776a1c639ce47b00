"""The match runner: drives agents through one game or a duplicate set of games.

A *match* between entrants is one game (``duplicate=False``) or, with ``duplicate=True``, the
same seed played once per rotation of entrants over seats (every seat for individual games, both
team sides for partnership games), so that card luck cancels out. Agents that fault are replaced
by a random fallback for the rest of that game; faulted entrants place last.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .agents import Agent, RandomAgent
from .faults import AgentFault, MatchAborted, Verdict
from .game import TERMINAL, Game, State
from .registry import load_game
from .replay import REPLAY_FORMAT, REPLAY_VERSION, game_replay


@dataclass
class Fault:
    entrant: int
    seat: int
    game_index: int
    verdict: str
    decision: int  # index of the decision in the game (-1: at start-up)
    message: str
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class GamePlay:
    """One played game of a match: who sat where, what happened, how long each decision took."""

    index: int
    seats: list[int]  # entrant index per seat
    state: State
    times_ns: list[int]
    faults: list[Fault]


@dataclass
class MatchResult:
    game: str
    params: dict[str, Any]
    seed: int
    duplicate: bool
    entrants: list[str]
    scores: list[float]  # per entrant, summed over the games of the match
    placings: list[int]  # per entrant: 1 + number of entrants strictly ahead; faulted last
    rates: dict[str, list[float]]  # per entrant, e.g. {"bb/100": [...]} (Game.rate_scores)
    faults: list[Fault]
    games: list[GamePlay]
    replay: dict[str, Any]

    def decision_stats(self) -> dict[str, float]:
        """Count, mean and max decision time (ms) over the whole match."""
        times = [t for g in self.games for t in g.times_ns]
        if not times:
            return {"decisions": 0, "mean_ms": 0.0, "max_ms": 0.0}
        return {
            "decisions": len(times),
            "mean_ms": sum(times) / len(times) / 1e6,
            "max_ms": max(times) / 1e6,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "params": self.params,
            "seed": self.seed,
            "duplicate": self.duplicate,
            "entrants": self.entrants,
            "scores": self.scores,
            "placings": self.placings,
            "rates": self.rates,
            "faults": [asdict(f) for f in self.faults],
            "games": [
                {"seats": g.seats, "returns": g.state.returns(), "deals": len(g.state.deals)}
                for g in self.games
            ],
            "decisions": self.decision_stats(),
        }


def placings(scores: Sequence[float], last: Sequence[int] = ()) -> list[int]:
    """Competition ranking (ties share the better place); indices in ``last`` rank below all."""
    demoted = set(last)
    keys = [(0 if i in demoted else 1, score) for i, score in enumerate(scores)]
    return [1 + sum(other > key for other in keys) for key in keys]


def play_game(
    game: Game,
    agents: Sequence[Agent],
    seed: int,
    *,
    seats: Sequence[int] | None = None,
    index: int = 0,
) -> GamePlay:
    """Play one game; ``agents[s]`` sits in seat ``s``; ``seats`` maps seats to entrant ids."""
    seats = list(seats if seats is not None else range(len(agents)))
    state = game.new_initial_state(seed)
    active: list[Agent] = list(agents)
    faults: list[Fault] = []
    times: list[int] = []

    def fault(seat: int, err: AgentFault, decision: int) -> None:
        if err.verdict == Verdict.INTERNAL_ERROR:
            raise MatchAborted(f"seat {seat}: {err.message}") from err
        faults.append(
            Fault(seats[seat], seat, index, err.verdict.value, decision, err.message, err.detail)
        )
        active[seat] = RandomAgent(seed * 31 + seat)

    try:
        params = game.params_dict()
        for seat, agent in enumerate(agents):
            try:
                agent.start(start_info(game, seat, params))
            except AgentFault as err:
                fault(seat, err, -1)
        waiting = [
            (seat, agent)
            for seat, agent in enumerate(agents)
            if active[seat] is agent and type(agent).wait_ready is not Agent.wait_ready
        ]  # in-process agents are always ready: no thread for them
        for seat, startup_fault in wait_ready_all(waiting):
            fault(seat, startup_fault, -1)
        clock = time.perf_counter_ns
        while True:
            seat = state.current_player()
            if seat == TERMINAL:
                break
            legal = state.legal_actions()
            observation = state.observation(seat)
            agent = active[seat]
            started = clock()
            try:
                action = agent.act(observation, legal)
                if action not in legal:
                    raise AgentFault(
                        Verdict.ILLEGAL_ACTION, f"{action!r} is not legal", action=str(action)[:200]
                    )
            except AgentFault as err:
                fault(seat, err, len(times))
                action = active[seat].act(observation, legal)
            times.append(clock() - started)
            state.apply_action(action)
    finally:
        result = {"scores": state.returns(), "terminal": state.is_terminal()}
        for seat, agent in enumerate(agents):
            try:
                agent.finish({**result, "seat": seat})
            except AgentFault:
                pass  # a bot misbehaving after the game cannot change it
    return GamePlay(index, seats, state, times, faults)


def wait_ready_all(
    agents: Sequence[tuple[int, Agent]], *, games: bool = False
) -> list[tuple[int, AgentFault]]:
    """Wait for every agent's start-up at the same time; the start-up faults in seat order
    (``games``: every game's, :meth:`Agent.wait_games_ready`, which raises no fault).

    Waiting one after another would let a bot that never answers use up the start-up limits of
    the bots waited for after it: their ``ready`` lines would sit unread until their own limits
    had passed. Each wait runs in a thread of its own and depends on no other agent.
    """
    outcomes: dict[int, BaseException] = {}

    def wait(seat: int, agent: Agent) -> None:
        try:
            agent.wait_games_ready() if games else agent.wait_ready()
        except BaseException as err:  # noqa: BLE001 - handed to the caller's thread below
            outcomes[seat] = err

    if len(agents) == 1:  # nobody to wait alongside: no thread
        wait(*agents[0])
    else:
        threads = [threading.Thread(target=wait, args=pair, daemon=True) for pair in agents]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    faults = []
    for seat, _agent in agents:
        raised = outcomes.get(seat)
        if isinstance(raised, AgentFault):
            faults.append((seat, raised))
        elif raised is not None:
            raise raised
    return faults


def start_info(game: Game, seat: int, params: dict[str, Any]) -> dict[str, Any]:
    """What an agent's ``start`` gets for a game in ``seat`` (and ``start_games`` ahead of it:
    the two must agree, so one function builds both)."""
    return {"game": game.name, "seat": seat, "params": params}


def start_games(game: Game, agents: Sequence[Agent], rotations: Sequence[Sequence[int]]) -> None:
    """Start every game's bots at once, before the first game: each agent learns the ``info``
    of each game it will play (its seat in each rotation) and may start them all side by side;
    then all are waited for together. A bot that fails to start is reported by its game."""
    params = game.params_dict()
    infos: list[list[dict[str, Any]]] = [[] for _ in agents]
    for seat_map in rotations:
        for seat, entrant in enumerate(seat_map):
            infos[entrant].append(start_info(game, seat, params))
    ahead = [
        (entrant, agent)
        for entrant, agent in enumerate(agents)
        if type(agent).start_games is not Agent.start_games
    ]  # in-process agents start nothing: no thread for them
    for entrant, agent in ahead:
        agent.start_games(infos[entrant])
    wait_ready_all(ahead, games=True)


def run_match(
    game: str | Game,
    params: dict[str, Any] | None,
    agents: Sequence[Agent],
    seed: int,
    *,
    duplicate: bool = False,
    entrants: Sequence[str] | None = None,
) -> MatchResult:
    """Play a match between ``agents`` (one per entrant, entrant i starts in seat i)."""
    if isinstance(game, str):
        game = load_game(game, **(params or {}))
    elif params:
        raise ValueError("pass params either inside the Game or as a dict, not both")
    names = list(entrants) if entrants is not None else [f"entrant {i}" for i in range(len(agents))]
    if len(agents) != game.num_players or len(names) != len(agents):
        raise ValueError(f"{game.name} needs {game.num_players} agents and as many entrant names")
    rotations = game.duplicate_rotations() if duplicate else [list(range(game.num_players))]
    start_games(game, agents, rotations)
    plays: list[GamePlay] = []
    for index, seat_map in enumerate(rotations):
        play = play_game(game, [agents[e] for e in seat_map], seed, seats=seat_map, index=index)
        plays.append(play)
    scores = [0.0] * len(agents)
    for play in plays:
        for seat, value in enumerate(play.state.returns()):
            scores[play.seats[seat]] += value
    faults = [f for p in plays for f in p.faults]
    places = placings(scores, last=sorted({f.entrant for f in faults}))
    rates = game.rate_scores(
        scores, sum(len(p.state.deals) for p in plays)
    )  # each plays every game
    replay = {
        "format": REPLAY_FORMAT,
        "version": REPLAY_VERSION,
        "game": game.name,
        "params": game.params_dict(),
        "seed": seed,
        "duplicate": duplicate,
        "entrants": names,
        "teams": [list(t) for t in game.teams] if game.teams else None,
        "games": [
            game_replay(p.state, p.seats, p.times_ns, [asdict(f) for f in p.faults]) for p in plays
        ],
        "result": {"scores": scores, "placings": places, "rates": rates},
    }
    return MatchResult(
        game.name,
        game.params_dict(),
        seed,
        duplicate,
        names,
        scores,
        places,
        rates,
        faults,
        plays,
        replay,
    )
