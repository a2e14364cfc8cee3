"""What the live views keep over time: usage samples for trends, and who sits above a limit."""

from __future__ import annotations

from django.db import models

KIND_CHOICES = [("user", "user"), ("group", "group"), ("queue", "queue")]


class UsageSample(models.Model):
    """Usage of one user, group or queue at one moment (the root of a user's or group's tree,
    a queue's own total). Kept for ``QUOTAWEB_TREND_DAYS``."""

    partition = models.CharField(max_length=64)
    kind = models.CharField(max_length=8, choices=KIND_CHOICES)
    name = models.CharField(max_length=1024)
    at = models.DateTimeField()
    resource = models.JSONField(help_text="{type: integer} in base units")
    running_applications = models.PositiveIntegerField(default=0)
    # The partition's live allocations (YuniKorn's containers), on its root queue's sample only.
    allocations = models.PositiveIntegerField(
        default=0, help_text="live allocations of the partition (root queue samples only)"
    )

    class Meta:
        indexes = [
            models.Index(fields=["partition", "kind", "name", "at"], name="sample_series"),
            models.Index(fields=["at"], name="sample_age"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.name} at {self.at:%Y-%m-%d %H:%M}"


class OverLimit(models.Model):
    """A user or group above a limit at a queue (usually after a limit was tightened), since when
    it was first seen there, and by how much when last seen."""

    partition = models.CharField(max_length=64)
    kind = models.CharField(max_length=8, choices=KIND_CHOICES)
    name = models.CharField(max_length=255)
    queue_path = models.CharField(max_length=1024)
    since = models.DateTimeField()
    seen = models.DateTimeField()
    usage = models.JSONField()
    limit = models.JSONField(null=True, blank=True)
    running_applications = models.PositiveIntegerField(default=0)
    max_applications = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["partition", "kind", "name", "queue_path"], name="over_limit_unique"
            ),
        ]
        ordering = ["since"]

    def __str__(self) -> str:
        return f"{self.kind} {self.name} over at {self.queue_path} since {self.since}"
