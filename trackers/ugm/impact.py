"""Who sits above a limit: usage judged against a partition's limits the way the engine judges an
increase (a user's named limit, else the user wildcard; a named group; the group wildcard for
applications tracked against ``*``).

Used for the impact of a candidate configuration before it is applied, and for the list of who
is above a limit now. Nothing is evicted by a tighter limit: whoever is listed just cannot grow
until back under it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any

from trackers.config.model import Partition
from trackers.ugm.limits import Cap, LimitTable


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
        found.extend(_over(name, "user", user["userName"], user["queues"],
                           partial(table.user_cap, user["userName"])))
    for group in groups:
        found.extend(_over(name, "group", group["groupName"], group["queues"],
                           partial(table.group_cap, group["groupName"])))
    return found


def _over(
    partition: str, kind: str, name: str, tree: dict[str, Any],
    cap_at: Callable[[str], Cap | None],
) -> Iterator[dict[str, Any]]:
    stack = [tree]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.get("children", ())))
        usage = node.get("resourceUsage", {})
        running = len(node.get("runningApplications", ()))
        if not usage and not running:
            continue
        cap = cap_at(node["queuePath"])
        if cap is None:
            continue
        limit, max_apps = cap
        over_resources = limit is not None and any(
            usage.get(resource, 0) > value for resource, value in limit.items()
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
