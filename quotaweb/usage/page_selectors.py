"""Reads for the live usage pages: each page's first state, rendered on the server.

The pages then follow the live socket (``static/js/live.js``), which recomputes the same rows
from the same REST shapes with the same rules; keep the two in step. The rules:

- A tree row's **effective limit** for a resource is the most the node could hold right now: its
  usage plus the least room left on any capped level from root down to it (the engine admits
  nothing beyond that). ``source`` is the level that leaves the least room, the node's own when
  it ties. Applications work the same way with running applications and application caps.
- An entity's **most constrained limit** is the highest share used of any cap it has, at the
  level where that cap is set (the same number the effective limits peak at).
- Bars are coloured at 60, 75 and 90 % and have a colour of their own above the limit.

Unknown partitions, users, groups and queues raise ``UsageNotFound`` (the page answers 404 with
its message); ``EngineNotLoaded`` passes through (the page answers 503 "starting").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from quotaweb.allocations.selectors import headroom_for
from quotaweb.api.selectors import partition_queues
from quotaweb.engine.gateway import Gateway, engines_get
from quotaweb.engine.live import EVENTS_KEPT
from trackers import TrackersError
from trackers.names import is_group_name, is_user_name
from trackers.resources import (
    VCORE,
    fits_headroom,
    format_quantity,
    format_resource,
    is_bytes_type,
)

ERR_PARTITION = "There is no partition {partition!r}. The configured partitions are: {known}."
ERR_NO_PARTITIONS = "The active configuration has no partitions, so there is no usage to show."
ERR_USER = (
    "User {name!r} has no usage, no running application and no limit of their own in partition "
    "{partition!r}. Users appear here once a limit names them or a scheduler reports their "
    "allocations."
)
ERR_GROUP = (
    "Group {name!r} has no usage, no running application and no limit of its own in partition "
    "{partition!r}. Groups appear here once a limit names them or applications count against them."
)
ERR_QUEUE = (
    "There is no queue {path!r} in partition {partition!r}: it is not configured and nothing "
    "runs there."
)
ERR_STARTING = (
    "The quota engines are still starting in this server, so there is no usage to show yet. "
    "Reload this page in a moment."
)

APPLICATIONS = "applications"
SORTS = ("name", "usage", "apps")
EVENT_TYPES = ("allocated", "released", "denied")
EVENTS_SHOWN = 200
# An application id no scheduler uses: "will a new application fit?" asks with it.
NEW_APPLICATION = "quotaweb:will-it-fit"


class UsageNotFound(LookupError):
    """A page asked for something that does not exist; ``str()`` says what and why."""


# -- bars ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bar:
    """Usage of one resource type (or of applications) against a limit; ``limit`` None is
    unlimited, and may be negative when a level above is already over its cap."""

    kind: str
    used: int
    limit: int | None
    source: str = ""

    @property
    def over(self) -> bool:
        return self.limit is not None and self.used > self.limit

    @property
    def ratio(self) -> float:
        """Share used; infinite when a limit of nothing is exceeded; 0 without a limit."""
        if self.limit is None:
            return 0.0
        shown = max(self.limit, 0)
        if shown > 0:
            return self.used / shown
        return math.inf if self.used > 0 or self.over else 0.0

    @property
    def level(self) -> str:
        """``ok``, ``60``, ``75``, ``90`` or ``over``: the CSS colour class ``lvl-<level>``."""
        if self.limit is None:
            return "none"
        if self.over:
            return "over"
        ratio = self.ratio
        return next((str(t) for t in (90, 75, 60) if ratio * 100 >= t), "ok")

    @property
    def width(self) -> int:
        """The fill of the bar in percent (0 to 100)."""
        if self.limit is None:
            return 0
        ratio = self.ratio
        return 100 if ratio >= 1 else max(0, math.floor(ratio * 100))

    @property
    def label(self) -> str:
        return "apps" if self.kind == APPLICATIONS else self.kind

    @property
    def text(self) -> str:
        used = _quantity(self.kind, self.used)
        if self.limit is None:
            return f"{used} · no limit"
        limit = _quantity(self.kind, max(self.limit, 0))
        if self.over:
            return f"{used} of {limit} · over by {_quantity(self.kind, self.used - self.limit)}"
        return f"{used} of {limit} · {math.floor(self.ratio * 100)} %"

    @property
    def title(self) -> str:
        """The raw numbers, for hover."""
        unit = _unit(self.kind)
        if self.limit is None:
            return f"{self.kind}: {self.used}{unit} used, no limit"
        return (
            f"{self.kind}: {self.used}{unit} used of {self.limit}{unit}, "
            f"{self.limit - self.used}{unit} left; tightest limit at {self.source}"
        )

    @property
    def sig(self) -> str:
        limit = "-" if self.limit is None else self.limit
        return f"{self.kind}={self.used}/{limit}@{self.source}"


def _quantity(kind: str, value: int) -> str:
    return str(value) if kind == APPLICATIONS else format_quantity(kind, value)


def _unit(kind: str) -> str:
    if kind == VCORE:
        return " millicores"
    return " bytes" if is_bytes_type(kind) else ""


# -- trees -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Level:
    """One node of a user, group or queue tree, whatever its REST shape."""

    path: str
    usage: Mapping[str, int]
    running: int
    cap: Mapping[str, int] | None
    max_apps: int
    apps: tuple[str, ...] = ()


def _entity_level(node: Mapping[str, Any]) -> Level:
    apps = tuple(node.get("runningApplications", ()))
    return Level(
        node["queuePath"], node.get("resourceUsage", {}), len(apps), node.get("maxResources"),
        node.get("maxApplications", 0), apps,
    )


def _queue_level(node: Mapping[str, Any]) -> Level:
    return Level(
        node["queuename"], node.get("allocatedResource", {}), node.get("runningApps", 0),
        node.get("maxResource"), node.get("maxRunningApps", 0),
    )


def _walk(root: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.get("children", ())))


def _levels(
    root: Mapping[str, Any], shape: Callable[[Mapping[str, Any]], Level]
) -> dict[str, Level]:
    return {level.path: level for level in map(shape, _walk(root))}


def _segments(path: str) -> list[str]:
    return path.split(".")


def _chain(levels: Mapping[str, Level], path: str) -> list[Level]:
    segments = _segments(path)
    prefixes = (".".join(segments[: n + 1]) for n in range(len(segments)))
    return [levels[prefix] for prefix in prefixes if prefix in levels]


def _effective(chain: list[Level], kind: str) -> Bar:
    """``chain[-1]``'s usage of ``kind`` against the least room on the chain."""
    node = chain[-1]
    is_apps = kind == APPLICATIONS
    used = node.running if is_apps else node.usage.get(kind, 0)
    best: tuple[int, str] | None = None
    for level in reversed(chain):
        if is_apps:
            if not level.max_apps:
                continue
            room = level.max_apps - level.running
        else:
            if not level.cap or kind not in level.cap:
                continue
            room = level.cap[kind] - level.usage.get(kind, 0)
        if best is None or used + room < best[0]:
            best = (used + room, level.path)
    if best is None:
        return Bar(kind, used, None)
    return Bar(kind, used, best[0], best[1])


