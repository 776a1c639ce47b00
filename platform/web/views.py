"""The site's pages. Views parse, authorize and call one service or a few selectors; every
read lives in the owning app's ``selectors.py``."""

from __future__ import annotations

import zlib
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.models import User
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

import engine
from api.selectors import tokens_live
from api.services import token_create, token_revoke
from arena.errors import ApplicationError
from arena.security import client_address, login_failed, login_refused, over_limit
from bots import starters
from bots.models import Bot, BotVersion, BotVersionStatus, ValidationReplay
from bots.selectors import bot_with_versions, botversion_recent_match_logs, playable_bots
from bots.services import bot_create_with_version, botversion_create
from matches import formats
from matches.challenges import challenge_create
from matches.decisions import Decision, act_stderr, decision_at
from matches.luck import bot_luck, rated_margin_scale
from matches.models import UNFINISHED, Match, MatchStatus
from matches.progress import match_progress
from matches.selectors import (
    bot_record,
    match_board_result,
    match_replay,
    match_replay_document,
    match_with_seats,
    recent_matches,
    seat_log_of_owner,
    tournament_match_lines,
)
from ratings.selectors import (
    ladder_leaders,
    ladder_rows_current,
    ladder_strengths_current,
    rating_histories,
    seat_fairness_current,
)
from sandbox import DEFAULT_LIMITS, single_file_suffixes
from tournaments.models import Tournament
from tournaments.selectors import (
    tournament_faults,
    tournament_progress,
    tournament_table,
    tournament_time_left,
    tournaments_with_progress,
)
from tournaments.services import tournament_create
from web import documents
from web.faults import FAULT_HELP
from web.forms import (
    ChallengeForm,
    NewBotForm,
    SignUpForm,
    TokenForm,
    TournamentForm,
    VersionForm,
)
from web.games import GAMES, game_info
from web.plots import rating_plot
from web.viewer import viewer_labels

PLOTTED_BOTS = 5
LADDER_PAGE = 100  # rows of a ladder page (a thousand rows took 100 ms to render)
STRENGTH_ROWS = 50  # the strongest bots shown with their intervals (the API has them all)
RECENT = 10
TOURNAMENT_MATCHES = 300  # rows of a tournament's match list (the API pages through them all)


def home(request: HttpRequest) -> HttpResponse:
    leaders = ladder_leaders(per_game=3)
    return render(request, "web/home.html", {
        "games": [(g, leaders.get(g.key, [])) for g in GAMES],
        "tournaments": tournaments_with_progress(limit=5, running_only=True),
        "matches": recent_matches(limit=RECENT),
    })  # fmt: skip


def ladder(request: HttpRequest, game: str) -> HttpResponse:
    info = game_info(game)
    rows = ladder_rows_current(game=game)
    top = rows[:PLOTTED_BOTS]
    histories = rating_histories(game=game, bot_ids=[r.bot_id for r in top])
    plot = rating_plot([(f"{r.owner}/{r.bot}", histories[r.bot_id]) for r in top])
    page = Paginator(rows, LADDER_PAGE).get_page(request.GET.get("page"))
    context = {
        "game": info, "games": GAMES, "page": page, "plot": plot,
        "strengths": ladder_strengths_current(game=game)[:STRENGTH_ROWS],
        "fairness": seat_fairness_current(game=game),
    }  # fmt: skip
    return render(request, "web/ladder.html", context)


def _bot_or_404(bot_id: int) -> Bot:
    try:
        return bot_with_versions(bot_id=bot_id)
    except Bot.DoesNotExist:
        raise Http404(_("There is no bot with that number.")) from None


def bot_detail(request: HttpRequest, bot_id: int) -> HttpResponse:
    return _bot_page(request, _bot_or_404(bot_id))


