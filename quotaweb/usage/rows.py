"""The rows of the usage pages' lists (besides the tree rows of ``limits``): users and groups
with their most constrained limit, running applications, the members of a group, who uses a
queue, and who sits above a limit; with the lists' filters and sorting.

``quotaweb.usage.templatetags.usage_rows`` writes them as HTML, and ``static/js/live.js`` writes
the same rows when usage changes (their ``sig`` says when a row changed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from quotaweb.usage.limits import (
    APPLICATIONS,
    Bar,
    Level,
    TreeRow,
    entity_level,
    in_tree_order,
    most_constrained,
    tree_levels,
    tree_row,
)
from quotaweb.usage.sampling import duration_text
from trackers.resources import format_resource

SORTS = ("name", "usage", "apps")


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


def entity_row(name: str, obj: Mapping[str, Any]) -> EntityRow:
    """The row of a user's or group's REST shape ``obj``."""
    levels = tree_levels(obj["queues"], entity_level)
    root = levels["root"]
    return EntityRow(
        name=name, constrained=most_constrained(in_tree_order(levels)), running=root.running,
        usage=root.usage, groups=tuple(sorted(set(obj.get("groups", {}).values()))),
        paths=frozenset(levels),
    )


def sorted_rows(rows: list[EntityRow], sort: str) -> list[EntityRow]:
    """``rows`` by name, or (``sort`` of ``SORTS``) most constrained or most applications
    first."""
    rows.sort(key=lambda row: row.name)
    if sort == "usage":
        rows.sort(key=lambda row: -(row.constrained.ratio if row.constrained else -1.0))
    elif sort == "apps":
        rows.sort(key=lambda row: -row.running)
    return rows


def row_matches(row: EntityRow, *, q: str, queue: str, group: str) -> bool:
    """Whether ``row`` passes a list's filters: a part of its name, a queue it uses (lower
    case), a group it counts against (empty: any)."""
    return (
        (not q or q.lower() in row.name.lower())
        and (not queue or queue in row.paths)
        and (not group or group in row.groups)
    )


# -- the activity feed -----------------------------------------------------------------------------

# An application's events of one kind, user, group, queue and reason that come within this many
# seconds of each other are one row: a release of eight allocations is one thing that happened.
GROUP_SECONDS = 10.0


@dataclass(slots=True)
class EventRow:
    """Events of one application taken together: how many, their total, from when to when."""

    type: str
    application: str
    user: str
    group: str | None
    queue: str
    reason: str
    message: str
    oldest: int  # the first event's number: the row's key, stable while newer events join
    newest: int
    started: float
    ended: float
    resource: dict[str, int]
    count: int = 1

    @property
    def sig(self) -> str:
        return f"{self.count}:{self.newest}"

    @property
    def resource_text(self) -> str:
        return format_resource(self.resource)


def _grouping_key(event: Mapping[str, Any]) -> tuple[Any, ...]:
    return (event["type"], event["applicationId"], event["user"], event["group"],
            event["queuePath"], event.get("reason", ""))


def event_rows(events: Iterable[Mapping[str, Any]], *, limit: int) -> tuple[list[EventRow], bool]:
    """Up to ``limit`` rows of ``events`` (newest first), and whether older events remain.

    Stops at the first event that would open a row past ``limit``: every event taken is newer
    than every event left, so the next page continues below the oldest event taken."""
    rows: list[EventRow] = []
    joining: dict[tuple[Any, ...], EventRow] = {}
    for event in events:
        key = _grouping_key(event)
        row = joining.get(key)
        if row is not None and row.started - event["time"] <= GROUP_SECONDS:
            row.count += 1
            row.oldest, row.started = event["seq"], event["time"]
            for kind, value in event["resource"].items():
                row.resource[kind] = row.resource.get(kind, 0) + value
            continue
        if len(rows) == limit:
            return rows, True
        row = EventRow(
            type=event["type"], application=event["applicationId"], user=event["user"],
            group=event["group"], queue=event["queuePath"], reason=event.get("reason", ""),
            message=event.get("message", ""), oldest=event["seq"], newest=event["seq"],
            started=event["time"], ended=event["time"], resource=dict(event["resource"]),
        )
        rows.append(row)
        joining[key] = row
    return rows, False


# -- running applications and members --------------------------------------------------------------


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


def app_queues(levels: Mapping[str, Level]) -> dict[str, str]:
    """Each running application of a user's or group's tree, and the queue it runs in."""
    where: dict[str, str] = {}
    # An application runs in one leaf and every ancestor lists it too: in tree order the
    # deepest node comes last and wins.
    for level in in_tree_order(levels):
        for app in level.apps:
            where[app] = level.path
    return where


@dataclass(frozen=True, slots=True)
class Member:
    user: str
    applications: tuple[str, ...]


# -- who uses a queue ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UsingRow:
    """A user or group that uses a queue: its usage there against its effective limit."""

    name: str
    row: TreeRow

    @property
    def sig(self) -> str:
        return self.row.sig


def using_rows(objects: Iterable[Mapping[str, Any]], key: str, path: str) -> list[UsingRow]:
    """The users or groups (REST shapes, named by ``key``) with usage or applications at
    ``path``."""
    using = []
    for obj in objects:
        levels = tree_levels(obj["queues"], entity_level)
        level = levels.get(path)
        if level is not None and (level.usage or level.running):
            using.append(UsingRow(obj[key], tree_row(levels, path)))
    return using


# -- the over-limit list ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OverRow:
    """A user or group above its limit at a queue: since when, and by how much (as of ``seen``,
    the last sample). ``usage`` is its usage at that queue."""

    kind: str
    name: str
    queue: str
    since: datetime
    seen: datetime
    usage: Mapping[str, int]
    limit: Mapping[str, int] | None
    running: int
    max_apps: int

    @property
    def bars(self) -> tuple[Bar, ...]:
        """Usage against each limited resource (and applications) of the limit at the queue."""
        bars = [Bar(kind, self.usage.get(kind, 0), cap, self.queue, cap)
                for kind, cap in sorted((self.limit or {}).items())]
        if self.max_apps:
            bars.append(Bar(APPLICATIONS, self.running, self.max_apps, self.queue, self.max_apps))
        return tuple(bars)

    @property
    def excess(self) -> dict[str, int]:
        return {kind: self.usage.get(kind, 0) - cap
                for kind, cap in sorted((self.limit or {}).items())
                if self.usage.get(kind, 0) > cap}

    @property
    def over_text(self) -> str:
        """``memory 4.3 GB, 1 running application``: what it would have to give back."""
        parts = [format_resource(self.excess)] if self.excess else []
        extra = self.running - self.max_apps
        if self.max_apps and extra > 0:
            parts.append(f"{extra} running application{'' if extra == 1 else 's'}")
        return ", ".join(parts)

    @property
    def usage_text(self) -> str:
        return format_resource(self.usage)

    @property
    def limit_text(self) -> str:
        parts = [format_resource(self.limit)] if self.limit else []
        if self.max_apps:
            parts.append(f"{self.max_apps} running application{'' if self.max_apps == 1 else 's'}")
        return ", ".join(parts) or "no limit"

    @property
    def lasted(self) -> str:
        """How long it has been over, as of the last sample."""
        return duration_text(self.seen - self.since)
