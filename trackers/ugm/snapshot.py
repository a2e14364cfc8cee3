"""The engine's state in the REST shapes of spec section 3.

Empty fields are left out as YuniKorn's ``omitempty`` does; lists and children are sorted so that
answers are stable. Limits are looked up from the table at snapshot time: a tracker stores usage
only, which is why a config switch never has to touch it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from trackers.ugm.limits import Cap, LimitTable
from trackers.ugm.tracker import Node, Tracker, UserTracker


def _parent(path: str) -> str:
    return path.rpartition(".")[0]


def _with_ancestors(paths: Iterable[str], into: set[str]) -> None:
    for path in paths:
        while path and path not in into:
            into.add(path)
            path = _parent(path)


def _children_of(paths: set[str]) -> dict[str, list[str]]:
    children: dict[str, list[str]] = {}
    for path in sorted(paths):
        if path != "root":
            children.setdefault(_parent(path), []).append(path)
    return children


def tracker_tree(
    tracker: Tracker | UserTracker | None,
    limit_paths: Iterable[str],
    cap_at: Callable[[str], Cap | None],
) -> dict[str, Any]:
    """The ``queues`` node of a user or group object: paths with usage plus paths with a limit.

    One pass over the paths in sorted order: a parent sorts before its descendants, so it is
    built before them, and each child list comes out sorted by path.
    """
    nodes = tracker.levels() if tracker is not None else {}
    paths = set(nodes)
    _with_ancestors(limit_paths, paths)
    built: dict[str, dict[str, Any]] = {}
    for path in sorted(paths):
        out: dict[str, Any] = {"queuePath": path}
        node = nodes.get(path)
        if node is not None:
            if node:
                out["resourceUsage"] = dict(node)
            if node.apps:
                out["runningApplications"] = sorted(node.apps)
        cap = cap_at(path)
        if cap is not None:
            if cap.max_resources:
                out["maxResources"] = dict(cap.max_resources)
            if cap.max_applications:
                out["maxApplications"] = cap.max_applications
        built[path] = out
        if path != "root":
            parent = built[_parent(path)]
            if "children" in parent:
                parent["children"].append(out)
            else:
                parent["children"] = [out]
    return built["root"]


def user_object(name: str, tracker: UserTracker | None, table: LimitTable) -> dict[str, Any]:
    out: dict[str, Any] = {"userName": name}
    if tracker is not None:
        linked = {app: group for app, group in sorted(tracker.links.items()) if group is not None}
        if linked:
            out["groups"] = linked
    levels = table.levels

    def cap_at(path: str) -> Cap | None:
        level = levels.get(path)
        if level is None:
            return None
        return level.users.get(name) or level.user_wildcard

    out["queues"] = tracker_tree(tracker, table.named_user_paths.get(name, ()), cap_at)
    return out


def group_object(name: str, tracker: Tracker | None, table: LimitTable) -> dict[str, Any]:
    out: dict[str, Any] = {"groupName": name}
    if tracker is not None and tracker.links:
        out["applications"] = sorted(tracker.links)
    out["queues"] = tracker_tree(
        tracker, table.named_group_paths.get(name, ()), lambda path: table.group_cap(name, path)
    )
    return out


def queue_tree(tracker: Tracker, table: LimitTable) -> dict[str, Any]:
    """The partition's queues (configured ones, and dynamic ones while they have usage)."""
    nodes = tracker.nodes
    paths = set(table.queues)
    _with_ancestors(nodes, paths)
    paths.add("root")
    children = _children_of(paths)

    def build(path: str) -> dict[str, Any]:
        node = nodes.get(path)
        settings = table.queues.get(path)
        out: dict[str, Any] = {"queuename": path}
        if settings is not None:
            if settings.max_resources:
                out["maxResource"] = dict(settings.max_resources)
            if settings.guaranteed:
                out["guaranteedResource"] = dict(settings.guaranteed)
        if node:
            out["allocatedResource"] = dict(node)
        if settings is not None and settings.max_applications:
            out["maxRunningApps"] = settings.max_applications
        out["runningApps"] = len(node.apps) if node is not None else 0
        if settings is not None and settings.properties:
            out["properties"] = dict(settings.properties)
        kids = children.get(path)
        if kids:
            out["children"] = [build(kid) for kid in kids]
        return out

    return build("root")


class QueueRow(NamedTuple):
    """A queue level with usage or running applications: its usage and how many run."""

    path: str
    usage: dict[str, int]
    running: int


class UsageRows(NamedTuple):
    """Everything in use in a partition (``Engine.usage_rows``). ``users`` and ``groups``: the
    objects ``over_limits`` judges (``userName`` or ``groupName``, and ``queues``: the levels
    with usage or running applications, no limits), sorted by name; ``queues``: the queue levels
    in use, sorted by path."""

    users: list[dict[str, Any]]
    groups: list[dict[str, Any]]
    queues: list[QueueRow]


def _no_cap(path: str) -> Cap | None:
    """Usage trees for judging carry no caps: ``judged`` looks them up in the table itself."""
    return None


def detached(name: str, tracker: Tracker | UserTracker) -> Tracker | None:
    """A copy of a user's or group's levels (None when it has none), cheap enough to take under
    the engine's lock, so that its tree is built outside it (``usage_tree``): the group
    wildcard's levels may span every queue in use."""
    if tracker.empty:
        return None
    copy = Tracker(name)
    if isinstance(tracker, UserTracker):
        copy.nodes = tracker.levels()  # summed into new nodes on every call
    else:
        copy.nodes = {path: _node_copy(node) for path, node in tracker.nodes.items()}
    return copy


def _node_copy(node: Node) -> Node:
    copy = Node()
    copy.update(node)
    copy.apps = set(node.apps)
    return copy


def usage_tree(key: str, tracker: Tracker) -> dict[str, Any]:
    """A user's or group's usage as ``judged`` reads it (``key``: its name)."""
    return {key: tracker.name, "queues": tracker_tree(tracker, (), _no_cap)}


def queue_row(path: str, node: Node) -> QueueRow | None:
    """A queue level's row, None for a level kept only for the levels below it."""
    if not (node or node.apps):
        return None
    return QueueRow(path, dict(node), len(node.apps))
