"""Bots and their versions: public to read; only the owner uploads; logs for owner and staff."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from api.serializers import (
    BotCreatedSerializer,
    BotCreateSerializer,
    BotDetailSerializer,
    BotFilterSerializer,
    BotSerializer,
    VersionBriefSerializer,
    VersionCreateSerializer,
    VersionLogSerializer,
)
from api.uploads import CappedMultiPartParser
from api.views.common import errors, user_of
from arena.errors import ApplicationError
from arena.security import over_limit
from bots.models import Bot, BotVersion
from bots.selectors import bots_filtered, botversion_recent_match_logs
from bots.services import bot_create_with_version, botversion_create


class BotListView(generics.ListAPIView[Bot]):
    permission_classes = [IsAuthenticatedOrReadOnly]
    parser_classes = [CappedMultiPartParser]
    serializer_class = BotSerializer

    def get_queryset(self) -> QuerySet[Bot]:
        given = BotFilterSerializer(data=self.request.query_params)
        given.is_valid(raise_exception=True)
        owner = given.validated_data.get("owner")
        if given.validated_data.get("mine"):
            owner = user_of(self.request).username if self.request.user.is_authenticated else ""
        return bots_filtered(game=given.validated_data.get("game"), owner=owner)

    @extend_schema(parameters=[BotFilterSerializer], summary="Bots, oldest first")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        request={"multipart/form-data": BotCreateSerializer},
        responses={201: BotCreatedSerializer, **errors(400, 401, 409, 413, 429)},
        summary="Create a bot with its first version",
    )
    def post(self, request: Request) -> Response:
        _check_upload_rate(request)
        given = BotCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        upload = given.validated_data["file"]
        version = bot_create_with_version(
            owner=user_of(request), name=given.validated_data["name"],
            game=given.validated_data["game"], chunks=upload.chunks(), filename=upload.name,
        )  # fmt: skip
        body = BotCreatedSerializer(version.bot, context={"version": version}).data
        return Response(body, status=status.HTTP_201_CREATED)


def _check_upload_rate(request: Request) -> None:
    per_hour = settings.ARENA_UPLOADS_PER_HOUR
    if over_limit(scope="upload", key=str(user_of(request).pk), per_hour=per_hour):
        raise ApplicationError(f"at most {per_hour} uploads an hour; try again later",
                               code="rate_limited")  # fmt: skip


class BotDetailView(generics.RetrieveAPIView[Bot]):
    permission_classes = [IsAuthenticatedOrReadOnly]
    serializer_class = BotDetailSerializer
    queryset = Bot.objects.select_related("owner", "current_version").prefetch_related(
        "ratings", "versions"
    )


class VersionCreateView(generics.GenericAPIView[Bot]):
    permission_classes = [IsAuthenticated]
    parser_classes = [CappedMultiPartParser]
    serializer_class = VersionCreateSerializer
    queryset = Bot.objects.all()

    @extend_schema(
        request={"multipart/form-data": VersionCreateSerializer},
        responses={201: VersionBriefSerializer, **errors(400, 401, 403, 404, 409, 413, 429)},
        summary="Upload a new version of your bot",
    )
    def post(self, request: Request, pk: int) -> Response:
        bot = self.get_object()
        if bot.owner_id != user_of(request).pk:
            raise PermissionDenied("only the bot's owner uploads its versions")
        _check_upload_rate(request)
        given = VersionCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        upload = given.validated_data["file"]
        version = botversion_create(bot=bot, chunks=upload.chunks(), filename=upload.name)
        return Response(VersionBriefSerializer(version).data, status=status.HTTP_201_CREATED)


class VersionLogView(generics.GenericAPIView[BotVersion]):
    """The version's validation verdict and stderr, and the stderr of its latest matches:
    its owner's and staff's only (anyone else gets a 404, as if it did not exist)."""

    permission_classes = [IsAuthenticated]
    serializer_class = VersionLogSerializer

    @extend_schema(
        parameters=[OpenApiParameter("vid", int, OpenApiParameter.PATH)],
        responses={200: VersionLogSerializer, **errors(401, 404)},
        summary="A version's private logs",
    )
    def get(self, request: Request, pk: int, vid: int) -> Response:
        version = get_object_or_404(BotVersion.objects.select_related("bot"), pk=vid, bot_id=pk)
        user = user_of(request)
        if version.bot.owner_id != user.pk and not user.is_staff:
            raise NotFound()
        version.matches = list(botversion_recent_match_logs(version=version))  # type: ignore[attr-defined]
        return Response(VersionLogSerializer(version).data)
