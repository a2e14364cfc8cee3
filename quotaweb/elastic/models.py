"""What elastic quota keeps per partition, so a restart (even ``kill -9``) computes the same
runtimes: the switch, the cluster total, and each leaf queue's pending demand. Usage is not here:
the engine rebuilds it from the allocation ledger."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ElasticSettings(models.Model):
    partition = models.CharField(max_length=64, unique=True)
    enabled = models.BooleanField(
        default=False, help_text="whether allocations must fit the leaf queue's runtime"
    )
    cluster_total = models.JSONField(
        default=dict, help_text="{type: integer} in base units: what the partition shares"
    )
    updated = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )

    def __str__(self) -> str:
        return f"elastic quota of {self.partition}"


class ElasticDemand(models.Model):
    partition = models.CharField(max_length=64)
    queue_path = models.CharField(max_length=1024)
    resource = models.JSONField(help_text="{type: integer} in base units: pending, not running")
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["partition", "queue_path"], name="elastic_demand_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.partition}/{self.queue_path}"
