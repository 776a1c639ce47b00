"""DRF throttles that know the client by :func:`arena.security.client_address` (DRF's own
``get_ident`` believes any ``X-Forwarded-For`` header, which a client chooses)."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle

from arena.security import client_address


class ScopedAddressThrottle(ScopedRateThrottle):
    def get_ident(self, request: Request) -> str:
        return client_address(request._request)
