"""Nodes a scheduler reports, and what YuniKorn's reads make of them.

quotaweb admits by quota, never by node. A scheduler may still tell it the nodes of a partition
(``PUT /api/v1/partitions/{p}/nodes``, the whole set at once), and name the node of each
allocation (its optional ``nodeId``), so that YuniKorn's web UI and clients see the cluster as
YuniKorn would show it: the node list (``NodeDAOInfo``), the number of nodes, the partition's
capacity, and the node utilisation buckets (``PartitionNodesUtilDAOInfo``). Stored
(``models.Node``), so they survive a restart; none until a scheduler reports some.

What a node is used by depends on what the scheduler tells:

- once any live allocation of the partition names a node, as YuniKorn: a node's ``allocated``
  is the sum of the live allocations naming it, ``allocations`` those allocations
  (``AllocationDAOInfo``, oldest first), ``available`` capacity minus allocated minus
  ``occupied`` (YuniKorn's occupied: in use by what it did not schedule) in the types of the
  capacity, ``utilized`` allocated over capacity in integer percent (YuniKorn's
  ``GetUtilizedResource``: the allocated types of a capacity above 0), and the utilisation
  buckets follow allocated;
- while none does, ``occupied`` stands for the node's use: ``available`` is capacity minus
  occupied, ``utilized`` and the buckets occupied over capacity, ``allocated`` and
  ``allocations`` are left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from math import ceil
from typing import Any, NamedTuple

from django.db import transaction
from django.utils import timezone

from quotaweb.allocations.applications import (
    allocation_dao,
    created_of,
    oldest_first,
    resource_sum,
)
from quotaweb.allocations.models import Node
from quotaweb.allocations.requests import (
    ERR_REQUIRED,
    ERR_RESOURCE,
    ERR_UNKNOWN_KEY,
    MAX_QUANTITY,
    MAX_RESOURCE_TYPES,
    MAX_TEXT,
    AllocationInvalid,
    _is_text,
    _resource_ok,
)
from quotaweb.config.yunikorn import abs_used_capacity
from quotaweb.engine.gateway import UnknownPartition, engines_get

MAX_NODES = 10_000
MAX_ATTRIBUTES = 100
NODE_FIELDS = frozenset(
    {"nodeID", "hostName", "rackName", "attributes", "capacity", "occupied"}
)
ERR_NODES = "must be a list of at most {limit} nodes"
ERR_NAME = "must be a string of at most {limit} characters, without NUL"
ERR_ATTRIBUTES = (
    "must be an object of at most {limit} attributes, each name a non-empty string and each "
    "value a string, of at most {text} characters"
)
ERR_NOT_A_NODE = "the node must be a JSON object"
ERR_DUPLICATE = "node {node!r} is given more than once"
# YuniKorn's utilisation buckets: 0-10%, 10-20%, ... 90-100% (a node above 100% in the last).
BUCKETS = 10


class NodesInvalid(AllocationInvalid):
    """A nodes body that cannot be stored; ``errors`` lists ``{field, message}``."""


def _name_ok(value: Any) -> bool:
    """An optional name (host, rack): empty is allowed, as YuniKorn allows it."""
    return value == "" or _is_text(value)


def _attributes_ok(value: Any) -> bool:
    return type(value) is dict and len(value) <= MAX_ATTRIBUTES and all(
        _is_text(name) and _name_ok(text) for name, text in value.items()
    )


def _node_errors(item: Any, at: str) -> list[dict[str, str]]:
    """Every reason one node of the body is refused, named where it was."""
    if type(item) is not dict:
        return [{"field": at.rstrip("."), "message": ERR_NOT_A_NODE}]
    allowed = ERR_UNKNOWN_KEY.format(allowed=", ".join(sorted(NODE_FIELDS)))
    errors = [
        {"field": at + (key if _is_text(key) else ascii(key)[:MAX_TEXT]), "message": allowed}
        for key in item if key not in NODE_FIELDS
    ]
    if item.get("nodeID") is None:
        errors.append({"field": at + "nodeID", "message": ERR_REQUIRED})
    elif not _is_text(item["nodeID"]):
        errors.append({"field": at + "nodeID", "message": ERR_NAME.format(limit=MAX_TEXT)})
    errors.extend(
        {"field": at + name, "message": ERR_NAME.format(limit=MAX_TEXT)}
        for name in ("hostName", "rackName") if name in item and not _name_ok(item[name])
    )
    if "attributes" in item and not _attributes_ok(item["attributes"]):
        errors.append({"field": at + "attributes", "message": ERR_ATTRIBUTES.format(
            limit=MAX_ATTRIBUTES, text=MAX_TEXT)})
    resource_error = ERR_RESOURCE.format(limit=MAX_RESOURCE_TYPES, max=MAX_QUANTITY)
    if "capacity" not in item:
        errors.append({"field": at + "capacity", "message": ERR_REQUIRED})
    elif not _resource_ok(item["capacity"]):
        errors.append({"field": at + "capacity", "message": resource_error})
    if "occupied" in item and not _resource_ok(item["occupied"]):
        errors.append({"field": at + "occupied", "message": resource_error})
    return errors


def nodes_checked(data: Any) -> list[dict[str, Any]]:
    """The nodes of a ``PUT .../nodes`` body, every one checked; ``NodesInvalid`` naming every
    bad field (``nodes[3].capacity``) and every node ID given twice."""
    if type(data) is not list or len(data) > MAX_NODES:
        raise NodesInvalid([{"field": "body", "message": ERR_NODES.format(limit=MAX_NODES)}])
    errors: list[dict[str, str]] = []
    seen: set[str] = set()
    for index, item in enumerate(data):
        at = f"nodes[{index}]."
        found = _node_errors(item, at)
        errors.extend(found)
        if not found:
            if item["nodeID"] in seen:
                errors.append({"field": at + "nodeID",
                               "message": ERR_DUPLICATE.format(node=item["nodeID"])})
            seen.add(item["nodeID"])
    if errors:
        raise NodesInvalid(errors)
    return data


def nodes_replace(*, partition: str, data: Any) -> int:
    """Replace the partition's reported nodes with those of ``data`` (checked first: bad input
    changes nothing), in one transaction; how many there are now. ``UnknownPartition`` for a
    partition the configuration does not have."""
    nodes = nodes_checked(data)
    if partition not in engines_get().partitions():
        raise UnknownPartition(partition)
    now = timezone.now()
    rows = [
        Node(
            partition=partition, node_id=item["nodeID"], host_name=item.get("hostName", ""),
            rack_name=item.get("rackName", ""), attributes=item.get("attributes", {}),
            capacity={kind: amount for kind, amount in item["capacity"].items() if amount},
            occupied={kind: amount for kind, amount in item.get("occupied", {}).items()
                      if amount},
            reported=now,
        )
        for item in nodes
    ]
    with transaction.atomic():
        Node.objects.filter(partition=partition).delete()
        Node.objects.bulk_create(rows, batch_size=500)
    return len(rows)


# -- reads -----------------------------------------------------------------------------------


def nodes_of(*, partition: str) -> list[Node]:
    """The partition's reported nodes, by node ID."""
    return list(Node.objects.filter(partition=partition).order_by("node_id"))


