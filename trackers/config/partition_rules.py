"""Partition-level rules: names (NAME), structure (S1-S3), placement rules and node sorting."""

from __future__ import annotations

import math

from trackers.config import messages
from trackers.config.model import PlacementRule
from trackers.config.scope import Scope
from trackers.names import is_partition_name

FILTER_TYPES = frozenset({"", "allow", "deny"})
NODE_SORT_TYPES = frozenset({"", "fair", "binpacking"})
RESOLVER_TYPES = frozenset({"", "os", "ldap", "test"})


def check_name(scope: Scope, seen: set[str]) -> None:
    """Partition names end up in URLs, so they are held to a tighter pattern than queues."""
    name = scope.name
    field = f"{scope.field}.name"
    if not is_partition_name(name):
        scope.add("NAME", name, field, messages.INVALID_PARTITION_NAME.format(name=name))
    key = name.lower()
    if key in seen:
        scope.add("NAME", name, field, messages.DUPLICATE_PARTITION.format(name=name))
    seen.add(key)


def check_queues_set(scope: Scope) -> bool:
    """S1; False means the partition has no queue tree worth checking further."""
    if scope.index in scope.loc.missing_queues:
        scope.add("S1", scope.name, f"{scope.field}.queues", messages.QUEUES_NOT_SET)
        return False
    return True


def check_structure(scope: Scope) -> None:
    """S2 (root without resources) and S3 (partition limits equal root limits when both set)."""
    root = scope.root
    if root.guaranteed or root.max or scope.index in scope.loc.root_resource_keys:
        scope.add(
            "S2", root.path, f"{scope.queue_field(root)}.resources", messages.ROOT_HAS_RESOURCES
        )
    partition = scope.partition
    if partition.limits and root.limits and partition.limits != root.limits:
        scope.add(
            "S3", scope.name, f"{scope.field}.limits", messages.PARTITION_LIMITS_DIFFER
        )


def check_placement(scope: Scope) -> None:
    for index, rule in enumerate(scope.partition.placement_rules):
        at: PlacementRule | None = rule
        where = f"{scope.field}.placementrules[{index}]"
        # A rule's parent chain is walked in a loop: it is as deep as the document allows.
        while at is not None:
            if not at.name.strip():
                scope.add("PARSE", scope.name, f"{where}.name", messages.PLACEMENT_NAME_EMPTY)
            if at.filter is not None and at.filter.type not in FILTER_TYPES:
                scope.add(
                    "PARSE", scope.name, f"{where}.filter.type",
                    messages.PLACEMENT_FILTER_TYPE.format(type=at.filter.type),
                )
            at = at.parent
            where = f"{where}.parent"


def check_node_sort(scope: Scope) -> None:
    partition = scope.partition
    policy = partition.node_sort_policy
    where = f"{scope.field}.nodesortpolicy"
    if policy is not None:
        if policy.type.lower() not in NODE_SORT_TYPES:
            scope.add(
                "PARSE", scope.name, f"{where}.type",
                messages.NODE_SORT_TYPE.format(type=policy.type),
            )
        for kind, weight in policy.resource_weights.items():
            if not (isinstance(weight, int | float) and math.isfinite(weight) and weight >= 0):
                scope.add(
                    "PARSE", scope.name, f"{where}.resourceweights.{kind}",
                    messages.NODE_SORT_WEIGHT.format(kind=kind, weight=weight),
                )
    resolver = partition.user_group_resolver
    if resolver is not None and resolver not in RESOLVER_TYPES:
        scope.add(
            "PARSE", scope.name, f"{scope.field}.usergroupresolver.type",
            messages.RESOLVER_TYPE.format(type=resolver),
        )
