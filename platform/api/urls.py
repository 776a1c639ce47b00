"""The public REST API under ``/api/`` (docs/api.md)."""

from django.urls import path

from ops.views import HealthView

urlpatterns = [
    path("health/", HealthView.as_view(), name="api-health"),
]
