from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ops.selectors import health_get


class HealthView(APIView):
    """``GET /api/health/``: 200 with the database vendor and execution mode."""

    authentication_classes = []
    permission_classes = [AllowAny]

    def get(self, request: Request) -> Response:
        return Response(health_get())
