"""Writes for API tokens: issue a named token, revoke one.

knox stores only a hash of each token; the secret is shown once, when it is made.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from knox.models import AuthToken

from api.models import ApiToken
from arena.errors import ApplicationError

MAX_TOKENS_PER_USER = 50


def token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """A new token for ``user`` called ``name``; the token row and the secret (shown once)."""
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()  # one count at a time
        if ApiToken.objects.filter(token__user=user).count() >= MAX_TOKENS_PER_USER:
            raise ApplicationError(
                f"you hold {MAX_TOKENS_PER_USER} tokens already; revoke some first",
                code="too_many_tokens",
            )
        knox_token, secret = AuthToken.objects.create(user=user)
        return ApiToken.objects.create(token=knox_token, name=name), secret


def token_revoke(*, token: ApiToken) -> None:
    """Revoke ``token``: its knox row goes, and the name with it."""
    token.token.delete()
