"""Matches with their seats, their replays (whole or as one seat knew it) and challenges."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.pagination import NewestFirst
from api.serializers import (
    ChallengeCreateSerializer,
    MatchFilterSerializer,
    MatchSerializer,
    ReplayQuerySerializer,
)
from api.views.common import errors, user_of
from matches.challenges import challenge_create
from matches.models import Match
from matches.selectors import match_replay_document, match_with_seats, matches_filtered


class MatchListView(generics.ListAPIView[Match]):
    permission_classes = [AllowAny]
    serializer_class = MatchSerializer
    pagination_class = NewestFirst

    def get_queryset(self) -> QuerySet[Match]:
        given = MatchFilterSerializer(data=self.request.query_params)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        return matches_filtered(
            tournament_id=data.get("tournament"), bot_id=data.get("bot"), status=data.get("status")
        )

    @extend_schema(parameters=[MatchFilterSerializer], summary="Matches, newest first")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class MatchDetailView(generics.RetrieveAPIView[Match]):
    permission_classes = [AllowAny]
    serializer_class = MatchSerializer
    queryset = matches_filtered()


class MatchReplayView(APIView):
    """Replays of finished matches are public (spectators watch every match)."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[ReplayQuerySerializer],
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="docs/replay-format.md"),
            **errors(400, 404, 409),
        },
        summary="The replay of a finished match, whole or as one seat knew it",
    )
    def get(self, request: Request, pk: int) -> Response:
        given = ReplayQuerySerializer(data=request.query_params)
        given.is_valid(raise_exception=True)
        match = get_object_or_404(Match, pk=pk)
        return Response(match_replay_document(match=match, seat=given.validated_data.get("seat")))


class ChallengeCreateView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=ChallengeCreateSerializer,
        responses={201: MatchSerializer, **errors(400, 401, 429)},
        summary="An unranked match of your bot against others (rate-limited per user)",
    )
    def post(self, request: Request) -> Response:
        given = ChallengeCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        match = challenge_create(
            user=user_of(request), bot_id=data["bot"], opponent_ids=data["opponents"],
            duplicate=data["duplicate"], params=data["params"],
        )  # fmt: skip
        body = MatchSerializer(match_with_seats(match_id=match.pk)).data
        return Response(body, status=status.HTTP_201_CREATED)