@dataclass(frozen=True, slots=True)
class TreeRow:
    path: str
    depth: int
    bars: tuple[Bar, ...]
    apps: Bar

    @property
    def name(self) -> str:
        return self.path.rpartition(".")[2]

    @property
    def sig(self) -> str:
        return ";".join(bar.sig for bar in (*self.bars, self.apps))


def tree_row(levels: Mapping[str, Level], path: str) -> TreeRow:
    chain = _chain(levels, path)
    kinds = set(chain[-1].usage)
    for level in chain:
        kinds.update(level.cap or ())
    bars = tuple(_effective(chain, kind) for kind in sorted(kinds))
    return TreeRow(path, len(_segments(path)) - 1, bars, _effective(chain, APPLICATIONS))


def _rows(levels: Mapping[str, Level]) -> list[TreeRow]:
    return [tree_row(levels, path) for path in sorted(levels, key=_segments)]


def most_constrained(levels: Iterable[Level]) -> Bar | None:
    """The cap with the highest share used, where it is set (first in tree order on a tie)."""
    worst: Bar | None = None
    for level in levels:
        bars = [Bar(kind, level.usage.get(kind, 0), cap, level.path)
                for kind, cap in sorted((level.cap or {}).items())]
        if level.max_apps:
            bars.append(Bar(APPLICATIONS, level.running, level.max_apps, level.path))
        for bar in bars:
            if worst is None or bar.ratio > worst.ratio:
                worst = bar
    return worst


