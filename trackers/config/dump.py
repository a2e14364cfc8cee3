"""The model back to YAML, so that ``parse_config(dump_config(c)) == c``.

Keys are the spec's lower-case names; empty and default fields are left out; quantities keep the
text the admin wrote. Partition-level limits are written once: at the partition when the root
carries the same entries (the loader copies them back), at the root otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trackers.config.model import (
    ChildTemplate,
    Config,
    Limit,
    Partition,
    PlacementRule,
    Queue,
    Resources,
)
from trackers.config.writer import write_yaml


def dump_config(config: Config) -> str:
    doc: dict[str, Any] = {"partitions": [_partition(p) for p in config.partitions]}
    if config.checksum is not None:
        doc["checksum"] = config.checksum
    return write_yaml(doc)


def _partition(partition: Partition) -> dict[str, Any]:
    out: dict[str, Any] = {"name": partition.name}
    if partition.placement_rules:
        out["placementrules"] = [_rule(rule) for rule in partition.placement_rules]
    if partition.limits:
        out["limits"] = [_limit(limit) for limit in partition.limits]
    if partition.preemption is not None:
        preemption: dict[str, Any] = {}
        if partition.preemption.enabled is not None:
            preemption["enabled"] = partition.preemption.enabled
        if partition.preemption.quota_preemption_enabled is not None:
            preemption["quotapreemptionenabled"] = partition.preemption.quota_preemption_enabled
        out["preemption"] = preemption
    if partition.node_sort_policy is not None:
        policy: dict[str, Any] = {}
        if partition.node_sort_policy.type:
            policy["type"] = partition.node_sort_policy.type
        if partition.node_sort_policy.resource_weights:
            policy["resourceweights"] = {
                kind: float(weight)
                for kind, weight in partition.node_sort_policy.resource_weights.items()
            }
        out["nodesortpolicy"] = policy
    if partition.user_group_resolver is not None:
        out["usergroupresolver"] = {"type": partition.user_group_resolver}
    root_limits_written = bool(partition.limits) and partition.root.limits == partition.limits
    out["queues"] = [_queue(partition.root, is_root=True, skip_limits=root_limits_written)]
    return out


def _queue(queue: Queue, *, is_root: bool = False, skip_limits: bool = False) -> dict[str, Any]:
    # Iterative would be safer for unbounded depth, but a dump nests as deep as the tree anyway
    # and the loader refuses documents deeper than its cap long before Python's recursion limit.
    out: dict[str, Any] = {"name": queue.name}
    if queue.parent is not None and not is_root:
        out["parent"] = queue.parent
    if queue.max_applications:
        out["maxapplications"] = queue.max_applications
    if queue.admin_acl is not None:
        out["adminacl"] = queue.admin_acl
    if queue.submit_acl is not None:
        out["submitacl"] = queue.submit_acl
    if queue.properties:
        out["properties"] = dict(queue.properties)
    if queue.resources is not None:
        out["resources"] = resources_document(queue.resources)
    if queue.child_template is not None:
        out["childtemplate"] = template_document(queue.child_template)
    if queue.limits and not skip_limits:
        out["limits"] = [_limit(limit) for limit in queue.limits]
    if queue.children:
        out["queues"] = [_queue(child) for child in queue.children]
    return out


def resources_document(resources: Resources) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if resources.guaranteed:
        out["guaranteed"] = _texts(resources.guaranteed)
    if resources.max:
        out["max"] = _texts(resources.max)
    return out


def _texts(values: Mapping[str, str]) -> dict[str, str]:
    return {kind: str(text) for kind, text in values.items()}


def template_document(template: ChildTemplate) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if template.max_applications:
        out["maxapplications"] = template.max_applications
    if template.properties:
        out["properties"] = dict(template.properties)
    if template.resources is not None:
        out["resources"] = resources_document(template.resources)
    return out


def _limit(limit: Limit) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if limit.description is not None:
        out["limit"] = limit.description
    if limit.users:
        out["users"] = list(limit.users)
    if limit.groups:
        out["groups"] = list(limit.groups)
    if limit.max_resources:
        out["maxresources"] = _texts(limit.max_resources)
    if limit.max_applications:
        out["maxapplications"] = limit.max_applications
    return out


def _rule(rule: PlacementRule) -> dict[str, Any]:
    out: dict[str, Any] = {"name": rule.name}
    if rule.create:
        out["create"] = True
    if rule.filter is not None:
        rule_filter: dict[str, Any] = {}
        if rule.filter.type:
            rule_filter["type"] = rule.filter.type
        if rule.filter.users:
            rule_filter["users"] = list(rule.filter.users)
        if rule.filter.groups:
            rule_filter["groups"] = list(rule.filter.groups)
        out["filter"] = rule_filter
    if rule.parent is not None:
        out["parent"] = _rule(rule.parent)
    if rule.value:
        out["value"] = rule.value
    return out
