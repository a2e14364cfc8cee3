"""The ledger: every live allocation, stored before it is acknowledged, deleted when released.

On start-up the engines are rebuilt from the active configuration plus these rows, so usage
survives a crash: an allocation that was acknowledged is here, one that was released is not.
"""

from __future__ import annotations

from django.db import models


class Allocation(models.Model):
    partition = models.CharField(max_length=64)
    key = models.CharField(max_length=255, help_text="the scheduler's allocationKey")
    application_id = models.CharField(max_length=255)
    queue_path = models.CharField(max_length=1024)
    user = models.CharField(max_length=255)
    groups = models.JSONField(default=list)
    resource = models.JSONField(help_text="{type: integer} in base units")
    # Empty when the application counts against no group (group names are never empty).
    group = models.CharField(
        max_length=255, blank=True, default="",
        help_text="the group the application counts against",
    )
    created = models.DateTimeField()
    # YuniKorn's int32 allocation priority as the scheduler sent it (0 when it sent none):
    # shown in the YuniKorn reads, never used for admission. A default in the database too, so
    # that a row written without it (a peer still on the version before) is still stored.
    priority = models.IntegerField(default=0, db_default=0)
    # The node the scheduler placed the allocation on ("" when it named none): shown in the
    # YuniKorn reads only. A database default too, for a peer still on the version before.
    node_id = models.CharField(max_length=255, blank=True, default="", db_default="")
    # The lease epoch of the peer that stored it (0 where no lease is held: SQLite, tools): on
    # PostgreSQL the database refuses a row whose epoch is not its partition's current one
    # (the fence, ``quotaweb.leases``).
    epoch = models.BigIntegerField(default=0, db_default=0)
    # The configuration version the engine admitted it under (0 where not told: SQLite, tools):
    # on PostgreSQL the database refuses a row whose version is no longer the active one, so a
    # peer that has not yet switched to an applied version cannot store an admission judged by
    # the old limits (``quotaweb_version_fence``, docs/design.md "Applies are global").
    config_version = models.BigIntegerField(default=0, db_default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["partition", "key"], name="allocation_key_unique"),
        ]
        # No other index: every write pays for each one, and they made a 1,000-allocation
        # batch three times slower once the ledger held 80,000 rows. Releases find rows by key;
        # the engine owner knows an application's keys; only the admin's filtered listing of
        # live allocations scans the partition's rows.

    def __str__(self) -> str:
        return f"{self.partition}/{self.key}"


class Node(models.Model):
    """A node a scheduler reported for a partition (``PUT /api/v1/partitions/{p}/nodes``
    replaces the partition's set). quotaweb admits by quota, not by node: nodes only fill the
    YuniKorn reads (node lists, the partition's capacity, node utilisation)."""

    partition = models.CharField(max_length=64)
    node_id = models.CharField(max_length=255)
    host_name = models.CharField(max_length=255, blank=True, default="")
    rack_name = models.CharField(max_length=255, blank=True, default="")
    attributes = models.JSONField(default=dict, help_text="{name: text}")
    capacity = models.JSONField(help_text="{type: integer} in base units")
    occupied = models.JSONField(
        default=dict, help_text="{type: integer} in base units: in use on the node"
    )
    reported = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["partition", "node_id"], name="node_id_unique"),
        ]
        ordering = ["partition", "node_id"]

    def __str__(self) -> str:
        return f"{self.partition}/{self.node_id}"


class HistoryEvent(models.Model):
    """What happened to allocations, in order, kept ``QUOTAWEB_HISTORY_DAYS``: append-only.

    Admissions and releases are written by the database itself, by triggers on the ledger
    (allocations.0006), in the statement that inserts or deletes the ledger row: whatever path
    writes the ledger (a group of single allocations, a batch's COPY, the event loop's INSERT,
    the settling of writes in doubt, the demo's simulator), its history commits with it or not
    at all, so the history holds exactly what was acknowledged. A release carries the whole
    allocation and its start, so one row is a finished allocation. Denials are written by the
    engine owner in the background (``allocations.history``). The id gives the order within a
    partition (a partition's ledger writes are one at a time)."""

    KIND_ADMITTED = "admitted"
    KIND_RELEASED = "released"
    KIND_DENIED = "denied"

    partition = models.CharField(max_length=64)
    kind = models.CharField(max_length=8)
    at = models.DateTimeField()
    # A release's allocation's admission (the ledger row's ``created``); null otherwise.
    started = models.DateTimeField(null=True)
    key = models.CharField(max_length=255)
    application_id = models.CharField(max_length=255)
    queue_path = models.CharField(max_length=1024)
    user = models.CharField(max_length=255)
    groups = models.JSONField(default=list)
    group = models.CharField(max_length=255, blank=True, default="")
    resource = models.JSONField(help_text="{type: integer} in base units")
    # A denial's reason code (``trackers``); empty otherwise.
    reason = models.CharField(max_length=64, blank=True, default="")
    # PostgreSQL: the writing transaction's id, set by the triggers. Rows are folded into the
    # accounting rollups only once every transaction before them has ended (``usage.rollups``);
    # ids alone cannot say that, since concurrent transactions commit out of id order.
    tx = models.BigIntegerField(null=True)

    # No index beyond the id (and PostgreSQL's ``(partition, tx)``, made by the migration):
    # every ledger write pays for each. Pruning walks the ids from the oldest.

    def __str__(self) -> str:
        return f"{self.partition}/{self.kind}/{self.key}"
