from django.contrib import admin

from tournaments.models import Tournament, TournamentEntry


class EntryInline(admin.TabularInline[TournamentEntry, Tournament]):
    model = TournamentEntry
    fields = ("index", "bot", "bot_version")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin[Tournament]):
    list_display = ["id", "name", "game", "status", "rounds", "duplicate", "created_by",
                    "created_at", "finished_at"]  # fmt: skip
    list_filter = ["status", "game"]
    readonly_fields = ["game", "params", "rounds", "duplicate", "seed", "status", "created_by",
                       "created_at", "finished_at"]  # fmt: skip
    inlines = [EntryInline]

    def has_add_permission(self, request: object) -> bool:
        return False  # created with its schedule by tournaments.services.tournament_create
