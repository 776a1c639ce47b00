from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ops.selectors import health_live, health_ready


class LiveView(APIView):
    """``GET /api/health/live/``: 200 while the process answers; asks nothing else (a restart
    cures nothing that a dependency's outage causes)."""

    authentication_classes = []
    permission_classes = [AllowAny]

    def get(self, request: Request) -> Response:
        return Response(health_live())


class ReadyView(APIView):
    """``GET /api/health/ready/`` (and ``/api/health/``): the database, the broker and the
    cache, each ok or failed with a reason; 200 while the database answers (``status`` ok, or
    degraded when the cache or the broker is away: the site still serves), else 503."""

    authentication_classes = []
    permission_classes = [AllowAny]

    def get(self, request: Request) -> Response:
        readiness = health_ready()
        return Response(readiness, status=503 if readiness["status"] == "failed" else 200)
