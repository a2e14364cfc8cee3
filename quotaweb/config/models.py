"""The quota configuration in the database: immutable versions, the active pointer, editable rows.

Decision: the editable rows (``Partition``, ``Queue``, ``LimitEntry``) always hold exactly the
ACTIVE version. There are no half-edited rows: a change builds a candidate document from the rows
plus the edit, validates it with ``trackers``, and only an accepted candidate rewrites the rows, in
the same transaction that stores its ``ConfigVersion`` and moves ``ActiveConfig`` by
compare-and-set. A draft of several edits (``Draft``) is a list of edit records replayed on the
active version, never written into these rows, so a reader of the rows always sees a valid,
applied configuration.

The rows keep what the normalised ``trackers`` model keeps (root inserted, names lower-cased,
quantities as written), so rows -> document -> model gives back the active model exactly. JSON
maps may come back with their keys in another order (PostgreSQL's jsonb sorts them); the order of
resource types or properties means nothing, and a version's YAML is kept as written anyway.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower


class ConfigVersion(models.Model):
    """One accepted configuration document, never changed after it is written."""

    number = models.PositiveIntegerField(unique=True)
    yaml = models.TextField()
    checksum = models.CharField(max_length=64, help_text="sha256 of the YAML text, hex")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="config_versions",
    )
    created = models.DateTimeField(auto_now_add=True)
    comment = models.TextField(blank=True, default="")
    based_on = models.ForeignKey(
        "self", to_field="number", null=True, blank=True, on_delete=models.PROTECT,
        related_name="+", db_column="based_on_number",
    )

    class Meta:
        ordering = ["-number"]

    def __str__(self) -> str:
        return f"version {self.number}"


class ActiveConfig(models.Model):
    """The one row naming the active version; it moves only by compare-and-set (services)."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    version = models.ForeignKey(
        ConfigVersion, to_field="number", null=True, on_delete=models.PROTECT,
        related_name="+", db_column="version_number",
    )

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(id=1), name="active_config_singleton")]

    def __str__(self) -> str:
        return f"active {self.version_id}"


class Partition(models.Model):
    name = models.CharField(max_length=255, unique=True)
    order = models.PositiveIntegerField()
    # Partition keys other than queues and limits (placementrules, preemption, nodesortpolicy,
    # usergroupresolver), in the document's own spelling: no form edits them yet.
    settings = models.JSONField(default=dict, blank=True)
    # The partition-level limits as written; the root queue's LimitEntry rows are what applies.
    limits = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["order"]

    def __str__(self) -> str:
        return self.name


class Queue(models.Model):
    partition = models.ForeignKey(Partition, on_delete=models.CASCADE, related_name="queues")
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )
    name = models.CharField(max_length=64)
    # The full dotted path, kept for lookups by path (``root.eng.ml``); derived from the tree.
    path = models.CharField(max_length=1024)
    order = models.PositiveIntegerField(help_text="position among its siblings")
    # ``resources:`` written at all (even empty): kept so a dump reads like the source.
    has_resources = models.BooleanField(default=False)
    guaranteed = models.JSONField(default=dict, blank=True, help_text="quantity text as written")
    max = models.JSONField(default=dict, blank=True, help_text="quantity text as written")
    max_applications = models.PositiveBigIntegerField(default=0)
    properties = models.JSONField(default=dict, blank=True)
    # None (not written) and "" (written empty) differ in the document, hence null on text.
    admin_acl = models.CharField(max_length=4096, null=True, blank=True)  # noqa: DJ001
    submit_acl = models.CharField(max_length=4096, null=True, blank=True)  # noqa: DJ001
    # The ``parent:`` flag as written (None when absent).
    is_parent = models.BooleanField(null=True, blank=True)
    child_template = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["partition__order", "path"]
        constraints = [
            models.UniqueConstraint(
                "partition", "parent", Lower("name"), name="queue_unique_sibling_name"
            ),
            models.UniqueConstraint(
                fields=["partition"], condition=Q(parent__isnull=True), name="queue_one_root"
            ),
            models.UniqueConstraint(fields=["partition", "path"], name="queue_unique_path"),
            models.UniqueConstraint(fields=["parent", "order"], name="queue_unique_sibling_order"),
        ]

    def __str__(self) -> str:
        return self.path


class LimitEntry(models.Model):
    queue = models.ForeignKey(Queue, on_delete=models.CASCADE, related_name="limit_entries")
    order = models.PositiveIntegerField()
    # None: no ``limit:`` key; "" is a written, empty description.
    description = models.TextField(null=True, blank=True)  # noqa: DJ001
    users = models.JSONField(default=list, blank=True)
    groups = models.JSONField(default=list, blank=True)
    max_resources = models.JSONField(default=dict, blank=True, help_text="quantity text as written")
    max_applications = models.PositiveBigIntegerField(default=0)

    class Meta:
        ordering = ["queue", "order"]
        constraints = [
            models.UniqueConstraint(fields=["queue", "order"], name="limit_unique_order"),
        ]

    def __str__(self) -> str:
        return f"{self.queue.path} limit {self.order}"


class Draft(models.Model):
    """An admin's staged edits, applied together as one version (or discarded).

    ``edits`` are records that ``quotaweb.config.edits.edit_from_record`` turns back into edits;
    each was validated with all the records before it when it was staged. ``base_version`` is the
    active version when the first edit was staged: applying compares-and-sets against it, so a
    version applied by someone else meanwhile is a conflict, not silently overwritten.
    """

    author = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="config_draft"
    )
    base_version = models.PositiveIntegerField(null=True, blank=True)
    edits = models.JSONField(default=list)
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"draft of {self.author_id}: {len(self.edits)} edit(s) on {self.base_version}"