def _ordered(levels: Mapping[str, Level]) -> list[Level]:
    return [levels[path] for path in sorted(levels, key=_segments)]


# -- shared pieces ---------------------------------------------------------------------------------


def _gateway(partition: str) -> Gateway:
    gateway = engines_get()
    known = gateway.partitions()
    if partition not in known:
        raise UsageNotFound(
            ERR_PARTITION.format(partition=partition, known=", ".join(known) or "none")
        )
    return gateway


def _page(partition: str, gateway: Gateway, **context: Any) -> dict[str, Any]:
    return {"partition": partition, "partitions": gateway.partitions(), **context}


def _queue_paths(partition: str) -> list[str]:
    return sorted((node["queuename"] for node in _walk(partition_queues(partition=partition))),
                  key=_segments)


def first_partition() -> str:
    """The partition ``/usage/`` opens (the first configured); ``UsageNotFound`` when none."""
    partitions = engines_get().partitions()
    if not partitions:
        raise UsageNotFound(ERR_NO_PARTITIONS)
    return partitions[0]


# -- the partition overview ------------------------------------------------------------------------


def partition_overview(*, partition: str) -> dict[str, Any]:
    gateway = _gateway(partition)
    levels = _levels(partition_queues(partition=partition), _queue_level)
    summary = gateway.summary(partition)
    return _page(
        partition, gateway, rows=_rows(levels), root=levels["root"],
        user_count=summary["users"], group_count=summary["groups"], scopes=["queues"],
    )


# -- users and groups ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EntityRow:
    """One user or group in a list: its most constrained limit, running apps and total usage."""

    name: str
    constrained: Bar | None
    running: int
    usage: Mapping[str, int]
    groups: tuple[str, ...]  # users: the groups their applications count against
    paths: frozenset[str]

    @property
    def usage_text(self) -> str:
        return format_resource(self.usage)

    @property
    def sig(self) -> str:
        constrained = self.constrained.sig if self.constrained else "-"
        usage = ",".join(f"{kind}={self.usage[kind]}" for kind in sorted(self.usage))
        return f"{constrained}|{self.running}|{usage}|{','.join(self.groups)}"


def _entity_row(name: str, obj: Mapping[str, Any]) -> EntityRow:
    levels = _levels(obj["queues"], _entity_level)
    root = levels["root"]
    return EntityRow(
        name=name, constrained=most_constrained(_ordered(levels)), running=root.running,
        usage=root.usage, groups=tuple(sorted(set(obj.get("groups", {}).values()))),
        paths=frozenset(levels),
    )


def _sorted_rows(rows: list[EntityRow], sort: str) -> list[EntityRow]:
    rows.sort(key=lambda row: row.name)
    if sort == "usage":
        rows.sort(key=lambda row: -(row.constrained.ratio if row.constrained else -1.0))
    elif sort == "apps":
        rows.sort(key=lambda row: -row.running)
    return rows


def _matches(row: EntityRow, *, q: str, queue: str, group: str) -> bool:
    return (
        (not q or q.lower() in row.name.lower())
        and (not queue or queue in row.paths)
        and (not group or group in row.groups)
    )


def user_list(
    *, partition: str, q: str = "", queue: str = "", group: str = "", sort: str = "name"
) -> dict[str, Any]:
    gateway = _gateway(partition)
    sort = sort if sort in SORTS else "name"
    queue = queue.lower()
    everyone = [_entity_row(obj["userName"], obj) for obj in gateway.users_usage(partition)]
    rows = [row for row in everyone if _matches(row, q=q, queue=queue, group=group)]
    return _page(
        partition, gateway, rows=_sorted_rows(rows, sort), total=len(everyone),
        filters={"q": q, "queue": queue, "group": group, "sort": sort},
        filtered=bool(q or queue or group), queue_paths=_queue_paths(partition),
        group_names=[obj["groupName"] for obj in gateway.groups_usage(partition)],
        scopes=["users"],
    )


