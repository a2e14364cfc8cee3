"""Reads of the configuration: the active version, the rows as a document, diffs and impact."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.db.models import QuerySet

from quotaweb.config.documents import (
    document_yaml,
    limit_document,
    limit_values,
    partition_document,
    partition_settings,
    queue_document,
    queue_values,
)
from quotaweb.config.models import ActiveConfig, ConfigVersion, LimitEntry, Partition, Queue
from quotaweb.engine.gateway import engines_get, engines_loaded
from trackers import parse_config
from trackers.config.model import Config
from trackers.config.model import Partition as PartitionModel
from trackers.ugm.limits import Cap, LimitTable

_QUEUE_FIELDS = (
    "id", "partition_id", "parent_id", "name", "has_resources", "guaranteed", "max",
    "max_applications", "properties", "admin_acl", "submit_acl", "is_parent", "child_template",
)
_LIMIT_FIELDS = (
    "queue_id", "description", "users", "groups", "max_resources", "max_applications",
)
# The key path of a queue inside the document: ``partitions[0].queues[0].queues[2]``.
_QUEUE_KEY_PATH = re.compile(r"^partitions\[\d+\](?:\.queues\[\d+\])*\.?")


def active_version_number() -> int | None:
    return ActiveConfig.objects.filter(pk=1).values_list("version_id", flat=True).first()


def active_version() -> ConfigVersion | None:
    number = active_version_number()
    return None if number is None else ConfigVersion.objects.get(number=number)


def version_get(*, number: int) -> ConfigVersion:
    """The version with that number; ``ConfigVersion.DoesNotExist`` when there is none."""
    return ConfigVersion.objects.get(number=number)


def versions_list() -> QuerySet[ConfigVersion]:
    """Every version, newest first."""
    return ConfigVersion.objects.select_related("author").order_by("-number")


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
    return parse_config(document_yaml(config_document_from_rows()))


# -- diff --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConfigDiff:
    """``unified``: a unified diff of the YAML texts; ``changes``: what changed, by queue/limit."""

    unified: str
    changes: list[dict[str, Any]]


def config_diff(
    *, old: str, new: str, old_label: str = "old", new_label: str = "new"
) -> ConfigDiff:
    """Compare two valid YAML documents (two versions' ``yaml``, or a version and a candidate)."""
    unified = "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True),
            fromfile=old_label, tofile=new_label,
        )
    )
    return ConfigDiff(
        unified=unified, changes=config_changes(old=parse_config(old), new=parse_config(new))
    )


def config_changes(*, old: Config, new: Config) -> list[dict[str, Any]]:
    """Partitions, queues and limit entries that were added, removed or changed.

    Each entry: ``{"kind": "partition"|"queue"|"limit", "change": "added"|"removed"|"changed",
    "partition", "queuePath" (queues, limits), "index" (limits), "old", "new"}`` where old/new
    are the values in the rows' spelling (``None`` for the side where it does not exist).
    """
    changes: list[dict[str, Any]] = []
    old_partitions = {p.name: p for p in old.partitions}
    new_partitions = {p.name: p for p in new.partitions}
    for name in _union(old_partitions, new_partitions):
        before, after = old_partitions.get(name), new_partitions.get(name)
        old_values = _partition_values(before) if before else None
        new_values = _partition_values(after) if after else None
        if old_values != new_values:
            changes.append(
                _change("partition", old_values, new_values, partition=name)
            )
        changes.extend(_queue_changes(name, before, after))
    return changes


def _union(first: dict, second: dict) -> list:
    # New order first, then what disappeared, so a diff reads like the new document.
    return list(second) + [key for key in first if key not in second]


def _change(kind: str, old: Any, new: Any, **where: Any) -> dict[str, Any]:
    change = "added" if old is None else "removed" if new is None else "changed"
    return {"kind": kind, "change": change, **where, "old": old, "new": new}


def _partition_values(partition: PartitionModel) -> dict[str, Any]:
    return {
        "settings": partition_settings(partition),
        "limits": [limit_values(limit) for limit in partition.limits],
    }


def _queue_changes(
    partition: str, old: PartitionModel | None, new: PartitionModel | None
) -> Iterable[dict[str, Any]]:
    old_queues = {q.path: q for q in old.queues()} if old else {}
    new_queues = {q.path: q for q in new.queues()} if new else {}
    for path in _union(old_queues, new_queues):
        before, after = old_queues.get(path), new_queues.get(path)
        old_values = queue_values(before) if before else None
        new_values = queue_values(after) if after else None
        if old_values != new_values:
            yield _change("queue", old_values, new_values, partition=partition, queuePath=path)
        old_limits = before.limits if before else ()
        new_limits = after.limits if after else ()
        for index in range(max(len(old_limits), len(new_limits))):
            old_limit = limit_values(old_limits[index]) if index < len(old_limits) else None
            new_limit = limit_values(new_limits[index]) if index < len(new_limits) else None
            if old_limit != new_limit:
                yield _change(
                    "limit", old_limit, new_limit, partition=partition, queuePath=path,
                    index=index,
                )


# -- impact ------------------------------------------------------------------------------------


def config_impact(*, candidate: Config) -> list[dict[str, Any]]:
    """Users and groups whose current usage or running applications exceed a candidate limit.

    Reads the engines' current trackers and judges every level with the candidate's limits the way
    the engine will (``LimitTable``: a user's named limit, else the user wildcard; a named group;
    the group wildcard for applications tracked against ``*``). Nothing is evicted by a tighter
    limit; the listed users and groups just cannot grow until they are back under it.
    """
    if not engines_loaded():
        return []
    gateway = engines_get()
    served = set(gateway.partitions())
    impact: list[dict[str, Any]] = []
    for partition in candidate.partitions:
        if partition.name not in served:
            continue
        table = LimitTable(partition)
        for user in gateway.users_usage(partition.name):
            name = user["userName"]
            cap_at = partial(table.user_cap, name)
            impact.extend(_over(partition.name, "user", name, user["queues"], cap_at))
        for group in gateway.groups_usage(partition.name):
            name = group["groupName"]
            cap_at = partial(table.group_cap, name)
            impact.extend(_over(partition.name, "group", name, group["queues"], cap_at))
    return impact


def _over(partition: str, kind: str, name: str, tree: dict, cap_at) -> Iterable[dict[str, Any]]:
    stack = [tree]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.get("children", ())))
        usage = node.get("resourceUsage", {})
        running = len(node.get("runningApplications", ()))
        if not usage and not running:
            continue
        cap: Cap | None = cap_at(node["queuePath"])
        if cap is None:
            continue
        limit, max_apps = cap
        over_resources = limit is not None and any(
            usage.get(kind_, 0) > value for kind_, value in limit.items()
        )
        if over_resources or (max_apps and running > max_apps):
            yield {
                "partition": partition,
                "kind": kind,
                "name": name,
                "queuePath": node["queuePath"],
                "usage": dict(usage),
                "limit": dict(limit) if limit else None,
                "runningApplications": running,
                "maxApplications": max_apps,
            }


# -- errors ------------------------------------------------------------------------------------


def errors_for_queue(errors: Iterable[dict[str, str]], *, queue_path: str) -> list[dict[str, str]]:
    """The validation errors about one queue, each with ``tail``: the field below the queue's own
    key path (``limits[0].maxresources``, ``resources.max.memory``), so a form can put it on the
    right input."""
    return [
        {**error, "tail": _QUEUE_KEY_PATH.sub("", error.get("field", ""))}
        for error in errors
        if error.get("path") == queue_path
    ]
