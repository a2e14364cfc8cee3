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


class UsageHour(models.Model):
    """Resource-time used in one hour by finished allocations of one (queue, user, group), one
    resource type: the accounting's rollup, folded from the history (``usage.rollups``)."""

    partition = models.CharField(max_length=64)
    hour = models.DateTimeField()
    queue_path = models.CharField(max_length=1024)
    user = models.CharField(max_length=255)
    group = models.CharField(max_length=255, blank=True, default="")
    resource_type = models.CharField(max_length=255)
    # Base units times seconds (byte-seconds of memory, millicore-seconds...): a float, as a
    # month of a large site's byte-seconds overflows 64 bits.
    amount = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["partition", "hour", "queue_path", "user", "group", "resource_type"],
                name="usage_hour_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.partition}/{self.hour:%Y-%m-%d %H}/{self.queue_path}/{self.user}"


class AdmissionHour(models.Model):
    """Allocations admitted in one hour for one application of one (queue, user, group): what
    the accounting counts allocations and applications from."""

    partition = models.CharField(max_length=64)
    hour = models.DateTimeField()
    queue_path = models.CharField(max_length=1024)
    user = models.CharField(max_length=255)
    group = models.CharField(max_length=255, blank=True, default="")
    application_id = models.CharField(max_length=255)
    allocations = models.BigIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["partition", "hour", "queue_path", "user", "group", "application_id"],
                name="admission_hour_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.partition}/{self.hour:%Y-%m-%d %H}/{self.application_id}"


class HistoryFold(models.Model):
    """How far a partition's history has been folded into the rollups: on SQLite the last
    history id folded; on PostgreSQL the transaction id below which every event is folded."""

    partition = models.CharField(max_length=64, primary_key=True)
    position = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.partition}@{self.position}"
