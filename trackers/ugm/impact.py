"""Who sits above a limit: usage judged against a partition's limits the way the engine judges an
increase (a user's named limit, else the user wildcard; a named group; the group wildcard for
applications tracked against ``*``).

Used for the impact of a candidate configuration before it is applied, and for the list of who
is above a limit now. Nothing is evicted by a tighter limit: whoever is listed just cannot grow
until back under it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from typing import Any

from trackers.config.model import Partition
from trackers.ugm.limits import Cap, LimitTable
from trackers.ugm.tracker import Node, Tracker


def over_limits(
    partition: Partition, *, users: Iterable[dict[str, Any]], groups: Iterable[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Every queue where a user or group of ``users``/``groups`` (user and group objects as
    ``Engine.users_usage`` and ``Engine.groups_usage`` give them) uses more than a limit of
    ``partition`` allows, or runs more applications: ``{partition, kind, name, queuePath, usage,
    limit, runningApplications, maxApplications}`` each, users first, each tree root first."""
    return judged(partition.name, LimitTable(partition), users=users, groups=groups)


def judged(
    name: str, table: LimitTable, *, users: Iterable[dict[str, Any]],
    groups: Iterable[dict[str, Any]],
) -> list[dict[str, Any]]:
    """``over_limits`` with limits already compiled (an engine's own, in force)."""
    found: list[dict[str, Any]] = []
    for user in users:
        found.extend(_over(name, "user", user["userName"], _tree_levels(user["queues"]),
                           partial(table.user_cap, user["userName"])))
    for group in groups:
        found.extend(_over(name, "group", group["groupName"], _tree_levels(group["queues"]),
                           partial(table.group_cap, group["groupName"])))
    return found


def judged_trackers(
    name: str, table: LimitTable, *, users: Iterable[Tracker], groups: Iterable[Tracker]
) -> list[dict[str, Any]]:
    """``judged`` for trackers' levels (``snapshot.detached`` copies), read as they are: at
    10,000 users, building their usage trees first was most of a write's impact."""
    found: list[dict[str, Any]] = []
    for user in users:
        found.extend(_over(name, "user", user.name, _node_levels(user.nodes),
                           partial(table.user_cap, user.name)))
    for group in groups:
        found.extend(_over(name, "group", group.name, _node_levels(group.nodes),
                           partial(table.group_cap, group.name)))
    return found


# A level to judge: its path, usage and running applications, each tree root first and then
# depth first, siblings by path (the order of ``snapshot.tracker_tree``'s trees).
_Level = tuple[str, Mapping[str, int], int]


def _tree_levels(tree: dict[str, Any]) -> Iterator[_Level]:
    stack = [tree]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.get("children", ())))
        yield (node["queuePath"], node.get("resourceUsage", {}),
               len(node.get("runningApplications", ())))


def _node_levels(nodes: Mapping[str, Node]) -> Iterator[_Level]:
    for path in sorted(nodes, key=_segments):
        node = nodes[path]
        yield path, node, len(node.apps)


def _segments(path: str) -> list[str]:
    return path.split(".")


def _over(
    partition: str, kind: str, name: str, levels: Iterable[_Level],
    cap_at: Callable[[str], Cap | None],
) -> Iterator[dict[str, Any]]:
    for path, usage, running in levels:
        if not usage and not running:
            continue
        cap = cap_at(path)
        if cap is None:
            continue
        limit, max_apps = cap
        over = bool(max_apps) and running > max_apps
        if not over and limit is not None:
            for resource, value in limit.items():
                if usage.get(resource, 0) > value:
                    over = True
                    break
        if over:
            yield {
                "partition": partition,
                "kind": kind,
                "name": name,
                "queuePath": path,
                "usage": dict(usage),
                "limit": dict(limit) if limit else None,
                "runningApplications": running,
                "maxApplications": max_apps,
            }
