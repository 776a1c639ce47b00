from django.contrib import admin

from ops.models import Heartbeat


@admin.register(Heartbeat)
class HeartbeatAdmin(admin.ModelAdmin[Heartbeat]):
    list_display = ["id", "created_at", "answered_at", "answered_by"]
    readonly_fields = ["created_at", "answered_at", "answered_by"]
