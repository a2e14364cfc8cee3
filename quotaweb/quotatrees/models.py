"""Quota trees as stored: each tree's versions (who and when), its mode, forests, and where
every allocated consumer sits. The trees in memory are rebuilt from these rows at start-up
exactly: each placement keeps its node and its ordering stamp, so the consumers at a node come
back in the same order (which decides who slides and who is preempted first)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

MODES = [("normal", "normal"), ("maintenance", "maintenance")]


class Tree(models.Model):
    name = models.CharField(max_length=64, unique=True)
    mode = models.CharField(max_length=16, choices=MODES, default="normal")
    version = models.PositiveIntegerField(help_text="the active version's number")
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.name


class TreeVersion(models.Model):
    """One accepted document of a tree; never changed. Kept after the tree is deleted."""

    tree = models.CharField(max_length=64)
    number = models.PositiveIntegerField()
    document = models.JSONField(help_text="the QuotaTree JSON document")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )
    created = models.DateTimeField(auto_now_add=True)
    comment = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tree", "number"], name="tree_version_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.tree} v{self.number}"


class Forest(models.Model):
    name = models.CharField(max_length=64, unique=True)
    trees = models.JSONField(default=list, help_text="tree names, in allocation order")
    mode = models.CharField(max_length=16, choices=MODES, default="normal")
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.name


class Placement(models.Model):
    """A consumer allocated in a tree: its aNode and ordering stamp, and what it asked for."""

    tree = models.CharField(max_length=64)
    consumer = models.CharField(max_length=255)
    node = models.CharField(max_length=255, help_text="the aNode: where it is allocated")
    stamp = models.BigIntegerField(help_text="its order among the consumers at that node")
    group = models.CharField(max_length=255, help_text="the gNode: the leaf it belongs to")
    request = models.JSONField(help_text="{resource: integer}")
    priority = models.IntegerField(default=0)
    type = models.IntegerField(default=0)
    unpreemptable = models.BooleanField(default=False)
    forest = models.CharField(max_length=64, blank=True, default="",
                              help_text="the forest it was allocated through, if any")
    reasons = models.JSONField(default=list, help_text="why it is where it is")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tree", "consumer"], name="placement_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.tree}/{self.consumer}@{self.node}"


class TreeEvent(models.Model):
    """What happened to a consumer, and why: allocated (where, after which steps), rejected,
    preempted (by whom, where, by which priority), released, undone, unplaced by an update."""

    at = models.DateTimeField(auto_now_add=True)
    consumer = models.CharField(max_length=255)
    kind = models.CharField(max_length=16)
    trees = models.JSONField(default=list)
    forest = models.CharField(max_length=64, blank=True, default="")
    nodes = models.JSONField(default=dict, help_text="{tree: aNode}")
    message = models.TextField(blank=True, default="")
    steps = models.JSONField(default=list)
    preemption = models.JSONField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["consumer", "at"], name="tree_event_consumer")]

    def __str__(self) -> str:
        return f"{self.kind} {self.consumer}"
