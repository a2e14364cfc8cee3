"""The configuration side of YuniKorn's REST objects: the queue tree as ``PartitionQueueDAOInfo``
(yunikorn-core ``pkg/webservice/dao``) and a partition's node sorting policy.

``config.queue_tree`` gives the tree the pages and sockets share (configured values plus usage);
this adds, per node, what YuniKorn's DAO carries and quotaweb can fill truthfully:

- ``status`` ("Active"), ``partition`` (on every node; YuniKorn itself fills it on the root only),
  ``isLeaf``, ``isManaged`` (configured, as opposed to dynamic), ``parent``, ``childNames``;
- ``headroom``, YuniKorn's ``getHeadRoom``: max minus allocated in the types the max names, the
  tighter per type with the parent's headroom, a queue without a max taking its parent's (none
  while no ancestor has a max); negative when usage sits above a lowered max;
- ``absUsedCapacity``, YuniKorn's ``CalculateAbsUsedCapacity``: per type of the max that has
  usage, ``int64(used / max * 100)`` (truncated; a 0 max gives int64's bounds, as Go's
  conversion of an infinite quotient does on amd64);
- ``template`` from a parent's ``childtemplate``, inherited by parent queues below that have
  none (YuniKorn's ``addChildQueue``).

- the root's ``maxResource``, when the configuration gives it none, is what the caller says the
  cluster holds (``root_max``: the elastic cluster total, or the reported nodes' capacity), as
  YuniKorn's root max is its cluster's size; its headroom and ``absUsedCapacity`` follow;
- the fields YuniKorn always sends: ``currentPriority`` (the highest priority of the queue's
  pending requests, int32's minimum when it has none, as YuniKorn starts it: quotaweb never has
  pending requests), and from the queue's properties as YuniKorn reads them,
  ``sortingPolicy`` ("fair" for a parent; a leaf's ``application.sort.policy``, "fifo" unless
  "fair"), ``prioritySorting`` (``application.sort.priority``, on unless "disabled"),
  ``preemptionEnabled`` and ``isPreemptionFence`` (``preemption.policy``: "disabled" or
  "fence"), ``isPriorityFence`` (``priority.policy`` "fence"), ``preemptionDelay``
  (``preemption.delay`` read as a Go duration and written as Go writes one, ``1m`` as "1m0s";
  YuniKorn's 30s when absent, unreadable or not above 0; ``go_duration``) and
  ``priorityOffset`` (``priority.offset``, left out at 0). quotaweb itself neither sorts nor
  preempts: these say what the configuration asks of a YuniKorn scheduler.

Omitted as YuniKorn's ``omitempty`` omits them when empty: ``pendingResource`` and
``preemptingResource`` (quotaweb has no pending requests and never preempts) and
``allocatingAcceptedApps`` (an application is accepted and running at its first allocation, so
none is ever accepted and allocating). ``runningApps`` stays present at 0, as this API has
always answered it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quotaweb.config.go_duration import DurationInvalid, go_duration_parse, go_duration_text
from quotaweb.config.queue_tree import partition_queues
from quotaweb.config.selectors import active_version, version_model
from quotaweb.engine.gateway import engines_get
from trackers.config.model import ChildTemplate, Partition
from trackers.config.model import Queue as QueueModel
from trackers.resources import INT64_MAX, component_min, parse_resource_map

STATUS_ACTIVE = "Active"
INT64_MIN = -(2**63)
INT32_MIN = -(2**31)
# YuniKorn's preemption delay when a queue's properties set none (or none it can read).
DEFAULT_PREEMPTION_DELAY = "30s"
# YuniKorn's application sorting policies: a leaf's default, and parents' always.
SORT_FIFO, SORT_FAIR = "fifo", "fair"
# What YuniKorn reports for a partition without a node sorting policy of its own.
DEFAULT_NODE_SORT_TYPE = "fair"
DEFAULT_RESOURCE_WEIGHTS = {"memory": 1.0, "vcore": 1.0}


def configured_partition(partition: str) -> Partition:
    """The partition as the active version configures it, or as its engine holds it when no
    version is stored (or the engines are ahead of the stored version). ``UnknownPartition``,
    ``EngineNotLoaded`` from the gateway."""
    current = active_version()
    if current is not None:
        model = version_model(current).partition(partition)
        if model is not None:
            return model
    return engines_get().config(partition)


def node_sorting_policy(partition: str) -> dict[str, Any]:
    """``NodeSortingPolicy`` as YuniKorn reports it: the configured type (``fair`` when unset)
    and resource weights (vcore and memory 1.0 when none are configured)."""
    policy = configured_partition(partition).node_sort_policy
    kind = (policy.type if policy is not None else "") or DEFAULT_NODE_SORT_TYPE
    weights = dict(policy.resource_weights) if policy is not None else {}
    return {"type": kind, "resourceWeights": weights or dict(DEFAULT_RESOURCE_WEIGHTS)}


def abs_used_capacity(maximum: Mapping[str, int], used: Mapping[str, int]) -> dict[str, int]:
    """YuniKorn's ``CalculateAbsUsedCapacity``: for each type of ``maximum`` that ``used``
    names, the integer percentage ``int64(used / max * 100)``, truncated toward zero."""
    out: dict[str, int] = {}
    for kind, cap in maximum.items():
        if kind not in used:
            continue
        amount = used[kind]
        if cap == 0:
            # Go divides to +Inf, -Inf or NaN; amd64 converts all three to int64's minimum,
            # which YuniKorn's overflow guard turns into the maximum for a positive quotient.
            out[kind] = INT64_MAX if amount > 0 else INT64_MIN
            continue
        value = int(float(amount) / float(cap) * 100)
        out[kind] = max(INT64_MIN, min(INT64_MAX, value))
    return out


def _headroom(
    maximum: Mapping[str, int] | None, allocated: Mapping[str, int],
    parent: dict[str, int] | None,
) -> dict[str, int] | None:
    """YuniKorn's ``internalHeadRoom``: without a max, the parent's; else max minus allocated in
    the max's types, the tighter per type with the parent's (a type one side lacks is unlimited
    there)."""
    if maximum is None:
        return parent
    own = {kind: cap - allocated.get(kind, 0) for kind, cap in maximum.items()}
    return component_min(own, parent)


def _template_info(template: ChildTemplate | None) -> dict[str, Any] | None:
    """``TemplateInfo`` (its empty fields left out), or None for no template or an empty one."""
    if template is None:
        return None
    out: dict[str, Any] = {}
    if template.max_applications:
        out["maxApplications"] = template.max_applications
    if template.resources is not None:
        maximum = parse_resource_map(template.resources.max)
        if maximum:
            out["maxResource"] = maximum
        guaranteed = parse_resource_map(template.resources.guaranteed)
        if guaranteed:
            out["guaranteedResource"] = guaranteed
    if template.properties:
        out["properties"] = dict(template.properties)
    return out or None


def _policies(properties: Mapping[str, str], *, is_leaf: bool) -> dict[str, Any]:
    """The sorting, priority and preemption fields of ``PartitionQueueDAOInfo`` that YuniKorn
    derives from a queue's properties (unknown values read as the default, as YuniKorn does)."""
    raw = {key.lower(): str(value) for key, value in properties.items()}
    lowered = {key: value.strip().lower() for key, value in raw.items()}
    preemption = lowered.get("preemption.policy", "default")
    out: dict[str, Any] = {
        "currentPriority": INT32_MIN,
        "sortingPolicy": _sorting_policy(lowered.get("application.sort.policy"), is_leaf),
        "prioritySorting": lowered.get("application.sort.priority", "enabled") != "disabled",
        "preemptionEnabled": preemption != "disabled",
        "isPreemptionFence": preemption == "fence",
        "preemptionDelay": preemption_delay(raw.get("preemption.delay")),
        "isPriorityFence": lowered.get("priority.policy", "default") == "fence",
    }
    try:
        offset = int(lowered.get("priority.offset", "0"))
    except ValueError:
        offset = 0
    if offset and INT32_MIN <= offset <= -INT32_MIN - 1:
        out["priorityOffset"] = offset
    return out