def group_list(
    *, partition: str, q: str = "", queue: str = "", sort: str = "name"
) -> dict[str, Any]:
    gateway = _gateway(partition)
    sort = sort if sort in SORTS else "name"
    queue = queue.lower()
    everyone = [_entity_row(obj["groupName"], obj) for obj in gateway.groups_usage(partition)]
    rows = [row for row in everyone if _matches(row, q=q, queue=queue, group="")]
    return _page(
        partition, gateway, rows=_sorted_rows(rows, sort), total=len(everyone),
        filters={"q": q, "queue": queue, "sort": sort}, filtered=bool(q or queue),
        queue_paths=_queue_paths(partition), scopes=["groups"],
    )


@dataclass(frozen=True, slots=True)
class AppRow:
    """A running application: the deepest queue it runs in and the group it counts against
    (for a user), or the user it belongs to (for a group)."""

    application: str
    queue: str
    group: str | None = None
    user: str | None = None

    @property
    def sig(self) -> str:
        return f"{self.queue}|{self.group or '-'}|{self.user or '-'}"


def _app_queues(levels: Mapping[str, Level]) -> dict[str, str]:
    where: dict[str, str] = {}
    # An application runs in one leaf and every ancestor lists it too: in tree order the
    # deepest node comes last and wins.
    for level in _ordered(levels):
        for app in level.apps:
            where[app] = level.path
    return where


