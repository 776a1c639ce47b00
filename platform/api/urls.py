"""The public API under ``/api/`` (docs/api.md)."""

from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_view
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from api.views import auth, bots, games, ladders, matches, runtimes, tournaments
from ops.views import LiveView, ReadyView

# the health checks are the ops app's; their schema entries are described here, with the API's
live = extend_schema_view(
    get=extend_schema(summary="Liveness: the process answers", responses={200: OpenApiTypes.OBJECT})
)(LiveView)
ready = extend_schema_view(
    get=extend_schema(
        summary="Readiness: the database, the broker and the cache",
        description="200 with status ok, or degraded while the cache or the broker is away (the "
        "site still serves); 503 with status failed while the database is. engine.build says "
        "which build of the game engine the process runs: compiled (by mypyc) or python.",
        responses={200: OpenApiTypes.OBJECT, 503: OpenApiTypes.OBJECT},
    )
)(ReadyView)

urlpatterns = [
    path("health/", ready.as_view(), name="api-health"),  # readiness, as before the split
    path("health/live/", live.as_view(), name="api-health-live"),
    path("health/ready/", ready.as_view(), name="api-health-ready"),
    path("auth/token/", auth.TokenObtainView.as_view(), name="api-token"),
    path("auth/tokens/", auth.TokenListView.as_view(), name="api-tokens"),
    path("auth/tokens/<int:pk>/", auth.TokenDetailView.as_view(), name="api-token-detail"),
    path("games/", games.GameListView.as_view(), name="api-games"),
    path("runtimes/", runtimes.RuntimeListView.as_view(), name="api-runtimes"),
    path("bots/", bots.BotListView.as_view(), name="api-bots"),
    path("bots/<int:pk>/", bots.BotDetailView.as_view(), name="api-bot"),
    path("bots/<int:pk>/versions/", bots.VersionCreateView.as_view(), name="api-versions"),
    path(
        "bots/<int:pk>/versions/<int:vid>/log/",
        bots.VersionLogView.as_view(),
        name="api-version-log",
    ),  # fmt: skip
    path("tournaments/", tournaments.TournamentListView.as_view(), name="api-tournaments"),
    path(
        "tournaments/<int:pk>/", tournaments.TournamentDetailView.as_view(), name="api-tournament"
    ),  # fmt: skip
    path("matches/", matches.MatchListView.as_view(), name="api-matches"),
    path("matches/<int:pk>/", matches.MatchDetailView.as_view(), name="api-match"),
    path("matches/<int:pk>/replay/", matches.MatchReplayView.as_view(), name="api-replay"),
    path("challenges/", matches.ChallengeCreateView.as_view(), name="api-challenges"),
    path("ladders/<str:game>/", ladders.LadderView.as_view(), name="api-ladder"),
    path(
        "ladders/<str:game>/history/",
        ladders.LadderHistoryView.as_view(),
        name="api-ladder-history",
    ),  # fmt: skip
    path(
        "ladders/<str:game>/strengths/",
        ladders.LadderStrengthView.as_view(),
        name="api-ladder-strengths",
    ),  # fmt: skip
    path("ladders/<str:game>/fairness/", ladders.SeatFairnessView.as_view(), name="api-fairness"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # the split view serves its start-up script as a file: the CSP allows no inline script
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
]