def _sorting_policy(policy: str | None, is_leaf: bool) -> str:
    """YuniKorn's ``sortingPolicy``: a parent queue sorts its children fairly; a leaf sorts its
    applications as ``application.sort.policy`` says, ``fifo`` unless it says ``fair``."""
    if not is_leaf:
        return SORT_FAIR
    return SORT_FAIR if policy == SORT_FAIR else SORT_FIFO


def preemption_delay(value: str | None) -> str:
    """YuniKorn's ``preemptionDelay``: the property read as Go reads a duration, written as Go
    writes one (``1m`` is ``1m0s``); YuniKorn's default when absent, unreadable or not above 0."""
    if value is None:
        return DEFAULT_PREEMPTION_DELAY
    try:
        nanoseconds = go_duration_parse(value)
    except DurationInvalid:
        return DEFAULT_PREEMPTION_DELAY
    return go_duration_text(nanoseconds) if nanoseconds > 0 else DEFAULT_PREEMPTION_DELAY


class _Builder:
    def __init__(
        self, partition: str, configured: Partition, root_max: dict[str, int] | None = None
    ) -> None:
        self.partition = partition
        self.queues: dict[str, QueueModel] = {queue.path: queue for queue in configured.queues()}
        self.root_max = root_max or None

    def node(
        self, node: dict[str, Any], *, parent_headroom: dict[str, int] | None,
        inherited: dict[str, Any] | None, subtree: bool = True,
    ) -> tuple[dict[str, Any], dict[str, int] | None, dict[str, Any] | None]:
        """The DAO of one node, with its headroom and the template its children inherit."""
        path = node["queuename"]
        queue = self.queues.get(path)
        children = node.get("children", [])
        is_leaf = path != "root" and not children and not (
            queue is not None and (queue.parent or queue.children)
        )
        allocated = node.get("allocatedResource", {})
        maximum = node.get("maxResource")
        if path == "root" and maximum is None and self.root_max is not None:
            maximum = dict(self.root_max)
        headroom = _headroom(maximum, allocated, parent_headroom)
        template = None
        if not is_leaf:
            own = _template_info(queue.child_template) if queue is not None else None
            template = own if own is not None else inherited
        # Field order of PartitionQueueDAOInfo.
        out: dict[str, Any] = {
            "queuename": path, "status": STATUS_ACTIVE, "partition": self.partition,
        }
        if maximum is not None:
            out["maxResource"] = maximum
        for key in ("guaranteedResource", "allocatedResource"):
            if key in node:
                out[key] = node[key]
        if headroom:
            out["headroom"] = headroom
        out["isLeaf"] = is_leaf
        out["isManaged"] = queue is not None
        if "properties" in node:
            out["properties"] = node["properties"]
        if path != "root":
            out["parent"] = path.rpartition(".")[0]
        if template is not None:
            out["template"] = template
        if children and subtree:
            out["children"] = [
                self.node(child, parent_headroom=headroom, inherited=template)[0]
                for child in children
            ]
        if children:
            out["childNames"] = [child["queuename"] for child in children]
        used_percent = abs_used_capacity(maximum or {}, allocated)
        if used_percent:
            out["absUsedCapacity"] = used_percent
        if "maxRunningApps" in node:
            out["maxRunningApps"] = node["maxRunningApps"]
        out["runningApps"] = node.get("runningApps", 0)
        out.update(_policies(node.get("properties", {}), is_leaf=is_leaf))
        return out, headroom, template