def user_detail(
    *, partition: str, name: str, fit: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A user's tree, applications and (when ``fit`` holds a cleaned "will it fit?" question)
    the answer, as ``fit`` or ``fit_problem`` (field, message) for a question the engine refused.
    """
    gateway = _gateway(partition)
    obj = gateway.user_usage(partition, name) if is_user_name(name) else None
    if obj is None:
        raise UsageNotFound(ERR_USER.format(name=name, partition=partition))
    levels = _levels(obj["queues"], _entity_level)
    links = obj.get("groups", {})
    apps = [AppRow(app, queue, group=links.get(app))
            for app, queue in sorted(_app_queues(levels).items())]
    context = _page(
        partition, gateway, name=name, rows=_rows(levels), apps=apps, root=levels["root"],
        groups=sorted(set(links.values())), constrained=most_constrained(_ordered(levels)),
        queue_paths=_queue_paths(partition), scopes=[f"user:{name}"],
    )
    if fit is not None:
        try:
            context["fit"] = user_fit_check(partition=partition, user=name, **fit)
        except TrackersError as error:
            # The engine refuses the question itself (a malformed queue path): say so on the field.
            context["fit_problem"] = ("queue", str(error))
    return context


@dataclass(frozen=True, slots=True)
class Member:
    user: str
    applications: tuple[str, ...]


def group_detail(*, partition: str, name: str) -> dict[str, Any]:
    gateway = _gateway(partition)
    obj = gateway.group_usage(partition, name)
    if obj is None:
        raise UsageNotFound(ERR_GROUP.format(name=name, partition=partition))
    levels = _levels(obj["queues"], _entity_level)
    members: list[Member] = []
    owners: dict[str, str] = {}
    for user in gateway.users_usage(partition):
        mine = tuple(sorted(app for app, group in user.get("groups", {}).items() if group == name))
        if mine:
            members.append(Member(user["userName"], mine))
            owners.update(dict.fromkeys(mine, user["userName"]))
    apps = [AppRow(app, queue, user=owners.get(app))
            for app, queue in sorted(_app_queues(levels).items())]
    # The group wildcard ``*`` is no valid scope name: its page follows the whole groups list.
    own_scope = f"group:{name}" if is_group_name(name) else "groups"
    return _page(
        partition, gateway, name=name, rows=_rows(levels), apps=apps, root=levels["root"],
        members=members, constrained=most_constrained(_ordered(levels)),
        scopes=[own_scope, "users"],
    )


# -- one queue -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UsingRow:
    """A user or group that uses a queue: its usage there against its effective limit."""

    name: str
    row: TreeRow

    @property
    def sig(self) -> str:
        return self.row.sig


def _users_of(objects: Iterable[Mapping[str, Any]], key: str, path: str) -> list[UsingRow]:
    using = []
    for obj in objects:
        levels = _levels(obj["queues"], _entity_level)
        level = levels.get(path)
        if level is not None and (level.usage or level.running):
            using.append(UsingRow(obj[key], tree_row(levels, path)))
    return using


def queue_detail(*, partition: str, queue_path: str) -> dict[str, Any]:
    gateway = _gateway(partition)
    path = queue_path.lower()
    levels = _levels(partition_queues(partition=partition), _queue_level)
    if path not in levels:
        raise UsageNotFound(ERR_QUEUE.format(path=queue_path, partition=partition))
    segments = _segments(path)
    ancestors = [".".join(segments[: n + 1]) for n in range(len(segments) - 1)]
    children = [p for p in sorted(levels, key=_segments) if p.rpartition(".")[0] == path]
    return _page(
        partition, gateway, path=path, row=tree_row(levels, path), ancestors=ancestors,
        children=children, users=_users_of(gateway.users_usage(partition), "userName", path),
        groups=_users_of(gateway.groups_usage(partition), "groupName", path),
        scopes=["queues", "users", "groups"],
    )


# -- the activity feed -----------------------------------------------------------------------------


def event_list(*, partition: str, kind: str = "", user: str = "") -> dict[str, Any]:
    """The newest ``EVENTS_SHOWN`` events, newest first, of one type and user when given."""
    gateway = _gateway(partition)
    kind = kind if kind in EVENT_TYPES else ""
    events, _, _ = gateway.events(partition, after=0, limit=EVENTS_KEPT)
    chosen = [
        event for event in reversed(events)
        if (not kind or event["type"] == kind) and (not user or event["user"] == user)
    ][:EVENTS_SHOWN]
    return _page(
        partition, gateway, events=[_event_view(event) for event in chosen],
        filters={"type": kind, "user": user}, filtered=bool(kind or user), scopes=["events"],
    )


def _event_view(event: Mapping[str, Any]) -> dict[str, Any]:
    return {
        **event, "resource_text": format_resource(event["resource"]),
        "at": datetime.fromtimestamp(event["time"], tz=UTC),
    }


# -- will it fit? ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fit:
    """The answer to "will this request fit?", computed without changing anything."""

    queue: str
    application: str
    resource: Mapping[str, int]
    headroom: Mapping[str, int] | None
    can_run: bool

    @property
    def short(self) -> dict[str, int]:
        """Per requested type, how much is missing (the fit test of spec 2.5)."""
        if self.headroom is None:
            return {}
        return {
            kind: amount - max(0, self.headroom[kind])
            for kind, amount in sorted(self.resource.items())
            if kind in self.headroom and amount > max(0, self.headroom[kind])
        }

    @property
    def fits(self) -> bool:
        return self.can_run and fits_headroom(self.resource, self.headroom)

    @property
    def short_text(self) -> str:
        return format_resource(self.short)

    @property
    def headroom_text(self) -> str:
        if self.headroom is None:
            return "unlimited"
        return format_resource({kind: max(0, room) for kind, room in self.headroom.items()})

    @property
    def resource_text(self) -> str:
        return format_resource(self.resource)


def user_fit_check(
    *, partition: str, user: str, queue: str, resources: Mapping[str, int],
    application: str = "", groups: list[str] | None = None,
) -> Fit:
    """Would ``resources`` in ``queue`` be admitted for ``user`` now? A ``TrackersError`` for a
    question the engine cannot answer (a malformed queue path)."""
    application = application or NEW_APPLICATION
    headroom, can_run = headroom_for(
        partition=partition, queue_path=queue, user=user, groups=list(groups or ()),
        application_id=application,
    )
    return Fit(queue, application, dict(resources), headroom, can_run)
