from django.contrib import admin

from ratings.models import Ladder, Rating


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin[Ladder]):
    list_display = ["game", "scheduling", "duplicate", "rated_count"]
    readonly_fields = ["game", "rated_count"]


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin[Rating]):
    """Ratings are derived from results (``manage.py recompute_ratings``): read only."""

    list_display = ["bot", "ladder", "rating", "games", "version", "version_games"]
    list_filter = ["ladder"]
    readonly_fields = ["ladder", "bot", "rating", "games", "version", "version_games"]

    def has_add_permission(self, request: object) -> bool:
        return False
