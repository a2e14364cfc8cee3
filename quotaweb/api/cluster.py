"""The cluster-wide YuniKorn objects: ``PartitionInfo`` per partition and ``ClusterDAOInfo``
(yunikorn-core ``pkg/webservice/dao``), and the size of a partition's cluster.

What a partition holds (``capacity.capacity``) is the capacity of the nodes a scheduler reported
(``allocations.nodes``); without nodes, the elastic cluster total when an admin set one
(``engine.elastic``); else nothing is known and it stays empty, as YuniKorn's is without nodes.
The root queue's max, which the configuration never sets, is the cluster total first (it is what
quotaweb shares among the queues), else the nodes' capacity.

- ``capacity.usedCapacity``: the partition's live allocations summed (the root's usage);
  ``utilization`` their integer percentage of the capacity (``CalculateAbsUsedCapacity``);
- ``applications``: by state, as YuniKorn counts them: running (with live allocations) and
  completed (the newest ``app_states.COMPLETED_KEPT`` this process saw complete), and ``total``;
- ``totalNodes``: always sent, 0 until a scheduler reports nodes (YuniKorn leaves a 0 out, and
  its web UI then shows "undefined");
- ``lastStateTransitionTime``: when the partition became active, its engine's creation in
  this process (start-up, or the configuration change that added it), in nanoseconds;
- ``preemptionEnabled`` and ``quotaPreemptionEnabled``: what the partition's configuration says
  (``preemption.enabled``, on by default, and ``preemption.quotapreemptionenabled``, off by
  default, as YuniKorn reads them). quotaweb itself never preempts.
"""

from __future__ import annotations

from typing import Any

from quotaweb.allocations.nodes import nodes_capacity, nodes_of
from quotaweb.api.build_info import build_information
from quotaweb.config.yunikorn import abs_used_capacity, configured_partition, node_sorting_policy
from quotaweb.engine.gateway import engines_get

# What quotaweb calls its cluster where YuniKorn names its resource manager's.
CLUSTER_ID = "quotaweb"
CLUSTER_NAME = "quotaweb"
STATE_ACTIVE = "Active"
STATE_RUNNING = "Running"
STATE_COMPLETED = "Completed"


def _cluster_total(partition: str) -> dict[str, int]:
    return dict(engines_get().elastic(partition).total)


def root_max(*, partition: str) -> dict[str, int] | None:
    """The root queue's max: the elastic cluster total when set, else the reported nodes'
    capacity, else None (unknown)."""
    return _cluster_total(partition) or nodes_capacity(nodes_of(partition=partition)) or None


def _used(partition: str) -> dict[str, int]:
    root = engines_get().queues_usage(partition)
    used = root.get("allocatedResource") or {}
    return {kind: amount for kind, amount in used.items() if amount}


def _applications(*, running: int, completed: int) -> dict[str, int]:
    """Applications by state (the states without any left out) and their ``total``."""
    out = {state: count for state, count in ((STATE_RUNNING, running),
                                             (STATE_COMPLETED, completed)) if count}
    out["total"] = running + completed
    return out


def partition_info(*, name: str) -> dict[str, Any]:
    """``PartitionInfo`` (with quotaweb's counts of the configuration version, queues, users and
    groups), in its field order."""
    gateway = engines_get()
    summary = gateway.summary(name)
    allocations, applications = gateway.live_counts(name)
    nodes = nodes_of(partition=name)
    capacity = nodes_capacity(nodes) or _cluster_total(name)
    used = _used(name)
    figures: dict[str, Any] = {}
    if capacity:
        figures["capacity"] = capacity
    if used:
        figures["usedCapacity"] = used
    utilisation = abs_used_capacity(capacity, used)
    if utilisation:
        figures["utilization"] = utilisation
    preemption = configured_partition(name).preemption
    entry: dict[str, Any] = {
        "name": name,
        "state": STATE_ACTIVE,
        "configVersion": summary["version"],
        "totalQueues": summary["queues"],
        "totalUsers": summary["users"],
        "totalGroups": summary["groups"],
        "clusterId": CLUSTER_ID,
        "capacity": figures,
        "nodeSortingPolicy": node_sorting_policy(name),
        "preemptionEnabled": preemption is None or preemption.enabled is not False,
        "quotaPreemptionEnabled": bool(preemption and preemption.quota_preemption_enabled),
        "totalNodes": len(nodes),
        "applications": _applications(running=applications,
                                      completed=gateway.completed_applications(name)),
    }
    if allocations:
        entry["totalContainers"] = allocations
    entry["lastStateTransitionTime"] = gateway.active_since_ns(name)
    return entry


def clusters_info() -> list[dict[str, Any]]:
    """``ClusterDAOInfo`` per partition: when the engines started (nanoseconds) and quotaweb's
    build (``api.build_info``)."""
    gateway = engines_get()
    build = build_information(rm_id=CLUSTER_ID)
    return [
        {"startTime": gateway.started_ns, "rmBuildInformation": build, "partition": name,
         "clusterName": CLUSTER_NAME}
        for name in gateway.partitions()
    ]
