"""API tokens: knox keeps the hashed secret, expiry and user; this table gives each token a name
and a stable integer id to list and revoke it by (the knox row's key is its digest)."""

from __future__ import annotations

from django.db import models
from knox.models import AuthToken


class ApiToken(models.Model):
    token = models.OneToOneField(AuthToken, on_delete=models.CASCADE, related_name="api_token")
    name = models.CharField(max_length=64)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.token.user}: {self.name}"
