"""Writes for tournaments and the continuous ladder's scheduler.

A tournament is created in one transaction with its entries, pinned to the entrants' current
versions; a task then creates every match of its schedule (``tournaments.schedule``) in one
transaction, and the matches are queued after that commits. It is closed by the service that
records its last match (under a lock on the tournament row, so two last matches finishing
together cannot both miss it), not by a chord.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

import engine
from arena.dispatch import send, send_on_commit
from arena.errors import ApplicationError
from bots.house import HOUSE_USERNAME
from bots.models import Bot, BotVersion, BotVersionStatus
from bots.selectors import bots_ready_to_play
from matches import formats
from matches.heartbeats import live_match_slots
from matches.models import UNFINISHED, Match, MatchOrigin, MatchSeat, MatchStatus
from matches.quotas import matches_per_request_check, unrated_quota_check
from matches.services import MatchSpec, matches_create
from ratings.models import Ladder, Rating
from ratings.policy import rating_ladder
from ratings.selectors import ladder_fit_for_top_up
from ratings.services import ladders_ensure
from ratings.strength import Fit
from tournaments.ladder_limits import DEFAULT_QUEUE_DEPTH, MAX_PENDING_PER_BOT
from tournaments.matchmaking import Candidate, top_up
from tournaments.models import TOURNAMENT_TRANSITIONS, Tournament, TournamentEntry, TournamentStatus
from tournaments.schedule import ScheduleError, round_robin_tables, tables_per_round

MAX_ROUNDS = 100


def tournament_create(
    *,
    created_by: User,
    name: str,
    game: str,
    bot_ids: Sequence[int],
    params: dict[str, Any] | None = None,
    rounds: int = 1,
    duplicate: bool = True,
    official: bool = False,
    seed: int | None = None,
) -> Tournament:
    """Create a round robin of ``bot_ids`` (their current versions, pinned now); its matches
    are created by a task once this commits (:func:`tournament_schedule`), so a request never
    waits for hundreds of them. ``official`` (staff and operators only: the caller decides)
    makes it rated when it is played under the ladder's rules (``ratings.policy``); otherwise
    it is unrated and counts against its creator's quotas (``matches.quotas``). ``seed`` only
    shuffles the schedule: every match draws its own seed."""
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
    rated = rating_ladder(game=game, params=rules.params_dict(), duplicate=duplicate,
                          origin=MatchOrigin.TOURNAMENT, official=official) is not None  # fmt: skip
    if rated:
        one_bot_per_author(bots)
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    try:
        tables = round_robin_tables(len(bots), formats.entrants_per_match(rules), rounds,
                                    seed=seed)  # fmt: skip
    except ScheduleError as err:
        raise ApplicationError(str(err), code="too_few_bots", field="bots") from None
    with transaction.atomic():
        if rated:
            matches_per_request_check(count=len(tables))
        else:
            unrated_quota_check(user=created_by, count=len(tables))
        tournament = Tournament.objects.create(
            name=name[:100] or f"{game} round robin", game=game, params=rules.params_dict(),
            rounds=rounds, duplicate=duplicate, seed=seed, created_by=created_by,
            official=official, rated=rated, planned_matches=len(tables),
        )  # fmt: skip
        TournamentEntry.objects.bulk_create(
            TournamentEntry(tournament=tournament, index=i, bot=bot, bot_version=_current(bot))
            for i, bot in enumerate(bots)
        )
        _send_schedule(tournament.pk)
    return tournament


def one_bot_per_author(bots: Sequence[Bot]) -> None:
    """Refuse two bots of one author at a rated table (Halite's rule against soft play and
    chip dumping); the house's reference bots are the platform's own and exempt."""
    authors = Counter(_author(b) for b in bots)
    shared = sorted({b.owner.username for b in bots if _author(b) and authors[_author(b)] > 1})
    if shared:
        raise ApplicationError(
            f"a rated tournament takes one bot per author; {', '.join(shared)} entered more",
            code="same_author", field="bots",
        )  # fmt: skip


def _author(bot: Bot) -> int | None:
    """The author whose other bots ``bot`` may not meet at a rated table (None: the house)."""
    return None if bot.owner.username == HOUSE_USERNAME else bot.owner_id


def _send_schedule(tournament_id: int) -> None:
    """Send the tournament's scheduling task once the current transaction commits."""
    from tournaments.tasks import schedule_tournament_task

    send_on_commit(schedule_tournament_task, tournament_id)