def node_of(*, partition: str, node_id: str) -> Node | None:
    return Node.objects.filter(partition=partition, node_id=node_id).first()


def nodes_capacity(nodes: Iterable[Node]) -> dict[str, int]:
    """The nodes' capacity summed per type (YuniKorn's partition capacity)."""
    total: dict[str, int] = {}
    for node in nodes:
        for kind, amount in node.capacity.items():
            total[kind] = total.get(kind, 0) + amount
    return total


class NodeLoad(NamedTuple):
    """What the live allocations naming one node put on it: their sum and their DAOs."""

    allocated: dict[str, int]
    allocations: list[dict[str, Any]]


def nodes_load(*, partition: str, node_id: str | None = None) -> dict[str, NodeLoad] | None:
    """The live allocations of the partition by the node they name (only ``node_id``'s when
    given); None when no live allocation of the partition names a node (then ``occupied``
    stands for use). ``UnknownPartition``, ``EngineNotLoaded`` from the gateway."""
    named = [a for a in engines_get().live_snapshot(partition).allocations if a.node_id]
    if not named:
        return None
    if node_id is not None:
        named = [a for a in named if a.node_id == node_id]
    created = created_of(partition, (a.key for a in named))
    by_node: dict[str, list[Any]] = {}
    for allocation in oldest_first(named, created):
        by_node.setdefault(allocation.node_id, []).append(allocation)
    return {
        node: NodeLoad(resource_sum(placed), [
            allocation_dao(partition, a, created.get(a.key)) for a in placed
        ])
        for node, placed in by_node.items()
    }


