"""What a live scope holds: its snapshot (the REST shapes), and what changed since a point.

Snapshots are the ``/ws/v1/`` and events reads. Updates are built only from what the engine's
change log names, so their cost follows what changed, not how many users there are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quotaweb.allocations.selectors import events_after
from quotaweb.api.selectors import partition_queues
from quotaweb.engine.gateway import engines_get
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
