"""The queue tree of a partition with its usage, in YuniKorn's shape: every configured queue of
the active version with its settings, plus dynamic queues while they have usage. Read by the
API's YuniKorn endpoints and by the usage pages, so it lives below both."""

from __future__ import annotations

import threading
from collections.abc import Iterable
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
    quantities = _quantities(configured.name, queues.values())
    built: dict[str, dict[str, Any]] = {}
    # A parent's path sorts before its descendants', so it is built first, and every child list
    # comes out sorted by path (the order the engine's own tree uses).
    for queue_path in sorted(used.keys() | queues.keys()):
        node = _queue_node(queue_path, used.get(queue_path), queues.get(queue_path),
                           quantities.get(queue_path))
        built[queue_path] = node
        parent = queue_path.rpartition(".")[0]
        if parent:
            built[parent].setdefault("children", []).append(node)
    return built["root"]


# Each configured queue's max and guaranteed, parsed, by partition and queue object (kept with
# it, so its id stays its own): a model shares its unchanged queues with the version before it,
# so an edit parses only what it changed. Parsing all 10,111 queues' quantities was 0.35 s of
# every page that reads the tree. Only each partition's last tree is kept.
_Parsed = dict[int, tuple[QueueModel, dict[str, int], dict[str, int]]]
_parsed: dict[str, _Parsed] = {}
_parsed_lock = threading.Lock()


def _quantities(
    partition: str, queues: Iterable[QueueModel]
) -> dict[str, tuple[dict[str, int], dict[str, int]]]:
    with _parsed_lock:
        known = _parsed.get(partition, {})
    kept: _Parsed = {}
    for queue in queues:
        entry = known.get(id(queue))
        if entry is None or entry[0] is not queue:
            entry = (queue, parse_resource_map(queue.max), parse_resource_map(queue.guaranteed))
        kept[id(queue)] = entry
    with _parsed_lock:
        _parsed[partition] = kept
    return {queue.path: (maximum, guaranteed) for queue, maximum, guaranteed in kept.values()}


def _queue_node(
    queue_path: str, used: dict[str, Any] | None, queue: QueueModel | None,
    quantities: tuple[dict[str, int], dict[str, int]] | None,
) -> dict[str, Any]:
    # Field order and omission as YuniKorn's PartitionQueueDAOInfo (omitempty, except runningApps).
    out: dict[str, Any] = {"queuename": queue_path}
    if quantities is not None:
        maximum, guaranteed = quantities
        if maximum:
            out["maxResource"] = dict(maximum)
        if guaranteed:
            out["guaranteedResource"] = dict(guaranteed)
    if used is not None and used.get("allocatedResource"):
        out["allocatedResource"] = dict(used["allocatedResource"])
    if queue is not None and queue.max_applications:
        out["maxRunningApps"] = queue.max_applications
    out["runningApps"] = used.get("runningApps", 0) if used is not None else 0
    if queue is not None and queue.properties:
        out["properties"] = dict(queue.properties)
    return out
