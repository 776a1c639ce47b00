from django.db import models


class Heartbeat(models.Model):
    """One round trip through the task queue: created by the platform, answered by the
    ``arena.ops.ping`` task in whichever process executed it."""

    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    answered_by = models.CharField(max_length=255, blank=True, help_text="worker hostname")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"heartbeat {self.pk}"