def _used(node: Node, load: dict[str, NodeLoad] | None) -> dict[str, int]:
    """What the node is used by: its allocations' sum, or its occupied while no allocation of
    the partition names a node (``load`` None)."""
    if load is None:
        return node.occupied
    found = load.get(node.node_id)
    return found.allocated if found is not None else {}


def node_dao(node: Node, load: dict[str, NodeLoad] | None = None) -> dict[str, Any]:
    """``NodeDAOInfo``: field order and omission as yunikorn-core's (``omitempty``); ``load``
    from ``nodes_load`` (None: no allocation names a node)."""
    out: dict[str, Any] = {"nodeID": node.node_id}
    if node.host_name:
        out["hostName"] = node.host_name
    if node.rack_name:
        out["rackName"] = node.rack_name
    if node.attributes:
        out["attributes"] = dict(node.attributes)
    capacity, occupied = node.capacity, node.occupied
    if capacity:
        out["capacity"] = dict(capacity)
    used = _used(node, load)
    if load is not None and used:
        out["allocated"] = dict(used)
    if occupied:
        out["occupied"] = dict(occupied)
    taken = used if load is None else {
        kind: used.get(kind, 0) + occupied.get(kind, 0) for kind in capacity
    }
    available = {kind: amount - taken.get(kind, 0) for kind, amount in capacity.items()}
    if available:
        out["available"] = available
    utilized = abs_used_capacity(capacity, used)
    if load is not None:
        # YuniKorn's GetUtilizedResource: only the types of a capacity above 0.
        utilized = {kind: value for kind, value in utilized.items() if capacity.get(kind, 0) > 0}
    if utilized:
        out["utilized"] = utilized
    placed = load.get(node.node_id) if load is not None else None
    if placed is not None and placed.allocations:
        out["allocations"] = placed.allocations
    out["schedulable"] = True
    out["isReserved"] = False
    return out


def _bucket(percent: int | None) -> int:
    """YuniKorn's bucket of a percentage: ``ceil(p / 10) - 1``, at least 0 (0% and 10% are
    both in the first), at most the last."""
    if percent is None:
        return 0
    return min(BUCKETS - 1, max(0, ceil(percent / 10) - 1))


def nodes_utilisation(*, partition: str, cluster_id: str) -> dict[str, Any]:
    """``PartitionNodesUtilDAOInfo``: per resource type that some node has, how many nodes (and
    which) fall in each tenth of utilisation; the types sorted by name."""
    buckets: dict[str, list[list[str]]] = {}
    load = nodes_load(partition=partition)
    for node in nodes_of(partition=partition):
        used = abs_used_capacity(node.capacity, _used(node, load))
        for kind in node.capacity:
            names = buckets.setdefault(kind, [[] for _ in range(BUCKETS)])
            names[_bucket(used.get(kind))].append(node.node_id)
    utilisations = [
        {"type": kind, "utilization": [
            # An empty bucket has only its name (``omitempty``).
            {"bucketName": f"{index * 10}-{(index + 1) * 10}%",
             **({"numOfNodes": len(names), "nodeNames": names} if names else {})}
            for index, names in enumerate(buckets[kind])
        ]}
        for kind in sorted(buckets)
    ]
    out: dict[str, Any] = {"clusterId": cluster_id, "partition": partition}
    if utilisations:
        out["utilizations"] = utilisations
    return out


def nodes_utilisation_dominant(*, partition: str) -> dict[str, Any]:
    """YuniKorn's deprecated single-type form (``NodesUtilDAOInfo``): the buckets of the type
    the partition's nodes use most of (their use over their capacity, summed over the nodes;
    the first by name on a tie); an empty object without nodes."""
    found = nodes_of(partition=partition)
    capacity = nodes_capacity(found)
    load = nodes_load(partition=partition)
    used: dict[str, int] = {}
    for node in found:
        for kind, amount in _used(node, load).items():
            used[kind] = used.get(kind, 0) + amount
    shares = {kind: used.get(kind, 0) / cap for kind, cap in capacity.items() if cap}
    if not shares:
        return {}
    dominant = max(sorted(shares), key=lambda kind: shares[kind])
    everything = nodes_utilisation(partition=partition, cluster_id="")["utilizations"]
    return next(entry for entry in everything if entry["type"] == dominant)
