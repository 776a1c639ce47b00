"""The bot runtimes with their exact versions and libraries (docs/runtimes.md)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from api.serializers import RuntimeSerializer
from sandbox.catalog import describe


class RuntimeListView(generics.GenericAPIView[Any]):
    permission_classes = [AllowAny]
    serializer_class = RuntimeSerializer

    @extend_schema(responses=RuntimeSerializer(many=True),
                   summary="Bot runtimes with their exact versions and libraries")  # fmt: skip
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(list(describe()))
        return self.get_paginated_response(RuntimeSerializer(page, many=True).data)
