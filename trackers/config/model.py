"""The immutable model of a configuration document.

Quantities are kept as the text the admin wrote (``"10Gi"``), so a dump reads like the source;
``trackers.resources.parse_resource_map`` turns them into base units. Mappings are read-only views.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

_V = TypeVar("_V")

# The one empty read-only map, shared by maps of text (quantities) and of numbers (weights).
EMPTY: Mapping[str, Any] = MappingProxyType({})


def _empty() -> Mapping[str, Any]:
    return EMPTY


def frozen_map(values: Mapping[str, _V] | None) -> Mapping[str, _V]:
    if not values:
        return EMPTY
    return MappingProxyType(dict(values))


@dataclass(frozen=True, slots=True)
class Limit:
    """One entry of a ``limits:`` list: the same caps for each listed user and each listed group."""

    description: str | None = None
    users: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    max_resources: Mapping[str, str] = field(default_factory=_empty)
    max_applications: int = 0


@dataclass(frozen=True, slots=True)
class Resources:
    """A queue's ``resources:`` block; kept even when empty, so a dump reads like the source."""

    guaranteed: Mapping[str, str] = field(default_factory=_empty)
    max: Mapping[str, str] = field(default_factory=_empty)


@dataclass(frozen=True, slots=True)
class ChildTemplate:
    max_applications: int = 0
    properties: Mapping[str, str] = field(default_factory=_empty)
    resources: Resources | None = None


@dataclass(frozen=True, slots=True)
class Queue:
    """A queue and its subtree. ``path`` is the full, lower-cased path (``root.a.b``)."""

    name: str
    path: str
    parent: bool | None = None
    resources: Resources | None = None
    max_applications: int = 0
    properties: Mapping[str, str] = field(default_factory=_empty)
    admin_acl: str | None = None
    submit_acl: str | None = None
    child_template: ChildTemplate | None = None
    children: tuple[Queue, ...] = ()
    limits: tuple[Limit, ...] = ()

    @property
    def guaranteed(self) -> Mapping[str, str]:
        return self.resources.guaranteed if self.resources else EMPTY

    @property
    def max(self) -> Mapping[str, str]:
        return self.resources.max if self.resources else EMPTY

    def walk(self) -> Iterator[Queue]:
        """Yield this queue and every descendant, parents before children, siblings in order."""
        stack = [self]
        while stack:
            queue = stack.pop()
            yield queue
            stack.extend(reversed(queue.children))


@dataclass(frozen=True, slots=True)
class PlacementFilter:
    type: str = ""
    users: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PlacementRule:
    name: str
    create: bool = False
    filter: PlacementFilter | None = None
    parent: PlacementRule | None = None
    value: str = ""


@dataclass(frozen=True, slots=True)
class Preemption:
    enabled: bool | None = None
    quota_preemption_enabled: bool | None = None


@dataclass(frozen=True, slots=True)
class NodeSortPolicy:
    type: str = ""
    resource_weights: Mapping[str, float] = field(default_factory=_empty)


@dataclass(frozen=True, slots=True)
class Partition:
    """A partition after normalisation: ``root`` is the one top-level queue (S2) and carries the
    partition-level limits (S3). ``limits`` keeps the partition-level entries as written."""

    name: str
    root: Queue
    limits: tuple[Limit, ...] = ()
    placement_rules: tuple[PlacementRule, ...] = ()
    preemption: Preemption | None = None
    node_sort_policy: NodeSortPolicy | None = None
    user_group_resolver: str | None = None

    def queues(self) -> Iterator[Queue]:
        """Every queue of the partition, root first, in document order."""
        return self.root.walk()


@dataclass(frozen=True, slots=True)
class Config:
    partitions: tuple[Partition, ...] = ()
    checksum: str | None = None

    def partition(self, name: str) -> Partition | None:
        for partition in self.partitions:
            if partition.name == name:
                return partition
        return None
