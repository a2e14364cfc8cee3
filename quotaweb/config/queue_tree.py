"""The queue tree of a partition with its usage, in YuniKorn's shape: every configured queue of
the active version with its settings, plus dynamic queues while they have usage. Read by the
API's YuniKorn endpoints and by the usage pages, so it lives below both."""

from __future__ import annotations

from typing import Any

from quotaweb.config.selectors import active_version, version_model
from quotaweb.engine.gateway import engines_get
from trackers.config.model import Partition as PartitionModel
from trackers.config.model import Queue as QueueModel
from trackers.resources import parse_resource_map


def partition_queues(*, partition: str) -> dict[str, Any]:
    """The queue tree of ``partition`` (``UnknownPartition``/``EngineNotLoaded`` from the
    gateway): every configured queue, plus dynamic queues while they have usage."""
    usage = engines_get().queues_usage(partition)
    current = active_version()
    configured = version_model(current).partition(partition) if current is not None else None
    if configured is None:
        # Engines loaded without a stored version (a script, a test): their copy of the limits.
        return usage
    return _merged_tree(usage=usage, configured=configured)


def _merged_tree(*, usage: dict[str, Any], configured: PartitionModel) -> dict[str, Any]:
    used: dict[str, dict[str, Any]] = {}
    stack = [usage]
    while stack:
        node = stack.pop()
        used[node["queuename"]] = node
        stack.extend(node.get("children", ()))
    queues = {queue.path: queue for queue in configured.queues()}
    built: dict[str, dict[str, Any]] = {}
    # A parent's path sorts before its descendants', so it is built first, and every child list
    # comes out sorted by path (the order the engine's own tree uses).
    for queue_path in sorted(used.keys() | queues.keys()):
        node = _queue_node(queue_path, used.get(queue_path), queues.get(queue_path))
        built[queue_path] = node
        parent = queue_path.rpartition(".")[0]
        if parent:
            built[parent].setdefault("children", []).append(node)
    return built["root"]


def _queue_node(
    queue_path: str, used: dict[str, Any] | None, queue: QueueModel | None
) -> dict[str, Any]:
    # Field order and omission as YuniKorn's PartitionQueueDAOInfo (omitempty, except runningApps).
    out: dict[str, Any] = {"queuename": queue_path}
    if queue is not None:
        maximum = parse_resource_map(queue.max)
        if maximum:
            out["maxResource"] = maximum
        guaranteed = parse_resource_map(queue.guaranteed)
        if guaranteed:
            out["guaranteedResource"] = guaranteed
    if used is not None and used.get("allocatedResource"):
        out["allocatedResource"] = dict(used["allocatedResource"])
    if queue is not None and queue.max_applications:
        out["maxRunningApps"] = queue.max_applications
    out["runningApps"] = used.get("runningApps", 0) if used is not None else 0
    if queue is not None and queue.properties:
        out["properties"] = dict(queue.properties)
    return out
