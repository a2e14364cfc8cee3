"""Reads of the live views: what a live scope holds (its snapshot, in the REST shapes, and what
changed since a point), usage trends and the over-limit list.

Updates are built only from what the engine's change log names, so their cost follows what
changed, not how many users there are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from quotaweb.allocations.selectors import events_after
from quotaweb.api.selectors import partition_queues
from quotaweb.engine.gateway import engines_get
from quotaweb.usage.models import OverLimit, UsageSample
from quotaweb.usage.scopes import Scope


def scope_snapshot(*, partition: str, scope: Scope) -> Any:
    gateway = engines_get()
    if scope.kind == "users":
        return gateway.users_usage(partition)
    if scope.kind == "groups":
        return gateway.groups_usage(partition)
    if scope.kind == "user":
        return gateway.user_usage(partition, scope.name)
    if scope.kind == "group":
        return gateway.group_usage(partition, scope.name)
    if scope.kind == "queues":
        return partition_queues(partition=partition)
    return events_after(partition=partition, after=0)["events"]


@dataclass
class Delta:
    """What changed in a partition after a point: names from the change log, new events."""

    engine_seq: int
    events_seq: int
    users: frozenset[str] = frozenset()
    groups: frozenset[str] = frozenset()
    queues: frozenset[str] = frozenset()
    events: list[dict[str, Any]] = field(default_factory=list)
    reset: bool = False


def partition_delta(*, partition: str, engine_seq: int, events_seq: int) -> Delta:
    gateway = engines_get()
    changes = gateway.changes_since(partition, engine_seq)
    events, last, _ = gateway.events(partition, after=events_seq, limit=1000)
    return Delta(
        engine_seq=changes.seq, events_seq=last, users=changes.users, groups=changes.groups,
        queues=changes.queues, events=events, reset=changes.reset,
    )


def scope_update(
    *, partition: str, scope: Scope, delta: Delta
) -> tuple[list[Any], list[str]] | None:
    """``(changed, removed)`` for one scope, or None when the delta does not touch it."""
    gateway = engines_get()
    if scope.kind in ("users", "user"):
        names = delta.users if scope.kind == "users" else delta.users & {scope.name}
        return _objects(names, lambda name: gateway.user_usage(partition, name))
    if scope.kind in ("groups", "group"):
        names = delta.groups if scope.kind == "groups" else delta.groups & {scope.name}
        return _objects(names, lambda name: gateway.group_usage(partition, name))
    if scope.kind == "queues":
        if not delta.queues:
            return None
        changed = [
            {key: value for key, value in node.items() if key != "children"}
            for node in _walk(partition_queues(partition=partition))
            if node["queuename"] in delta.queues
        ]
        return changed, []
    return (delta.events, []) if delta.events else None


def _objects(names, read) -> tuple[list[Any], list[str]] | None:
    if not names:
        return None
    changed, removed = [], []
    for name in sorted(names):
        found = read(name)
        if found is None:
            removed.append(name)
        else:
            changed.append(found)
    return changed, removed


def _walk(node: dict[str, Any]):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.get("children", ()))


# -- trends and the over-limit list (sampled by quotaweb.usage.services) ---------------------------


def usage_trend(
    *, partition: str, kind: str, name: str, since: datetime | None = None
) -> list[dict[str, Any]]:
    """The samples of one user, group or queue, oldest first: ``{at, resource, running}``."""
    rows = UsageSample.objects.filter(partition=partition, kind=kind, name=name)
    if since is not None:
        rows = rows.filter(at__gte=since)
    return [
        {"at": at, "resource": resource, "running": running}
        for at, resource, running in rows.order_by("at").values_list(
            "at", "resource", "running_applications"
        )
    ]


def trend_csv_rows(samples: list[dict[str, Any]]) -> list[list[str]]:
    """A header and one row per sample, a column per resource type (base units)."""
    kinds = sorted({kind for sample in samples for kind in sample["resource"]})
    rows = [["time", *kinds, "running_applications"]]
    rows.extend(
        [sample["at"].isoformat(), *(str(sample["resource"].get(k, 0)) for k in kinds),
         str(sample["running"])]
        for sample in samples
    )
    return rows


def over_limit_list(*, partition: str) -> list[Any]:
    """Who sits above a limit now, longest first (as of the last sample)."""
    return list(OverLimit.objects.filter(partition=partition).order_by("since", "name"))