def _bot_page(
    request: HttpRequest,
    bot: Bot,
    *,
    version_form: VersionForm | None = None,
    challenge_form: ChallengeForm | None = None,
    status: int = 200,
) -> HttpResponse:
    is_owner = request.user.is_authenticated and request.user.pk == bot.owner_id
    history = rating_histories(game=bot.game, bot_ids=[bot.pk])[bot.pk]
    context: dict[str, Any] = {
        "bot": bot,
        "game": game_info(bot.game),
        "versions": list(bot.versions.all()),
        "is_owner": is_owner,
        "plot": rating_plot([(str(bot), history)]),
        "rating": history[-1] if history else None,
        "strength": next(
            (s for s in ladder_strengths_current(game=bot.game) if s.bot_id == bot.pk), None
        ),
        "record": bot_record(bot_id=bot.pk, rated=True),
        "unrated_record": bot_record(bot_id=bot.pk, rated=False),
        "luck": bot_luck(bot_id=bot.pk),
        "matches": recent_matches(limit=RECENT, bot_id=bot.pk),
        "fault_help": FAULT_HELP,
    }
    if is_owner:
        context["version_form"] = version_form or VersionForm()
        context["challenge_form"] = challenge_form or ChallengeForm(candidates=_opponents(bot))
    return render(request, "web/bot.html", context, status=status)


def _opponents(bot: Bot) -> list[Bot]:
    return [b for b in playable_bots(game=bot.game) if b.pk != bot.pk]


def _owned_bot_or_404(request: HttpRequest, bot_id: int) -> Bot:
    """Only its owner may change a bot or read its logs; anyone else gets a 404, not a 403."""
    bot = _bot_or_404(bot_id)
    if not request.user.is_authenticated or request.user.pk != bot.owner_id:
        raise Http404(_("There is no bot with that number."))
    return bot


