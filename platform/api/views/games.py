"""The games, their seats and every rule option."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from api.selectors import games_describe
from api.serializers import GameSerializer


class GameListView(generics.GenericAPIView[Any]):
    permission_classes = [AllowAny]
    serializer_class = GameSerializer

    @extend_schema(responses=GameSerializer(many=True),
                   summary="Games with their seats and every rule option")
    def get(self, request: Request) -> Response:
        games = [
            {**g, "rules_url": request.build_absolute_uri(reverse("rules", args=[g["name"]]))}
            for g in games_describe()
        ]
        page = self.paginate_queryset(games)
        return self.get_paginated_response(GameSerializer(page, many=True).data)