def tournament_schedule(*, tournament_id: int) -> int:
    """Create the tournament's matches from its entries and seed, once (the tournament row is
    locked and ``scheduled_at`` set in the same transaction: a second delivery creates
    nothing); how many were created."""
    with transaction.atomic():
        tournament = (
            Tournament.objects.select_for_update()
            .filter(pk=tournament_id, scheduled_at__isnull=True).first()
        )  # fmt: skip
        if tournament is None:
            return 0
        entries = list(tournament.entries.select_related("bot_version").order_by("index"))
        if tournament.status == TournamentStatus.RUNNING:
            rules = formats.load(tournament.game, tournament.params)
            tables = round_robin_tables(len(entries), formats.entrants_per_match(rules),
                                        tournament.rounds, seed=tournament.seed)  # fmt: skip
            per_round = tables_per_round(len(entries), formats.entrants_per_match(rules))
            specs = [
                MatchSpec(
                    entrants=[entries[i].bot_version for i in table], round=index // per_round + 1
                )  # fmt: skip
                for index, table in enumerate(tables)
            ]
            matches_create(
                game=tournament.game, params=tournament.params, duplicate=tournament.duplicate,
                origin=MatchOrigin.TOURNAMENT, specs=specs, tournament_id=tournament.pk,
                official=tournament.official, requested_by_id=tournament.created_by_id,
            )  # fmt: skip
        else:  # cancelled before its matches were made
            specs = []
        tournament.scheduled_at = timezone.now()
        tournament.save(update_fields=["scheduled_at"])
    return len(specs)


def tournaments_reschedule(*, older_than: timedelta = timedelta(seconds=30)) -> int:
    """Send again the scheduling task of tournaments still without their matches (its message
    was lost with the broker); how many."""
    stale = Tournament.objects.filter(
        scheduled_at__isnull=True, created_at__lt=timezone.now() - older_than
    ).values_list("id", flat=True)
    ids = list(stale)
    for tournament_id in ids:
        _send_schedule(tournament_id)
    return len(ids)


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
        pk=tournament_id, status=TournamentStatus.RUNNING, scheduled_at__isnull=False
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
    """Top up every scheduling ladder's queue; matches created per game (beat's backstop,
    every 30 s, to the top-ups that follow each result: :func:`ladder_top_up_soon`)."""
    created: dict[str, int] = {}
    for ladder in ladders_ensure():
        if ladder.scheduling:
            created[ladder.game] = len(ladder_schedule(ladder=ladder, rng=rng))
    return created


#: how long a requested top-up holds off further requests for its ladder if its task never
#: runs (a message lost with the broker); beat's top-up covers that time
TOP_UP_REQUEST_TTL_S = 30


def ladder_top_up_soon(*, ladder_id: int) -> None:
    """Once the current transaction commits (a ladder match ended), top the ladder's queue up on
    a worker, so that the next match is chosen from a fit that holds this result (docs/
    ranking.md, "The ladder tops up after each result"). At most one such task per ladder is
    queued at a time (a flag in the cache, cleared as the task starts): results arriving while
    it waits are served by it. Not with inline execution, where the ladder's own loop plays
    the queue (``play_ladder``): a top-up there would play its matches, whose results would
    top it up again, recursively."""
    if settings.ARENA_EXECUTION == "inline":
        return
    transaction.on_commit(lambda: _request_top_up(ladder_id), robust=True)


def _request_top_up(ladder_id: int) -> None:
    from tournaments.tasks import top_up_ladder_task

    flag = _top_up_flag(ladder_id)
    if not cache.add(flag, 1, timeout=TOP_UP_REQUEST_TTL_S):
        return  # a top-up is queued and has not started: it will see this result
    if not send(top_up_ladder_task, ladder_id):
        cache.delete(flag)  # the broker is down: the next result (or beat) asks again