@login_required
@require_POST
def bot_upload_version(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = _owned_bot_or_404(request, bot_id)
    form = VersionForm(request.POST, request.FILES)
    if _too_many(request, "upload", settings.ARENA_UPLOADS_PER_HOUR):
        form.add_error(None, _("Too many uploads this hour; try again later."))
        return _bot_page(request, bot, version_form=form, status=429)
    if form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            version = botversion_create(bot=bot, chunks=upload.chunks(), filename=upload.name)
        except ApplicationError as error:
            form.add_service_error(error)
        else:
            messages.add_message(request, *_version_banner(version, first=False))
            return redirect("bot", bot_id=bot.pk)
    return _bot_page(request, bot, version_form=form, status=400)


@login_required
@require_POST
def bot_challenge(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = _owned_bot_or_404(request, bot_id)
    form = ChallengeForm(request.POST, candidates=_opponents(bot))
    if form.is_valid():
        user: User = request.user  # type: ignore[assignment]
        try:
            match = challenge_create(
                user=user, bot_id=bot.pk, opponent_ids=form.cleaned_data["opponents"]
            )
        except ApplicationError as error:
            form.add_service_error(error)
        else:
            match.refresh_from_db(fields=["status"])  # inline execution has played it already
            messages.success(request, _("The challenge is queued.")
                             if match.status == MatchStatus.QUEUED
                             else _("The challenge was played: its result is below."))  # fmt: skip
            return redirect("match", match_id=match.pk)
    return _bot_page(request, bot, challenge_form=form, status=400)


@login_required
def bot_logs(request: HttpRequest, bot_id: int) -> HttpResponse:
    """The bot's stderr from validation and its recent matches: its owner's eyes only."""
    bot = _owned_bot_or_404(request, bot_id)
    versions = list(bot.versions.all())
    seats = (
        list(botversion_recent_match_logs(version=bot.current_version))
        if bot.current_version is not None else []
    )  # fmt: skip
    return render(request, "web/bot_logs.html", {
        "bot": bot, "versions": versions, "seats": seats, "fault_help": FAULT_HELP,
    })  # fmt: skip


@login_required
@require_http_methods(["GET", "POST"])
def bot_new(request: HttpRequest) -> HttpResponse:
    form = NewBotForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and _too_many(request, "upload", settings.ARENA_UPLOADS_PER_HOUR):
        form.add_error(None, _("Too many uploads this hour; try again later."))
        return render(request, "web/bot_new.html", {"form": form}, status=429)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        user: User = request.user  # type: ignore[assignment]
        try:
            version = bot_create_with_version(
                owner=user, name=form.cleaned_data["name"], game=form.cleaned_data["game"],
                chunks=upload.chunks(), filename=upload.name,
            )  # fmt: skip
        except ApplicationError as error:
            form.add_service_error(error)
        else:
            messages.add_message(request, *_version_banner(version, first=True))
            return redirect("bot", bot_id=version.bot_id)
    status = 400 if request.method == "POST" else 200
    return render(request, "web/bot_new.html", {"form": form}, status=status)


def write_a_bot(request: HttpRequest) -> HttpResponse:
    """The first page of a new author: a starter kit per game and language, what may be
    uploaded, and where the rules and the protocol are."""
    return render(request, "web/write_a_bot.html", {
        "games": GAMES, "kits": starters.KITS, "suffixes": single_file_suffixes(),
    })  # fmt: skip


def starter_kit(request: HttpRequest, game: str, kit: str) -> HttpResponse:
    info = game_info(game)
    if kit not in starters.KITS_BY_KEY:
        raise Http404(_("There is no such starter kit."))
    response = HttpResponse(starters.kit_zip(game=info.key, key=kit),
                            content_type="application/zip")  # fmt: skip
    response["Content-Disposition"] = f'attachment; filename="{info.key}-{kit}.zip"'
    return response


def validation_replay(request: HttpRequest, bot_id: int, version_id: int) -> HttpResponse:
    """The replay of a version's smoke match (public, like every finished match's replay; the
    bot's stderr is not in it)."""
    stored = (
        ValidationReplay.objects.filter(version_id=version_id, version__bot_id=bot_id)
        .select_related("version").first()
    )  # fmt: skip
    if stored is None:
        raise Http404(_("That version has no validation replay."))
    response = HttpResponse(zlib.decompress(bytes(stored.data)), content_type="application/json")
    response["Content-Disposition"] = (
        f'attachment; filename="bot{bot_id}-v{stored.version.number}-validation.json"'
    )
    return response


def _version_banner(version: BotVersion, *, first: bool) -> tuple[int, str]:
    """The upload's banner (level, text): the version's state now (inline execution validates
    it before the page answers; a worker does it later)."""
    version.refresh_from_db(fields=["status"])
    number = {"number": version.number}
    if version.status == BotVersionStatus.ACTIVE:
        text = _("Version %(number)d passed its validation: it plays now.") % number
        return messages.SUCCESS, text
    if version.status == BotVersionStatus.REJECTED:
        text = _("Version %(number)d was rejected in validation: the reason is below.") % number
        return messages.WARNING, text
    if first:
        return messages.SUCCESS, _("Your bot is stored; its first version is being validated.")
    return messages.SUCCESS, _("Version %(number)d is stored and will be validated.") % number


def tournament_list(request: HttpRequest) -> HttpResponse:
    return render(request, "web/tournaments.html", {
        "tournaments": tournaments_with_progress(limit=50),
    })  # fmt: skip


@login_required
@require_http_methods(["GET", "POST"])
def tournament_new(request: HttpRequest) -> HttpResponse:
    game = game_info(request.POST.get("game") or request.GET.get("game") or GAMES[0].key)
    candidates = list(playable_bots(game=game.key))
    user: User = request.user  # type: ignore[assignment]
    form = TournamentForm(request.POST or None, candidates=candidates, staff=user.is_staff,
                          initial={"game": game.key})  # fmt: skip
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            tournament = tournament_create(
                created_by=user, name=data["name"], game=data["game"], bot_ids=data["bots"],
                rounds=data["rounds"], duplicate=data["duplicate"],
                official=data.get("official", False),
            )  # fmt: skip
        except ApplicationError as error:
            form.add_service_error(error)
        else:
            return redirect("tournament", tournament_id=tournament.pk)
    status = 400 if request.method == "POST" else 200
    return render(request, "web/tournament_new.html",
                  {"form": form, "game": game, "games": GAMES}, status=status)  # fmt: skip


def _tournament_or_404(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_related("created_by").filter(pk=tournament_id).first()
    if tournament is None:
        raise Http404(_("There is no tournament with that number."))
    return tournament


def _progress_context(tournament: Tournament) -> dict[str, Any]:
    progress = tournament_progress(tournament=tournament)
    return {
        "tournament": tournament,
        "progress": progress,
        "percent": round(100 * progress.done / progress.total) if progress.total else 100,
        "time_left": tournament_time_left(tournament=tournament, progress=progress),
    }


def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = _tournament_or_404(tournament_id)
    table = tournament_table(tournament=tournament)
    standings, cross = table.standings, table.cross
    names = {s.bot_id: s.bot for s in standings}
    order = [s.bot_id for s in standings]
    cross_rows = [
        (names[a], [
            None if a == b else (cross.points.get((a, b), 0.0), cross.meetings.get((a, b), 0))
            for b in order
        ])
        for a in order
    ]  # fmt: skip
    return render(request, "web/tournament.html", {
        **_progress_context(tournament),
        **_matches_context(tournament),
        "game": game_info(tournament.game),
        "standings": standings,
        "cross_names": [names[b] for b in order],
        "cross_rows": cross_rows,
        "faults": tournament_faults(tournament=tournament),
        "fault_help": FAULT_HELP,
    })  # fmt: skip


def _matches_context(tournament: Tournament) -> dict[str, Any]:
    shown, total = tournament_match_lines(tournament_id=tournament.pk, limit=TOURNAMENT_MATCHES)
    bots = {seat.bot_id for line in shown for seat in line.seats}  # one URL each, not per seat
    return {"tournament": tournament, "matches": shown, "more_matches": total - len(shown),
            "bot_urls": {bot: reverse("bot", args=[bot]) for bot in bots}}  # fmt: skip


def tournament_matches_partial(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The tournament's match list alone (status, places, replay links), polled by htmx while
    the tournament runs."""
    tournament = _tournament_or_404(tournament_id)
    return render(request, "web/_tournament_matches.html", _matches_context(tournament))


def tournament_progress_partial(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The progress bar alone, polled by htmx while the tournament runs."""
    tournament = _tournament_or_404(tournament_id)
    return render(request, "web/_progress.html", _progress_context(tournament))


def _match_or_404(match_id: int) -> Match:
    try:
        return match_with_seats(match_id=match_id)
    except Match.DoesNotExist:
        raise Http404(_("There is no match with that number.")) from None


def _seat_param(request: HttpRequest, seats: int) -> int | None:
    raw = request.GET.get("seat", "")
    if raw in ("", "all"):
        return None
    if not raw.isdigit() or int(raw) >= seats:
        raise Http404(_("This match has no such seat."))
    return int(raw)


def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    """The viewer's page. The replay itself is not in the page: the viewer fetches it from the
    API (``/api/matches/<id>/replay/[?seat=N]``), which filters a seat's view on the server."""
    match = _match_or_404(match_id)
    seats = list(match.seats.all())
    context: dict[str, Any] = {"match": match, "seats": seats, "game": game_info(match.game),
                               "finished": match.status == MatchStatus.FINISHED,
                               "board_result": match_board_result(match=match)}  # fmt: skip
    if context["board_result"] is not None:
        bots = {seat.bot_id: seat.bot for seat in seats}
        corrected = match_board_result(match=match, corrected=True)  # what the ladder reads
        context["corrected_result"] = corrected
        rated = dict(corrected.texts) if corrected is not None else {}
        context["board_rows"] = [(bots[b], text, rated.get(b))
                                 for b, text in context["board_result"].texts]  # fmt: skip
        context["each_deal_rated"] = engine.game_class(match.game).corrected_boards_each_deal
        context["margin_scale"] = (  # how the ratings share the boards they read
            rated_margin_scale(match.game, match.params) if corrected is not None
            else engine.game_class(match.game).board_margin_scale
        )  # fmt: skip
    elif match.corrected_boards:  # rated by its corrected total (Badugi): one board, no boards
        context["corrected_total_scale"] = rated_margin_scale(match.game, match.params)
    if context["finished"]:
        seat = _seat_param(request, len(seats))
        context["viewpoint"] = "all" if seat is None else seat
        context["seat_query"] = "" if seat is None else f"?seat={seat}"
        context["labels"] = viewer_labels()
    else:
        context.update(_live_context(match))
    return render(request, "web/match.html", context)


def _live_context(match: Match) -> dict[str, Any]:
    """What a queued or running match's page shows: its status and, while it runs, its public
    progress (the game of the set and the decisions made: ``matches.progress``)."""
    rules = formats.load(match.game, match.params)
    return {
        "match": match, "over": match.status not in UNFINISHED,
        "progress": match_progress(match_id=match.pk) if match.status == MatchStatus.RUNNING
        else None,
        "games": len(rules.duplicate_rotations()) if match.duplicate else 1,
    }  # fmt: skip


def match_decision(request: HttpRequest, match_id: int) -> JsonResponse:
    """The replay inspector's decision (``?game=&deal=&event=``, as numbered in the replay): the
    observation and legal list its bot was sent, its answer and time. Finished matches only:
    until then nothing of the deals is public."""
    match = _match_or_404(match_id)
    where = {name: request.GET.get(name, "") for name in ("game", "deal", "event")}
    if match.status != MatchStatus.FINISHED or not all(v.isdigit() for v in where.values()):
        return _no_decision()
    try:
        decision = decision_at(
            match_replay(match_id=match.pk), **{k: int(v) for k, v in where.items()}
        )
    except ApplicationError:
        return _no_decision()
    body: dict[str, Any] = {
        "seat": decision.seat, "entrant": decision.entrant, "observation": decision.observation,
        "legal": decision.legal, "action": decision.action, "ms": decision.ms,
    }  # fmt: skip
    owner = request.user.pk if request.user.is_authenticated else None
    log = seat_log_of_owner(match_id=match.pk, seat=decision.entrant, user_id=owner)
    if log is not None:  # the bot's owner: its stderr at this decision
        body["stderr"], body["stderr_note"] = _decision_stderr(log, decision, int(where["game"]))
    response = JsonResponse(body)
    patch_cache_control(response, private=True)  # an owner's answer holds its stderr
    return response


def _decision_stderr(log: str, decision: Decision, game: int) -> tuple[str, str]:
    """What the bot wrote during the decision's act, and a note when that is not all."""
    if decision.act is None:
        return "", _("After its fault the engine's fallback played for the bot: no stderr.")
    found = act_stderr(log, game=game, act=decision.act)
    if found.unmarked:
        return "", _("This bot's log marks no decision's lines (it wrote only outside its acts, "
                     "or the log was kept before the marks existed): its logs page shows it "
                     "whole.")  # fmt: skip
    if found.dropped and not found.text:
        kept = {"kib": DEFAULT_LIMITS.max_stderr_bytes // 1024}
        return "", _("Nothing kept for this decision: only the last %(kib)d KiB of a match's "
                     "stderr are stored, and its lines may have been earlier.") % kept  # fmt: skip
    return found.text, ""


def _no_decision() -> JsonResponse:
    message = _("The match has no such decision.")
    return JsonResponse({"error": {"code": "not_found", "message": message}}, status=404)


def match_live(request: HttpRequest, match_id: int) -> HttpResponse:
    """The running match's status box, polled by htmx; once the match is over, htmx reloads the
    page (``HX-Refresh``) so its replay appears. Only the status and the counts of
    ``matches.progress``: nothing of the deals is stored before the match ends."""
    match = _match_or_404(match_id)
    context = _live_context(match)
    response = render(request, "web/_match_live.html", context)
    if context["over"] and request.headers.get("HX-Request"):
        response["HX-Refresh"] = "true"
    return response


def match_replay_json(request: HttpRequest, match_id: int) -> HttpResponse:
    """The replay as a file to save: the API's document (the same selector), as an attachment."""
    match = _match_or_404(match_id)
    seat = _seat_param(request, match.seats.count())
    try:
        document = match_replay_document(match=match, seat=seat)
    except ApplicationError as error:
        raise Http404(error.message) from None
    response = JsonResponse(document, json_dumps_params={"separators": (",", ":")})
    suffix = "" if seat is None else f"-seat{seat}"
    response["Content-Disposition"] = f'attachment; filename="match-{match.pk}{suffix}.json"'
    return response


def rules(request: HttpRequest, game: str) -> HttpResponse:
    info = game_info(game)
    document = documents.load(documents.DOCS / "rules" / info.key, get_language() or "en")
    return render(request, "web/document.html", {"document": document, "game": info})


def doc_page(request: HttpRequest, name: str) -> HttpResponse:
    if name not in documents.DOC_PAGES:
        raise Http404(_("There is no such page."))
    document = documents.load(documents.DOCS / name, get_language() or "en")
    return render(request, "web/document.html", {"document": document})


@require_http_methods(["GET"])
def language_switch(request: HttpRequest) -> HttpResponse:
    """Remember the chosen language in its cookie and go back to ``next``. A plain GET form, so
    pages carry no per-visitor CSRF token and can be cached for anonymous visitors
    (``arena.pagecache``); a forged request can only change someone's language."""
    target = request.GET.get("next", "/")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = "/"
    response = redirect(target)
    language = request.GET.get("language", "")
    if language in dict(settings.LANGUAGES):
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME, language,
            max_age=settings.LANGUAGE_COOKIE_AGE, path=settings.LANGUAGE_COOKIE_PATH,
            secure=settings.LANGUAGE_COOKIE_SECURE, httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )  # fmt: skip
    return response


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and _too_many(request, "signup", settings.ARENA_SIGNUPS_PER_HOUR):
        form.add_error(None, _("Too many sign-ups from your address; try again later."))
        return render(request, "registration/signup.html", {"form": form}, status=429)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        messages.success(request, _("Welcome! Upload your first bot."))
        return redirect(reverse("bot_new"))
    status = 400 if request.method == "POST" else 200
    return render(request, "registration/signup.html", {"form": form}, status=status)


@never_cache  # the page that shows a new secret must not be stored by any cache
@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    """The user's API tokens; a new one's secret is shown on this one answer and never again."""
    user: User = request.user  # type: ignore[assignment]
    form = TokenForm(request.POST or None)
    context: dict[str, Any] = {}
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                context["created"], context["secret"] = token_create(
                    user=user, name=form.cleaned_data["name"]
                )
            except ApplicationError as error:
                form.add_service_error(error)
            else:
                form, status = TokenForm(), 201
    context.update(form=form, tokens=list(tokens_live(user=user)))
    return render(request, "web/tokens.html", context, status=status)


@login_required
@require_POST
def token_revoke_view(request: HttpRequest, token_id: int) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    token = tokens_live(user=user).filter(pk=token_id).first()
    if token is None:  # someone else's, expired or already revoked
        raise Http404(_("You have no token with that number."))
    token_revoke(token=token)
    messages.success(request, _("The token “%(name)s” is revoked.") % {"name": token.name})
    return redirect("tokens")


def _too_many(request: HttpRequest, scope: str, per_hour: int) -> bool:
    """Count this request against the hourly limit of its user (or, signed out, its address)."""
    key = str(request.user.pk) if request.user.is_authenticated else client_address(request)
    return over_limit(scope=scope, key=key, per_hour=per_hour)


class LoginView(auth_views.LoginView):
    """Django's log-in page, with at most ``ARENA_LOGINS_PER_HOUR`` attempts per address and
    ``ARENA_LOGINS_PER_NAME_PER_HOUR`` failed ones per user name."""

    next_page = "home"

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        username = str(request.POST.get("username", ""))
        if _too_many(request, "login", settings.ARENA_LOGINS_PER_HOUR) or login_refused(
            username=username
        ):
            form = self.get_form()
            form.add_error(None, _("Too many log-in attempts; try again later."))
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        login_failed(username=str(form.data.get("username", "")))
        return super().form_invalid(form)
