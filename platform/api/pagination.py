"""Every list is paginated: limit/offset by default, a cursor for the append-heavy match feed."""

from __future__ import annotations

from rest_framework.pagination import CursorPagination, LimitOffsetPagination


class LimitOffset(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200


class NewestFirst(CursorPagination):
    """Stable under inserts: a page never repeats or skips a match created meanwhile."""

    ordering = "-id"
    page_size = 50
    page_size_query_param = "limit"
    max_page_size = 200