def ladder_top_up(*, ladder_id: int) -> list[Match]:
    """The task of :func:`ladder_top_up_soon`: clear the ladder's flag (a result recorded from
    now on asks for another top-up) and top its queue up."""
    cache.delete(_top_up_flag(ladder_id))
    ladder = Ladder.objects.filter(pk=ladder_id, scheduling=True).first()
    return [] if ladder is None else ladder_schedule(ladder=ladder)


def _top_up_flag(ladder_id: int) -> str:
    return f"tournaments:top-up-requested:{ladder_id}"


def ladder_queue_depth() -> int:
    """How many ladder matches each ladder keeps queued or running: ``ARENA_LADDER_QUEUE_DEPTH``
    if set, else as many as the live workers can play at once (``live_match_slots``), so that a
    queue refilled after every result plans each match from a fit lacking only the results of
    the matches still running (docs/ranking.md, "The ladder tops up after each result").
    Without any worker beating (inline execution, the quick start), ``DEFAULT_QUEUE_DEPTH``,
    which its loop plays between two top-ups."""
    configured: int = settings.ARENA_LADDER_QUEUE_DEPTH
    return configured or live_match_slots() or DEFAULT_QUEUE_DEPTH


def ladder_schedule(*, ladder: Ladder, rng: random.Random | None = None) -> list[Match]:
    """Queue ladder matches among the game's bots with an active current version, up to
    :func:`ladder_queue_depth` pending ones, chosen by ``tournaments.matchmaking``: new
    versions' first games, then the pairs whose order the strength fit is least sure of. One
    top-up of a ladder at a time (a lock on its row, taken after the fit is read): two at once
    would both see room for the same matches."""
    rng = rng or random.Random()
    depth = ladder_queue_depth()
    if len(_queued(ladder)) >= depth:  # full (beat's top-ups mostly find it so): no fit to read
        return []
    fit = ladder_fit_for_top_up(game=ladder.game).fit
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().get(pk=ladder.pk)
        return _ladder_top_up_locked(ladder=ladder, depth=depth, fit=fit, rng=rng)


def _queued(ladder: Ladder) -> list[set[int]]:
    """The ladder's pending matches, each as its bots."""
    pending = Match.objects.filter(ladder=ladder, origin=MatchOrigin.LADDER, status__in=UNFINISHED)
    queued: defaultdict[int, set[int]] = defaultdict(set)
    for match_id, bot in MatchSeat.objects.filter(match__in=pending).values_list(
        "match_id", "bot_id"
    ):
        queued[match_id].add(bot)
    return list(queued.values())


def _ladder_top_up_locked(
    *, ladder: Ladder, depth: int, fit: Fit[int] | None, rng: random.Random
) -> list[Match]:
    queued = _queued(ladder)  # again, under the lock: another top-up may have filled it
    if len(queued) >= depth:
        return []
    bots = list(Bot.objects.filter(
        game=ladder.game, current_version__status=BotVersionStatus.ACTIVE
    ).select_related("current_version", "owner"))  # fmt: skip
    size = formats.entrants_per_match(formats.load(ladder.game, ladder.params))
    ratings = {r.bot_id: r for r in Rating.objects.filter(ladder=ladder)}

    def played(bot: Bot) -> int:
        row = ratings.get(bot.pk)
        return row.version_games if row and row.version_id == bot.current_version_id else 0

    tables = top_up(
        entrants=[Candidate(b.pk, played(b), MAX_PENDING_PER_BOT, _author(b)) for b in bots],
        queued=queued, fit=fit, depth=depth, table_size=size, rng=rng,
    )  # fmt: skip
    by_id = {b.pk: b for b in bots}
    specs = [MatchSpec(entrants=[_current(by_id[pk]) for pk in table]) for table in tables]
    if not specs:
        return []
    return matches_create(
        game=ladder.game, params=ladder.params, duplicate=ladder.duplicate,
        origin=MatchOrigin.LADDER, specs=specs,
    )  # fmt: skip
