"""Writes for tournaments and the continuous ladder's scheduler.

A tournament is created in one transaction with its entries and every match of its schedule
(``tournaments.schedule``), pinned to the entrants' current versions; the matches are queued
after commit. It is closed by the service that records its last match (under a lock on the
tournament row, so two last matches finishing together cannot both miss it), not by a chord.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

import engine
from arena.errors import ApplicationError
from bots.models import Bot, BotVersion, BotVersionStatus
from bots.selectors import bots_ready_to_play
from matches import formats
from matches.models import UNFINISHED, Match, MatchOrigin, MatchSeat, MatchStatus
from matches.results import ranks_of
from matches.services import MatchSpec, matches_create
from ratings.models import Ladder, Rating
from ratings.selectors import match_rankings
from ratings.services import ladder_for_game, ladders_ensure
from ratings.strength import fit_matches
from tournaments.matchmaking import Candidate, meetings_of, plan_tables
from tournaments.models import TOURNAMENT_TRANSITIONS, Tournament, TournamentEntry, TournamentStatus
from tournaments.schedule import ScheduleError, round_robin_tables, tables_per_round

MAX_ROUNDS = 100
MAX_PENDING_PER_BOT = 2  # ladder back-pressure: a slow bot cannot fill the queue


def tournament_create(
    *,
    created_by: User,
    name: str,
    game: str,
    bot_ids: Sequence[int],
    params: dict[str, Any] | None = None,
    rounds: int = 1,
    duplicate: bool = True,
    seed: int | None = None,
) -> Tournament:
    """Create a round robin of ``bot_ids`` (their current versions) and queue its matches."""
    if game not in engine.available_games():
        message = f"unknown game {game!r} (one of {', '.join(engine.available_games())})"
        raise ApplicationError(message, code="unknown_game", field="game")
    try:
        rules = formats.load(game, params)
    except engine.InvalidParams as err:
        raise ApplicationError(str(err), code="invalid_params", field="params") from None
    if not 1 <= rounds <= MAX_ROUNDS:
        raise ApplicationError(f"rounds must be 1 to {MAX_ROUNDS}", code="invalid", field="rounds")
    bots = bots_ready_to_play(game=game, bot_ids=bot_ids)
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    table_size = formats.entrants_per_match(rules)
    try:
        tables = round_robin_tables(len(bots), table_size, rounds, seed=seed)
    except ScheduleError as err:
        raise ApplicationError(str(err), code="too_few_bots", field="bots") from None
    per_round = tables_per_round(len(bots), table_size)
    rng = random.Random(seed)
    ladder = ladder_for_game(game=game)
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name[:100] or f"{game} round robin", game=game, params=rules.params_dict(),
            rounds=rounds, duplicate=duplicate, seed=seed, created_by=created_by,
        )  # fmt: skip
        versions = [_current(bot) for bot in bots]
        TournamentEntry.objects.bulk_create(
            TournamentEntry(tournament=tournament, index=i, bot=bot, bot_version=versions[i])
            for i, bot in enumerate(bots)
        )
        specs = [
            MatchSpec(
                entrants=[versions[i] for i in table],
                seed=rng.randrange(2**31),
                round=index // per_round + 1,
            )  # fmt: skip
            for index, table in enumerate(tables)
        ]
        matches_create(
            game=game, params=rules.params_dict(), duplicate=duplicate,
            origin=MatchOrigin.TOURNAMENT, specs=specs, tournament_id=tournament.pk,
            ladder_id=ladder.pk,
        )  # fmt: skip
    return tournament


def _current(bot: Bot) -> BotVersion:
    assert bot.current_version is not None  # checked by bots_ready_to_play / the ladder's query
    return bot.current_version


def tournament_transition(*, tournament_id: int, frm: str, to: str, **fields: Any) -> bool:
    if to not in TOURNAMENT_TRANSITIONS[frm]:
        raise ValueError(f"a tournament cannot go from {frm} to {to}")
    updated = Tournament.objects.filter(pk=tournament_id, status=frm).update(status=to, **fields)
    return updated == 1


def tournament_match_recorded(*, tournament_id: int) -> bool:
    """Called in the transaction that recorded one of its matches: close the tournament if no
    match is left to play. True if this call closed it."""
    locked = Tournament.objects.select_for_update().filter(
        pk=tournament_id, status=TournamentStatus.RUNNING
    )
    if not locked.exists():
        return False
    if Match.objects.filter(tournament_id=tournament_id, status__in=UNFINISHED).exists():
        return False
    return tournament_transition(
        tournament_id=tournament_id, frm=TournamentStatus.RUNNING, to=TournamentStatus.FINISHED,
        finished_at=timezone.now(),
    )  # fmt: skip


def tournament_match_requeued(*, tournament_id: int) -> None:
    """One of its matches is being played again: a finished tournament runs again."""
    tournament_transition(
        tournament_id=tournament_id, frm=TournamentStatus.FINISHED, to=TournamentStatus.RUNNING,
        finished_at=None,
    )  # fmt: skip


def tournament_cancel(*, tournament_id: int) -> int:
    """Stop a running tournament: its queued matches are cancelled (running ones finish).
    How many matches were cancelled."""
    with transaction.atomic():
        if not tournament_transition(
            tournament_id=tournament_id, frm=TournamentStatus.RUNNING,
            to=TournamentStatus.CANCELLED, finished_at=timezone.now(),
        ):  # fmt: skip
            raise ApplicationError("the tournament is not running", code="not_running")
        return Match.objects.filter(tournament_id=tournament_id, status=MatchStatus.QUEUED).update(
            status=MatchStatus.CANCELLED, finished_at=timezone.now()
        )


# -- the continuous ladder ---------------------------------------------------------------------


def ladders_schedule(*, rng: random.Random | None = None) -> dict[str, int]:
    """Top up every scheduling ladder's queue; matches created per game."""
    created: dict[str, int] = {}
    for ladder in ladders_ensure():
        if ladder.scheduling:
            created[ladder.game] = len(ladder_schedule(ladder=ladder, rng=rng))
    return created


