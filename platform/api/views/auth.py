"""Tokens: obtain one with a username and password, list yours, revoke one."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.models import ApiToken
from api.selectors import tokens_live
from api.serializers import TokenCreatedSerializer, TokenRequestSerializer, TokenSerializer
from api.services import token_create, token_revoke
from api.throttles import ScopedAddressThrottle
from api.views.common import errors, user_of
from arena.errors import ApplicationError
from arena.security import login_failed, login_refused


class TokenObtainView(APIView):
    authentication_classes = []  # the credentials are in the body (and no session CSRF applies)
    permission_classes = [AllowAny]
    throttle_classes = [ScopedAddressThrottle]
    throttle_scope = "login"

    @extend_schema(
        request=TokenRequestSerializer,
        responses={201: TokenCreatedSerializer, **errors(400, 429)},
        summary="Issue a named API token",
        auth=[],  # no security requirement: generated clients call it without a token
    )
    def post(self, request: Request) -> Response:
        given = TokenRequestSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        username = given.validated_data["username"]
        if login_refused(username=username):
            raise ApplicationError(
                f"too many failed log-ins as {username!r} this hour; try again later",
                code="rate_limited",
            )
        user = authenticate(
            request._request, username=username, password=given.validated_data["password"]
        )
        if user is None:
            login_failed(username=username)
            raise ApplicationError("wrong username or password", code="invalid_credentials")
        token, secret = token_create(user=user, name=given.validated_data["name"])
        body = {**TokenSerializer(token).data, "token": secret}
        return Response(body, status=status.HTTP_201_CREATED)


class TokenListView(generics.ListAPIView[ApiToken]):
    serializer_class = TokenSerializer

    def get_queryset(self) -> QuerySet[ApiToken]:
        return tokens_live(user=user_of(self.request))


class TokenDetailView(generics.DestroyAPIView[ApiToken]):
    """Revoke one of your tokens (another user's is a 404)."""

    serializer_class = TokenSerializer

    def get_queryset(self) -> QuerySet[ApiToken]:
        return tokens_live(user=user_of(self.request))

    def perform_destroy(self, instance: ApiToken) -> None:
        token_revoke(token=instance)