def queue_tree_dao(
    *, partition: str, root_max: dict[str, int] | None = None
) -> dict[str, Any]:
    """The whole queue tree of ``partition`` as ``PartitionQueueDAOInfo`` (``UnknownPartition``,
    ``EngineNotLoaded`` from the gateway); ``root_max`` the root's max when none is configured."""
    tree = partition_queues(partition=partition)
    builder = _Builder(partition, configured_partition(partition), root_max)
    return builder.node(tree, parent_headroom=None, inherited=None)[0]


def queue_dao(
    *, partition: str, queue_path: str, subtree: bool, root_max: dict[str, int] | None = None
) -> dict[str, Any] | None:
    """One queue (any case of its path) as ``PartitionQueueDAOInfo``, with its children only
    when ``subtree``; None when the partition has no such queue, configured or dynamic."""
    tree = partition_queues(partition=partition)
    builder = _Builder(partition, configured_partition(partition), root_max)
    wanted = queue_path.lower()
    node, headroom, template = tree, None, None
    while True:
        if node["queuename"] == wanted:
            return builder.node(
                node, parent_headroom=headroom, inherited=template, subtree=subtree
            )[0]
        # Walk down: the headroom and template a child inherits come from this node.
        _, headroom, template = builder.node(
            node, parent_headroom=headroom, inherited=template, subtree=False
        )
        node = next(
            (child for child in node.get("children", ())
             if wanted.startswith(child["queuename"] + ".") or wanted == child["queuename"]),
            None,
        )
        if node is None:
            return None


def queue_exists(*, partition: str, queue_path: str) -> bool:
    """Whether ``partition`` has the queue (any case of its path), configured or dynamic."""
    wanted = queue_path.lower()
    stack = [partition_queues(partition=partition)]
    while stack:
        node = stack.pop()
        if node["queuename"] == wanted:
            return True
        stack.extend(node.get("children", ()))
    return False