def ladder_schedule(*, ladder: Ladder, rng: random.Random | None = None) -> list[Match]:
    """Queue ladder matches among the game's bots with an active current version, up to
    ``ARENA_LADDER_QUEUE_DEPTH`` pending ones, chosen by ``tournaments.matchmaking``: new
    versions' first games, then the pairs whose order the strength fit is least sure of."""
    rng = rng or random.Random()
    pending = Match.objects.filter(ladder=ladder, origin=MatchOrigin.LADDER, status__in=UNFINISHED)
    free = settings.ARENA_LADDER_QUEUE_DEPTH - pending.count()
    if free <= 0:
        return []
    queued: defaultdict[int, set[int]] = defaultdict(set)  # pending match -> its bots
    for match_id, bot in MatchSeat.objects.filter(match__in=pending).values_list(
        "match_id", "bot_id"
    ):
        queued[match_id].add(bot)
    busy = Counter(bot for table in queued.values() for bot in table)
    bots = [
        b for b in Bot.objects.filter(
            game=ladder.game, current_version__status=BotVersionStatus.ACTIVE
        ).select_related("current_version")
        if busy[b.pk] < MAX_PENDING_PER_BOT
    ]  # fmt: skip
    size = formats.entrants_per_match(formats.load(ladder.game, ladder.params))
    ratings = {r.bot_id: r for r in Rating.objects.filter(ladder=ladder)}

    def played(bot: Bot) -> int:
        row = ratings.get(bot.pk)
        return row.version_games if row and row.version_id == bot.current_version_id else 0

    rankings = match_rankings(game=ladder.game)
    # queued matches count as meetings too, so a pair is not queued again and again before
    # its first results are in
    met = meetings_of([[b for b, _ in ranks_of(orders[0])] for orders in rankings]
                      + [list(table) for table in queued.values()])  # fmt: skip
    tables = plan_tables(
        candidates=[Candidate(b.pk, played(b), MAX_PENDING_PER_BOT - busy[b.pk]) for b in bots],
        fit=fit_matches(rankings), meetings=met,
        table_size=size, count=free, rng=rng,
    )  # fmt: skip
    by_id = {b.pk: b for b in bots}
    specs = [
        MatchSpec(entrants=[_current(by_id[pk]) for pk in table], seed=rng.randrange(2**31))
        for table in tables
    ]
    if not specs:
        return []
    return matches_create(
        game=ladder.game, params=ladder.params, duplicate=ladder.duplicate,
        origin=MatchOrigin.LADDER, specs=specs, ladder_id=ladder.pk,
    )  # fmt: skip
