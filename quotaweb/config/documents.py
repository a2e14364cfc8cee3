"""Conversions between the ``trackers`` model, database rows and the YAML document as a dict.

The document dict uses the spellings of ``trackers.dump_config`` (``maxapplications``,
``resources.max`` ...), so edits can work on it and ``yaml`` can write it for the validator.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from trackers import dump_config
from trackers.config.dump import template_document
from trackers.config.model import Config, Limit, Partition, Queue

# -- model -> row values ----------------------------------------------------------------------


def limit_values(limit: Limit) -> dict[str, Any]:
    """A limit entry as ``LimitEntry`` field values."""
    return {
        "description": limit.description,
        "users": list(limit.users),
        "groups": list(limit.groups),
        "max_resources": dict(limit.max_resources),
        "max_applications": limit.max_applications,
    }


def queue_values(queue: Queue) -> dict[str, Any]:
    """A queue's own settings (no children, no limits) as ``Queue`` field values."""
    return {
        "name": queue.name,
        "has_resources": queue.resources is not None,
        "guaranteed": dict(queue.guaranteed),
        "max": dict(queue.max),
        "max_applications": queue.max_applications,
        "properties": dict(queue.properties),
        "admin_acl": queue.admin_acl,
        "submit_acl": queue.submit_acl,
        "is_parent": queue.parent,
        "child_template": (
            template_document(queue.child_template) if queue.child_template is not None else None
        ),
    }


def partition_settings(partition: Partition) -> dict[str, Any]:
    """The partition keys that are neither queues nor limits, in document spelling."""
    # dump_config already knows how to spell placement rules, preemption and the rest; writing a
    # copy of that here would be a second place to keep in step with the spec.
    bare = Partition(
        name=partition.name,
        root=Queue(name="root", path="root"),
        placement_rules=partition.placement_rules,
        preemption=partition.preemption,
        node_sort_policy=partition.node_sort_policy,
        user_group_resolver=partition.user_group_resolver,
    )
    written = yaml.safe_load(dump_config(Config(partitions=(bare,))))["partitions"][0]
    return {key: value for key, value in written.items() if key not in ("name", "queues")}


# -- row values -> document ---------------------------------------------------------------------


def limit_document(values: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if values.get("description") is not None:
        out["limit"] = values["description"]
    if values.get("users"):
        out["users"] = list(values["users"])
    if values.get("groups"):
        out["groups"] = list(values["groups"])
    if values.get("max_resources"):
        out["maxresources"] = dict(values["max_resources"])
    if values.get("max_applications"):
        out["maxapplications"] = values["max_applications"]
    return out


def queue_document(values: Mapping[str, Any], *, is_root: bool) -> dict[str, Any]:
    """A queue's own keys, without ``queues`` and ``limits`` (the caller adds those)."""
    out: dict[str, Any] = {"name": values["name"]}
    if values.get("is_parent") is not None and not is_root:
        out["parent"] = values["is_parent"]
    if values.get("max_applications"):
        out["maxapplications"] = values["max_applications"]
    if values.get("admin_acl") is not None:
        out["adminacl"] = values["admin_acl"]
    if values.get("submit_acl") is not None:
        out["submitacl"] = values["submit_acl"]
    if values.get("properties"):
        out["properties"] = dict(values["properties"])
    if values.get("has_resources"):
        resources: dict[str, Any] = {}
        if values.get("guaranteed"):
            resources["guaranteed"] = dict(values["guaranteed"])
        if values.get("max"):
            resources["max"] = dict(values["max"])
        out["resources"] = resources
    if values.get("child_template") is not None:
        out["childtemplate"] = values["child_template"]
    return out


def partition_document(
    *, name: str, settings: Mapping[str, Any], limits: list[dict], root: dict[str, Any]
) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, **settings}
    if limits:
        out["limits"] = limits
        # The loader copies partition limits to a root without limits of its own (S3): write them
        # once, like dump_config, so parsing gives back the same model.
        if root.get("limits") == limits:
            del root["limits"]
    out["queues"] = [root]
    return out


def config_document(config: Config) -> dict[str, Any]:
    """A model as a root-explicit document dict, laid out like ``config_document_from_rows``
    (the rows hold exactly the active model, so both give the same document)."""
    partitions = []
    for partition in config.partitions:
        docs: dict[int, dict[str, Any]] = {}
        for queue in partition.queues():
            # Parents come first: a child fills the placeholder its parent already listed.
            doc = docs.setdefault(id(queue), {})
            doc.update(queue_document(queue_values(queue), is_root=queue is partition.root))
            if queue.limits:
                doc["limits"] = [limit_document(limit_values(limit)) for limit in queue.limits]
            if queue.children:
                doc["queues"] = [docs.setdefault(id(child), {}) for child in queue.children]
        partitions.append(
            partition_document(
                name=partition.name, settings=partition_settings(partition),
                limits=[limit_document(limit_values(limit)) for limit in partition.limits],
                root=docs[id(partition.root)],
            )
        )
    return {"partitions": partitions}


