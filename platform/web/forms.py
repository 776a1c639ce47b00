"""The pages' forms: they parse and check shapes; the services decide (``ApplicationError``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from arena.errors import ApplicationError
from bots.models import Bot
from sandbox import single_file_suffixes
from web.games import GAMES


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    """An account for a bot author: a name and a password twice (Django's checks)."""


class ServiceErrorMixin:
    """Show a refused request's message on the field it names (or on the whole form)."""

    def add_service_error(self, error: ApplicationError) -> None:
        form: Any = self
        form.add_error(error.field if error.field in form.fields else None, error.message)


class NewBotForm(ServiceErrorMixin, forms.Form):
    name = forms.CharField(label=_("Bot name"), max_length=64)
    game = forms.ChoiceField(label=_("Game"), choices=[(g.key, g.name) for g in GAMES])
    file = forms.FileField(label=_("Program"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["file"].help_text = gettext(
            "A single %(suffixes)s file, a static executable, or a .zip with a bot.toml "
            "(at most 8 MiB)."
        ) % {"suffixes": single_file_suffixes()}


class VersionForm(ServiceErrorMixin, forms.Form):
    file = forms.FileField(label=_("New version"))


class ChallengeForm(ServiceErrorMixin, forms.Form):
    opponents = forms.TypedMultipleChoiceField(
        label=_("Opponents"), coerce=int, widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args: Any, candidates: list[Bot], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field: Any = self.fields["opponents"]
        field.choices = [(b.pk, f"{b.owner.username}/{b.name}") for b in candidates]


class TournamentForm(ServiceErrorMixin, forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100)
    game = forms.ChoiceField(label=_("Game"), choices=[(g.key, g.name) for g in GAMES])
    bots = forms.TypedMultipleChoiceField(
        label=_("Bots"), coerce=int, widget=forms.CheckboxSelectMultiple,
        help_text=_("Every bot must play the chosen game and have a validated version."),
    )  # fmt: skip
    rounds = forms.IntegerField(label=_("Rounds"), min_value=1, initial=1)
    duplicate = forms.BooleanField(
        label=_("Duplicate deals (the same cards with the seats rotated)"), required=False,
        initial=True,
    )  # fmt: skip

    official = forms.BooleanField(
        label=_("Official: rated on the ladder if played under the ladder's rules"),
        required=False,
    )  # fmt: skip

    def __init__(
        self, *args: Any, candidates: list[Bot], staff: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        field: Any = self.fields["bots"]
        field.choices = [(b.pk, f"{b.owner.username}/{b.name} ({b.game})") for b in candidates]
        if not staff:  # only staff make tournaments count
            del self.fields["official"]


class TokenForm(ServiceErrorMixin, forms.Form):
    name = forms.CharField(
        label=_("Token name"), max_length=64,
        help_text=_("To tell your tokens apart, e.g. the machine or script that uses it."),
    )  # fmt: skip
