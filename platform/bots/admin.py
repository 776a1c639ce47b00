from django.contrib import admin

from bots.models import Bot, BotVersion


class VersionInline(admin.TabularInline[BotVersion, Bot]):
    model = BotVersion
    fields = ("number", "status", "runtime", "size", "fault", "reason", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin[Bot]):
    list_display = ["name", "owner", "game", "current_version", "created_at"]
    list_filter = ["game"]
    search_fields = ["name", "owner__username"]
    readonly_fields = ["current_version", "created_at"]
    inlines = [VersionInline]


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin[BotVersion]):
    """Versions are immutable uploads: shown, never edited here (the bytes are not shown)."""

    list_display = ["__str__", "status", "runtime", "size", "fault", "created_at"]
    list_filter = ["status", "bot__game"]
    search_fields = ["bot__name", "bot__owner__username", "package__sha256"]
    exclude = ["package"]
    readonly_fields = [
        "bot", "number", "sha256", "filename", "runtime", "entry", "size", "status", "reason",
        "fault", "log", "attempts", "deadline", "created_at", "validated_at",
    ]  # fmt: skip

    def has_add_permission(self, request: object) -> bool:
        return False
