"""Each game's Elo ladder and a bot's rating history on it."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

import engine
from api.serializers import (
    HistoryQuerySerializer,
    LadderRowSerializer,
    RatingChangeSerializer,
    SeatFairnessSerializer,
    StrengthSerializer,
)
from api.views.common import errors
from arena.errors import ApplicationError
from bots.models import Bot
from ratings.selectors import (
    ladder_standings,
    ladder_strengths_current,
    rating_history,
    seat_fairness_current,
)


def _game(game: str) -> str:
    if game not in engine.available_games():
        raise NotFound(f"no game {game!r} (one of {', '.join(engine.available_games())})")
    return game


class LadderView(generics.GenericAPIView[Any]):
    permission_classes = [AllowAny]
    serializer_class = LadderRowSerializer

    @extend_schema(responses={200: LadderRowSerializer(many=True), **errors(404)},
                   summary="A game's ladder, best first")  # fmt: skip
    def get(self, request: Request, game: str) -> Response:
        ratings = self.paginate_queryset(ladder_standings(game=_game(game)))
        assert ratings is not None and self.paginator is not None
        first = getattr(self.paginator, "offset", 0) + 1
        rows = [
            {"rank": rank, "bot": r.bot, "owner": r.bot.owner.username, "rating": r.rating,
             "games": r.games}
            for rank, r in enumerate(ratings, start=first)
        ]  # fmt: skip
        return self.get_paginated_response(LadderRowSerializer(rows, many=True).data)


class LadderHistoryView(generics.GenericAPIView[Any]):
    permission_classes = [AllowAny]
    serializer_class = RatingChangeSerializer

    @extend_schema(
        parameters=[HistoryQuerySerializer],
        responses={200: RatingChangeSerializer(many=True), **errors(400, 404)},
        summary="A bot's rating after each rated match, oldest first",
    )
    def get(self, request: Request, game: str) -> Response:
        given = HistoryQuerySerializer(data=request.query_params)
        given.is_valid(raise_exception=True)
        bot = get_object_or_404(Bot, pk=given.validated_data["bot"])
        if bot.game != _game(game):
            raise ApplicationError(f"{bot} plays {bot.game}, not {game}", code="wrong_game",
                                   field="bot")  # fmt: skip
        changes = self.paginate_queryset(rating_history(bot_id=bot.pk))
        return self.get_paginated_response(RatingChangeSerializer(changes, many=True).data)


class LadderStrengthView(generics.GenericAPIView[Any]):
    permission_classes = [AllowAny]
    serializer_class = StrengthSerializer

    @extend_schema(
        responses={200: StrengthSerializer(many=True), **errors(404)},
        summary="Strengths with 95 % intervals (docs/ranking.md), strongest first",
    )
    def get(self, request: Request, game: str) -> Response:
        rows = self.paginate_queryset(ladder_strengths_current(game=_game(game)))
        return self.get_paginated_response(StrengthSerializer(rows, many=True).data)


class SeatFairnessView(generics.GenericAPIView[Any]):
    permission_classes = [AllowAny]
    serializer_class = SeatFairnessSerializer
    pagination_class = None

    @extend_schema(
        responses={200: SeatFairnessSerializer, **errors(404)},
        summary="Results by seat and by position to the dealer, with 95 % intervals",
    )
    def get(self, request: Request, game: str) -> Response:
        return Response(SeatFairnessSerializer(seat_fairness_current(game=_game(game))).data)
