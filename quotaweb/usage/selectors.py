"""Reads of the live views: what a live scope holds (its snapshot, in the REST shapes, and what
changed since a point), usage trends and the over-limit list.

Updates are built only from what the engine's change log names, so their cost follows what
changed, not how many users there are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from quotaweb.config.queue_tree import partition_queues
from quotaweb.elastic.selectors import elastic_view
from quotaweb.engine.gateway import engines_get
from quotaweb.quotatrees.selectors import tree_feed, tree_live, tree_marks
from quotaweb.usage.models import OverLimit, UsageSample
from quotaweb.usage.scopes import Scope
from trackers.resources import base_unit

# At most this many new events per update: the feed shows what happens now, and at thousands of
# allocations a second a page cannot show more anyway.
EVENTS_PER_UPDATE = 100
EVENTS_SNAPSHOT = 200


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
    if scope.kind == "queue":
        return queue_level_nodes(partition=partition, path=scope.name)
    if scope.kind == "elastic":
        return elastic_view(partition=partition)
    if scope.kind == "tree":
        return tree_live(tree=scope.name)
    # The newest events, as the feed shows them (the oldest kept could be hours old).
    return gateway.events_newest(partition, after=0, limit=EVENTS_SNAPSHOT)[0]


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
    # Elastic quota's computation number before and after this delta (equal: no change).
    elastic_from: int = 0
    elastic_to: int = 0
    # Watched quota trees -> (change number, feed number) now (``tree_marks``).
    trees: dict[str, tuple[int, int]] = field(default_factory=dict)


def partition_delta(
    *, partition: str, engine_seq: int, events_seq: int, with_events: bool = True,
    elastic_generation: int | None = None, trees: list[str] | None = None,
) -> Delta:
    """What changed after the marks given; with ``elastic_generation`` (someone watches the
    elastic scope) elastic quota is brought up to date first and its new number given."""
    gateway = engines_get()
    elastic_to = 0
    if elastic_generation is not None:
        state = gateway.elastic(partition)
        state.refresh()
        elastic_to = state.generation
    changes = gateway.changes_since(partition, engine_seq)
    events, last = gateway.events_newest(
        partition, after=events_seq, limit=EVENTS_PER_UPDATE if with_events else 0
    )
    return Delta(
        engine_seq=changes.seq, events_seq=last, users=changes.users, groups=changes.groups,
        queues=changes.queues, events=events, reset=changes.reset,
        elastic_from=elastic_generation or 0, elastic_to=elastic_to,
        trees=tree_marks(trees=trees) if trees else {},
    )


def partition_updates(
    *, partition: str, scopes: list[Scope], delta: Delta,
    tree_marks_sent: dict[str, tuple[int, int]] | None = None,
) -> list[tuple[Scope, dict[str, Any]]]:
    """The message for each scope the delta touches: an ``update`` with only what changed, or
    after a config switch (``reset``) a fresh ``snapshot``. Each user, group and the queue
    tree are read once per call, however many scopes show them. A quota tree scope gets an
    update when its tree or its feed moved past ``tree_marks_sent`` (what its last message
    showed): the tree's nodes when the tree changed, and the new feed entries."""
    gateway = engines_get()
    # Every object any scope needs, read under one hold of the engine's lock per kind: one
    # call per user would queue behind each batch of allocations in turn.
    user_names: set[str] = set()
    group_names: set[str] = set()
    for scope in scopes:
        if scope.kind == "users":
            user_names |= delta.users
        elif scope.kind == "user" and scope.name in delta.users:
            user_names.add(scope.name)
        elif scope.kind == "groups":
            group_names |= delta.groups
        elif scope.kind == "group" and scope.name in delta.groups:
            group_names.add(scope.name)
    users = gateway.users_usage_of(partition, user_names) if user_names else {}
    groups = gateway.groups_usage_of(partition, group_names) if group_names else {}
    queues: list[dict[str, Any]] = []

    out = []
    for scope in scopes:
        if scope.kind == "tree":
            message = _tree_update(scope, delta, (tree_marks_sent or {}).get(scope.name))
            if message is not None:
                out.append((scope, message))
            continue
        if delta.reset and scope.kind != "events":
            data = scope_snapshot(partition=partition, scope=scope)
            out.append((scope, {"type": "snapshot", "scope": scope.text, "data": data}))
            continue
        if scope.kind in ("users", "user"):
            found = _objects(delta.users if scope.kind == "users" else
                             delta.users & {scope.name}, users.get)
        elif scope.kind in ("groups", "group"):
            found = _objects(delta.groups if scope.kind == "groups" else
                             delta.groups & {scope.name}, groups.get)
        elif scope.kind == "elastic":
            found = None
            if delta.elastic_to > delta.elastic_from:
                view = elastic_view(partition=partition, since=delta.elastic_from)
                changed = view.pop("queues")
                out.append((scope, {"type": "update", "scope": scope.text, "changed": changed,
                                    "removed": [], "partition": view}))
        elif scope.kind in ("queues", "queue"):
            if delta.queues and not queues:
                queues = [
                    {key: value for key, value in node.items() if key != "children"}
                    for node in _walk(partition_queues(partition=partition))
                    if node["queuename"] in delta.queues
                ]
            if scope.kind == "queue":
                mine = [node for node in queues if _in_level(node["queuename"], scope.name)]
                found = (mine, []) if mine else None
            else:
                found = (queues, []) if delta.queues else None
        else:
            found = (delta.events, []) if delta.events else None
        if found is not None:
            changed, removed = found
            out.append((scope, {"type": "update", "scope": scope.text, "changed": changed,
                                "removed": removed}))
    return out


