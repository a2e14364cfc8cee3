"""The active configuration read back from the database rows, for tests that check the rows
hold exactly the active version (the product itself always reads a version's YAML)."""

from __future__ import annotations

from typing import Any

from quotaweb.config.documents import limit_document, partition_document, queue_document
from quotaweb.config.models import LimitEntry, Partition, Queue
from trackers import parse_config
from trackers.config import write_yaml
from trackers.config.model import Config

_QUEUE_FIELDS = (
    "id", "partition_id", "parent_id", "name", "has_resources", "guaranteed", "max",
    "max_applications", "properties", "admin_acl", "submit_acl", "is_parent", "child_template",
)
_LIMIT_FIELDS = (
    "queue_id", "description", "users", "groups", "max_resources", "max_applications",
)


def config_document_from_rows() -> dict[str, Any]:
    """The active configuration as a root-explicit document dict, built from the rows.

    Three queries whatever the size: queues and limits are stitched together in memory.
    """
    docs: dict[int, dict[str, Any]] = {}
    roots: dict[int, dict[str, Any]] = {}
    queues = Queue.objects.order_by("order", "id").values(*_QUEUE_FIELDS)
    children: list[tuple[int, dict[str, Any]]] = []
    for row in queues:
        is_root = row["parent_id"] is None
        doc = docs[row["id"]] = queue_document(row, is_root=is_root)
        if is_root:
            roots[row["partition_id"]] = doc
        else:
            children.append((row["parent_id"], doc))
    # Limits before children in every queue, as dump_config writes them.
    for row in LimitEntry.objects.order_by("order", "id").values(*_LIMIT_FIELDS):
        docs[row["queue_id"]].setdefault("limits", []).append(limit_document(row))
    for parent_id, doc in children:
        docs[parent_id].setdefault("queues", []).append(doc)
    partitions = [
        partition_document(
            name=row["name"], settings=row["settings"],
            limits=[limit_document(values) for values in row["limits"]],
            root=roots[row["id"]],
        )
        for row in Partition.objects.order_by("order").values("id", "name", "settings", "limits")
    ]
    return {"partitions": partitions}


def config_from_rows() -> Config:
    """The active configuration model, read back from the rows (raises if none is stored)."""
    return parse_config(write_yaml(config_document_from_rows()))
