"""Small helpers every API view uses."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.utils import OpenApiResponse
from rest_framework.request import Request

from api.serializers import ErrorSerializer


def user_of(request: Request) -> User:
    """The authenticated user (views that call this require authentication)."""
    user = request.user
    assert isinstance(user, User)
    return user


def errors(*statuses: int) -> dict[int, Any]:
    """Schema entries for error responses, all in the one envelope."""
    return {s: OpenApiResponse(ErrorSerializer, description="see docs/api.md") for s in statuses}