def _tree_update(
    scope: Scope, delta: Delta, sent: tuple[int, int] | None
) -> dict[str, Any] | None:
    now = delta.trees.get(scope.name)
    if now is None or sent is None or now == sent:
        return None
    live = tree_live(tree=scope.name)
    if live is None:
        return {"type": "snapshot", "scope": scope.text, "data": None}
    changed = live["tree"]["nodes"] if now[0] != sent[0] else []
    return {"type": "update", "scope": scope.text, "changed": changed, "removed": [],
            "tree": {key: value for key, value in live["tree"].items() if key != "nodes"},
            "events": tree_feed(tree=scope.name, after=sent[1])}


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


def queue_level_nodes(*, partition: str, path: str) -> list[dict[str, Any]]:
    """What the scope ``queue:<path>`` holds: the queue and its children, without their own
    children (empty when the queue is not there: a configuration switch removed it)."""
    for node in _walk(partition_queues(partition=partition)):
        if node["queuename"] == path:
            return [{key: value for key, value in level.items() if key != "children"}
                    for level in (node, *node.get("children", ()))]
    return []


def _in_level(queue: str, path: str) -> bool:
    return queue == path or queue.rpartition(".")[0] == path


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


def trend_csv_column(kind: str) -> str:
    """A resource's CSV header with the unit of its raw integers (``memory_bytes``,
    ``vcore_millicores``, ``nvidia.com/gpu_count``): a bare ``vcore`` over 38500 read as 38,500
    cores where the page said 38.5."""
    unit = base_unit(kind).strip() or "count"
    return f"{kind}_{unit}"


def trend_csv_rows(samples: list[dict[str, Any]]) -> list[list[str]]:
    """A header and one row per sample, a column per resource type (exact integers in base
    units, the unit in the header)."""
    kinds = sorted({kind for sample in samples for kind in sample["resource"]})
    rows = [["time", *map(trend_csv_column, kinds), "running_applications"]]
    rows.extend(
        [sample["at"].isoformat(), *(str(sample["resource"].get(k, 0)) for k in kinds),
         str(sample["running"])]
        for sample in samples
    )
    return rows


def over_limit_list(*, partition: str) -> list[Any]:
    """Who sits above a limit now, longest first (as of the last sample)."""
    return list(OverLimit.objects.filter(partition=partition).order_by("since", "name"))
