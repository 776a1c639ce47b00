from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from matches.models import Match, MatchSeat, WorkerHeartbeat
from matches.services import match_requeue


class SeatInline(admin.TabularInline[MatchSeat, Match]):
    model = MatchSeat
    fields = ("seat", "partnership", "bot_version", "score", "place", "fault", "fault_message")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin[Match]):
    list_display = ["id", "game", "origin", "status", "attempts", "worker", "queued_at",
                    "finished_at"]  # fmt: skip
    list_filter = ["status", "origin", "game"]
    search_fields = ["id", "seats__bot__name"]
    readonly_fields = [
        "game", "params", "seed", "duplicate", "origin", "tournament", "round", "ladder",
        "status", "attempts", "run_token", "deadline", "worker", "error", "queued_at",
        "started_at", "finished_at", "rated_at", "rating_seq",
    ]  # fmt: skip
    inlines = [SeatInline]
    actions = ["requeue"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Re-queue selected matches that ended in error or were cancelled")
    def requeue(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        done = sum(match_requeue(match_id=pk) for pk in queryset.values_list("pk", flat=True))
        skipped = queryset.count() - done
        self.message_user(request, f"{done} match(es) re-queued", messages.SUCCESS)
        if skipped:
            self.message_user(
                request, f"{skipped} skipped: only errored or cancelled matches can be re-queued",
                messages.WARNING,
            )  # fmt: skip


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin[WorkerHeartbeat]):
    """The workers that beat lately (the reaper forgets one a day after it went silent, or as
    soon as it dealt with it as lost); read-only."""

    list_display = ["name", "match_slots", "started_at", "beat_at"]
    ordering = ["-beat_at"]
    readonly_fields = ["name", "match_slots", "started_at", "beat_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
