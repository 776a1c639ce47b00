"""Round-robin tournaments: anyone reads them; any signed-in user creates an unrated one
(within quotas), staff official ones."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from api.serializers import (
    CreatedSerializer,
    TournamentCreateSerializer,
    TournamentDetailSerializer,
    TournamentSerializer,
)
from api.views.common import errors, user_of
from tournaments.models import Tournament
from tournaments.selectors import tournament_progress, tournament_table
from tournaments.services import tournament_create


class TournamentListView(generics.ListAPIView[Tournament]):
    permission_classes = [IsAuthenticatedOrReadOnly]
    serializer_class = TournamentSerializer
    queryset = Tournament.objects.select_related("created_by").order_by("-id")

    @extend_schema(
        request=TournamentCreateSerializer,
        responses={201: CreatedSerializer, **errors(400, 401, 403, 429)},
        summary="Create a round robin (unrated unless staff make it official); its matches "
        "are scheduled by a task within seconds",
    )
    def post(self, request: Request) -> Response:
        given = TournamentCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        user = user_of(request)
        if data["official"] and not user.is_staff:
            raise PermissionDenied("only staff can make a tournament official (rated)")
        tournament = tournament_create(
            created_by=user, name=data["name"], game=data["game"],
            bot_ids=data["bots"], params=data["params"], rounds=data["rounds"],
            duplicate=data["duplicate"], official=data["official"],
        )  # fmt: skip
        return Response({"id": tournament.pk}, status=status.HTTP_201_CREATED)


class TournamentDetailView(generics.RetrieveAPIView[Tournament]):
    permission_classes = [IsAuthenticatedOrReadOnly]
    serializer_class = TournamentDetailSerializer

    def get_queryset(self) -> QuerySet[Tournament]:
        return Tournament.objects.select_related("created_by")

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        tournament = self.get_object()
        table = tournament_table(tournament=tournament)
        standings, cross = table.standings, table.cross
        tournament.progress = tournament_progress(tournament=tournament)  # type: ignore[attr-defined]
        tournament.standings = [  # type: ignore[attr-defined]
            {**vars(s), "rank": rank, "average_place": s.average_place}
            for rank, s in enumerate(standings, start=1)
        ]
        tournament.cross_table = {  # type: ignore[attr-defined]
            "bots": cross.bots,
            "points": [[cross.points.get((a, b)) for b in cross.bots] for a in cross.bots],
            "meetings": [[cross.meetings.get((a, b), 0) for b in cross.bots] for a in cross.bots],
        }
        return Response(TournamentDetailSerializer(tournament).data)
