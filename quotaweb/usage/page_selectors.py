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
its message); a query parameter out of range raises ``UsageBadRequest`` (400 with its message);
``EngineNotLoaded`` passes through (the page answers 503 "starting").

The over-limit list, trends and the users' sparklines read the samples ``usage_sample`` takes
every ``QUOTAWEB_TREND_SAMPLE_SECONDS`` (not the engines): their figures are as of the last sample.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any

from django.conf import settings
from django.db import connections
from django.db.models import CharField, Max
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from quotaweb.allocations.selectors import headroom_for
from quotaweb.config.selectors import partition_queues
from quotaweb.engine.gateway import Gateway, engines_get
from quotaweb.engine.live import EVENTS_KEPT
from quotaweb.usage.models import OverLimit, UsageSample
from quotaweb.usage.selectors import over_limit_list, trend_csv_rows, usage_trend
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
ERR_TREND_KIND = (
    "There are no trends of {kind!r}: the server samples users, groups and queues, so the address "
    "is /usage/<partition>/trends/user/<name>/, .../group/<name>/ or .../queue/<path>/."
)
ERR_DAYS = (
    "days must be a whole number of days from 1 to {most} (the server keeps {most} days of "
    "samples), not {value!r}."
)
ERR_FORMAT = (
    "format can only be csv (the samples as a download); leave it out for the chart, not {value!r}."
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


class UsageBadRequest(ValueError):
    """A query parameter a page cannot use; ``str()`` says which and what it accepts."""


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
        over_limit=over_limit_count(partition=partition),
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
    rows = _sorted_rows(
        [row for row in everyone if _matches(row, q=q, queue=queue, group=group)], sort
    )
    return _page(
        partition, gateway, rows=rows, total=len(everyone),
        # In the page's order: the first SPARK_USERS shown get one.
        sparks=user_sparks(partition=partition, rows=rows), spark_users=SPARK_USERS,
        every=sample_seconds(),
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


# -- sampled views: the over-limit list, trends and the users' sparklines -------------------------
#
# These read the samples ``quotaweb.usage.services.usage_sample`` writes every
# ``QUOTAWEB_TREND_SAMPLE_SECONDS``. A sample is written only for what uses something, so samples
# further apart than ``GAP_INTERVALS`` sampling intervals mean nothing was in use in between (or
# nothing was sampling): charts leave a gap there rather than draw a line across it.

TREND_KINDS = ("user", "group", "queue")
# The users, groups or queues list a trend page belongs under (its nav and partition switch).
TREND_SECTIONS = {"user": "users", "group": "groups", "queue": "overview"}
GAP_INTERVALS = 2.5
# Fewer spacings than this say nothing about the usual one (two samples hours apart are a gap).
GAP_EVIDENCE = 10
# A last sample older than this many intervals is worth a word: sampling may have stopped.
STALE_INTERVALS = 3
# A chart draws at most about this many points, each the peak of the samples it stands for.
CHART_POINTS = 300
# The table under the charts has at most about this many rows, each a span's peak.
TABLE_ROWS = 48
# The chart's drawing, in pixels down and in its own units across (it stretches to the page).
CHART_TOP = 18
CHART_PLOT = 160
CHART_HEIGHT = 204
CHART_WIDTH = 1000
CHART_GEOMETRY = {
    "top": CHART_TOP, "plot": CHART_PLOT, "height": CHART_HEIGHT, "width": CHART_WIDTH,
    "bottom": CHART_TOP + CHART_PLOT, "tick_end": CHART_TOP + CHART_PLOT + 5,
    "label_y": CHART_HEIGHT - 6,
}
# Time axis steps (seconds), aligned to the local clock.
TIME_STEPS = (
    1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
    172800,
)
TIME_TICKS = 8
# Sparklines: the last hour, at most 60 points, 60 by 20 units, drawn for the first SPARK_USERS
# users in the page's order from one query. Each is about 60 samples an hour (at the default
# interval): 2,000 users are 120,000 rows, a small share of the page's time; all of 10,000
# would be 600,000 rows and cost more than the rest of the page.
SPARK_SECONDS = 3600
SPARK_WIDTH = 60
SPARK_HEIGHT = 20
SPARK_USERS = 2000


def sample_seconds() -> int:
    """How often usage is sampled (``QUOTAWEB_TREND_SAMPLE_SECONDS``)."""
    return settings.QUOTAWEB_TREND_SAMPLE_SECONDS


def last_sample_at() -> datetime | None:
    """When usage was last sampled, None before the first sample. A pass writes every
    partition's samples (and refreshes the over-limit list) at one time; a pass that found
    nothing in use anywhere writes nothing, so this is the last sample with usage."""
    return UsageSample.objects.aggregate(last=Max("at"))["last"]


def duration_text(delta: timedelta) -> str:
    """``2 h 5 min``, ``3 d 4 h``, ``under a minute``."""
    minutes = max(0, int(delta.total_seconds())) // 60
    if not minutes:
        return "under a minute"
    days, minutes = divmod(minutes, 1440)
    hours, minutes = divmod(minutes, 60)
    if days:
        return f"{days} d {hours} h" if hours else f"{days} d"
    if hours:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{minutes} min"


def _sampling(now: datetime) -> dict[str, Any]:
    """When the last sample was, how often they are taken, and whether sampling looks stopped."""
    last, every = last_sample_at(), sample_seconds()
    return {
        "last_sample": last, "every": every, "kept_days": settings.QUOTAWEB_TREND_DAYS,
        "last_sample_age": duration_text(now - last) if last else "",
        "stale": last is not None and now - last > timedelta(seconds=STALE_INTERVALS * every),
    }


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
        bars = [Bar(kind, self.usage.get(kind, 0), cap, self.queue)
                for kind, cap in sorted((self.limit or {}).items())]
        if self.max_apps:
            bars.append(Bar(APPLICATIONS, self.running, self.max_apps, self.queue))
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


def over_limit_page(*, partition: str, now: datetime | None = None) -> dict[str, Any]:
    """Every user and group above a limit in ``partition`` as of the last sample, longest first."""
    gateway = _gateway(partition)
    rows = [
        OverRow(item.kind, item.name, item.queue_path, item.since, item.seen, item.usage,
                item.limit, item.running_applications, item.max_applications)
        for item in over_limit_list(partition=partition)
    ]
    return _page(
        partition, gateway, rows=rows, user_count=len({r.name for r in rows if r.kind == "user"}),
        group_count=len({r.name for r in rows if r.kind == "group"}),
        **_sampling(now or timezone.now()),
    )


def over_limit_count(*, partition: str) -> int:
    """How many (user or group, queue) pairs sit above a limit, as of the last sample."""
    return OverLimit.objects.filter(partition=partition).count()


# -- trends ----------------------------------------------------------------------------------------


def trend_days(value: str | None) -> int:
    """``?days=``: a whole number from 1 to ``QUOTAWEB_TREND_DAYS``; 1 when left out."""
    most = settings.QUOTAWEB_TREND_DAYS
    if value is None or value == "":
        return 1
    if not re.fullmatch(r"[0-9]{1,6}", value) or not 1 <= int(value) <= most:
        raise UsageBadRequest(ERR_DAYS.format(most=most, value=value))
    return int(value)


def _day_choices(most: int) -> list[int]:
    return sorted({days for days in (1, 2, 7, 14, 30, most) if days <= most})


@dataclass(slots=True)
class _Bucket:
    """Consecutive samples drawn as one point: the peak of each resource over them."""

    first: datetime
    last: datetime
    peak: dict[str, int]
    running: int
    count: int = 1

    def value(self, kind: str) -> int:
        return self.running if kind == APPLICATIONS else self.peak.get(kind, 0)


def _buckets(samples: Sequence[Mapping[str, Any]], width: float, gap: float) -> list[list[_Bucket]]:
    """``samples`` (oldest first) in runs split where they are more than ``gap`` seconds apart,
    each run in buckets of at most ``width`` seconds."""
    runs: list[list[_Bucket]] = []
    previous: datetime | None = None
    for sample in samples:
        at, resource, running = sample["at"], sample["resource"], sample["running"]
        if previous is None or (at - previous).total_seconds() > gap:
            runs.append([])
        run = runs[-1]
        if not run or (at - run[-1].first).total_seconds() >= width:
            run.append(_Bucket(at, at, dict(resource), running))
        else:
            bucket = run[-1]
            bucket.last, bucket.count = at, bucket.count + 1
            bucket.running = max(bucket.running, running)
            for kind, value in resource.items():
                bucket.peak[kind] = max(bucket.peak.get(kind, 0), value)
        previous = at
    return runs


def _gap(samples: Sequence[Mapping[str, Any]], every: int) -> float:
    """Seconds between samples beyond which they are drawn apart: ``GAP_INTERVALS`` of the
    sampling interval, or of the samples' usual spacing when it is longer (samples kept from
    before the interval was changed)."""
    times = [sample["at"].timestamp() for sample in samples]
    return GAP_INTERVALS * max(every, _usual_spacing(times))


def _nice_step(top: int, count: int = 4) -> int:
    """A round step (1, 2 or 5 times a power of ten, at least 1) that reaches ``top`` in about
    ``count`` steps."""
    raw = max(top, 1) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(factor * magnitude for factor in (1, 2, 5, 10) if factor * magnitude >= raw)
    return max(1, round(step))


def _raw(kind: str, value: int) -> str:
    return f"{value}{_unit(kind)}"


def _clock(at: datetime, *, with_day: bool = False) -> str:
    return timezone.localtime(at).strftime("%a %d %b %H:%M" if with_day else "%H:%M")


@dataclass(frozen=True, slots=True)
class Tick:
    """An axis mark: where (pixels down, or percent across), its label and the raw value."""

    at: str
    label: str
    title: str = ""
    anchor: str = "middle"
    label_at: str = ""


@dataclass(frozen=True, slots=True)
class Hit:
    """A point's hover area across the chart (its own units) and what it says."""

    x: str
    width: str
    title: str


@dataclass(frozen=True, slots=True)
class Chart:
    """One resource (or running applications) over time, ready to draw as SVG."""

    kind: str
    label: str
    line: str
    area: str
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    hits: tuple[Hit, ...]
    latest: str
    peak: str
    summary: str


def _time_ticks(start: datetime, end: datetime) -> tuple[Tick, ...]:
    """Round local times between ``start`` and ``end``, at percent across."""
    span = (end - start).total_seconds()
    step = next((s for s in TIME_STEPS if span / s <= TIME_TICKS), TIME_STEPS[-1])
    offset = timezone.localtime(start).utcoffset() or timedelta()
    local_start = start.timestamp() + offset.total_seconds()
    moment = math.ceil(local_start / step) * step - offset.total_seconds()
    ticks = []
    while moment <= end.timestamp():
        at = datetime.fromtimestamp(moment, tz=UTC)
        share = (moment - start.timestamp()) / span * 100
        local = timezone.localtime(at)
        if step >= 86400:
            label = local.strftime("%a %d %b")
        elif step < 60:
            label = local.strftime("%H:%M:%S")
        else:
            label = local.strftime("%a %H:%M" if span > 86400 else "%H:%M")
        anchor = "start" if share < 5 else "end" if share > 95 else "middle"
        ticks.append(Tick(f"{share:.2f}", label, _clock(at, with_day=True), anchor))
        moment += step
    return tuple(ticks)


def _chart(kind: str, runs: list[list[_Bucket]], start: datetime, end: datetime,
           x_ticks: tuple[Tick, ...], every: int, latest: Mapping[str, Any]) -> Chart:
    span = (end - start).total_seconds()
    label = "running applications" if kind == APPLICATIONS else kind
    buckets = [bucket for run in runs for bucket in run]
    peak_bucket = max(buckets, key=lambda bucket: bucket.value(kind))
    peak = peak_bucket.value(kind)
    step = _nice_step(peak)
    top = max(step, -(-peak // step) * step)

    def x(at: datetime) -> float:
        return min(CHART_WIDTH, (at - start).total_seconds() / span * CHART_WIDTH)

    def y(value: int) -> float:
        return CHART_PLOT * (1 - value / top)

    line, area = [], []
    for run in runs:
        points = [(x(bucket.first), y(bucket.value(kind))) for bucket in run]
        first_x, last_x = points[0][0], points[-1][0]
        if len(points) == 1:
            # One sample alone: a short flat stroke, so it shows.
            line.append(f"M{first_x:.1f} {points[0][1]:.1f}h2")
            area.append(f"M{first_x:.1f} {CHART_PLOT}V{points[0][1]:.1f}h2V{CHART_PLOT}Z")
            continue
        path = "L".join(f"{px:.1f} {py:.1f}" for px, py in points)
        line.append(f"M{path}")
        area.append(f"M{first_x:.1f} {CHART_PLOT}L{path}L{last_x:.1f} {CHART_PLOT}Z")
    hits = []
    for bucket in buckets:
        left = x(bucket.first)
        right = x(bucket.last + timedelta(seconds=every))
        value = bucket.value(kind)
        when = _clock(bucket.first)
        if bucket.count > 1:
            when = f"{when}\u2013{_clock(bucket.last)}, peak"
        hits.append(Hit(f"{left:.1f}", f"{max(right - left, 1.5):.1f}",
                        f"{when}: {label} {_quantity(kind, value)} ({_raw(kind, value)})"))
    y_ticks = tuple(
        Tick(f"{CHART_TOP + y(value):.1f}", _quantity(kind, value), _raw(kind, value),
             label_at=f"{CHART_TOP + y(value) - 4:.1f}")
        for value in range(0, top + 1, step)
    )
    latest_value = latest["running"] if kind == APPLICATIONS else latest["resource"].get(kind, 0)
    latest_text = f"{_quantity(kind, latest_value)} at {_clock(latest['at'])}"
    peak_text = f"{_quantity(kind, peak)} at {_clock(peak_bucket.first, with_day=True)}"
    summary = (
        f"{label} from {_clock(start, with_day=True)} to {_clock(end, with_day=True)}: "
        f"peak {peak_text}, latest sample {latest_text}. The table of the figures follows."
    )
    return Chart(kind, label, "".join(line), "".join(area), y_ticks, x_ticks, tuple(hits),
                 latest_text, peak_text, summary)


@dataclass(frozen=True, slots=True)
class TableRow:
    first: datetime
    last: datetime
    count: int
    cells: tuple[tuple[str, str], ...]  # (human, raw) per column


def _table(samples: Sequence[Mapping[str, Any]], kinds: Sequence[str], every: int,
           gap: float) -> tuple[str, list[TableRow]]:
    """The charts' figures as rows: the peak of each span of up to ``width`` (a round length of
    time that keeps the rows near ``TABLE_ROWS``)."""
    span = (samples[-1]["at"] - samples[0]["at"]).total_seconds()
    width = next((s for s in TIME_STEPS if s >= every and span / s <= TABLE_ROWS), TIME_STEPS[-1])
    width = max(width, every)
    rows = []
    for run in _buckets(samples, width, gap):
        for bucket in run:
            cells = tuple((_quantity(kind, bucket.value(kind)), _raw(kind, bucket.value(kind)))
                          for kind in kinds)
            rows.append(TableRow(bucket.first, bucket.last, bucket.count, cells))
    return (f"{width} s" if width < 60 else duration_text(timedelta(seconds=width))), rows


def _trend_samples(
    *, partition: str, kind: str, name: str, days: str | None, now: datetime | None
) -> tuple[Gateway, str, int, datetime, list[dict[str, Any]]]:
    """The checked request (kind, partition, days, in that order) and its samples."""
    if kind not in TREND_KINDS:
        raise UsageNotFound(ERR_TREND_KIND.format(kind=kind))
    gateway = _gateway(partition)
    count = trend_days(days)
    name = name.lower() if kind == "queue" else name
    now = now or timezone.now()
    samples = usage_trend(partition=partition, kind=kind, name=name,
                          since=now - timedelta(days=count))
    return gateway, name, count, now, samples


def trend_detail(
    *, partition: str, kind: str, name: str, days: str | None = None, now: datetime | None = None
) -> dict[str, Any]:
    """The samples of one user, group or queue over the last ``days``: a chart per resource and
    one of running applications, and the same figures as a table."""
    gateway, name, count, now, samples = _trend_samples(
        partition=partition, kind=kind, name=name, days=days, now=now
    )
    every = sample_seconds()
    context = _page(
        partition, gateway, kind=kind, name=name, days=count, samples=samples,
        day_choices=_day_choices(settings.QUOTAWEB_TREND_DAYS), section=TREND_SECTIONS[kind],
        ancestors=_ancestors(name) if kind == "queue" else [], charts=[], geometry=CHART_GEOMETRY,
        **_sampling(now),
    )
    if not samples:
        return context
    gap = _gap(samples, every)
    end = max(now, samples[-1]["at"])
    start = min(samples[0]["at"], end - timedelta(seconds=10 * every))
    width = max(every, (end - start).total_seconds() / CHART_POINTS)
    runs = _buckets(samples, width, gap)
    kinds = [*sorted({kind for sample in samples for kind in sample["resource"]}), APPLICATIONS]
    x_ticks = _time_ticks(start, end)
    context["charts"] = [_chart(kind_, runs, start, end, x_ticks, every, samples[-1])
                         for kind_ in kinds]
    context["table_span"], context["table_rows"] = _table(samples, kinds, every, gap)
    context.update(first=samples[0]["at"], last=samples[-1]["at"], start=start, end=end,
                   gaps=len(runs) > 1)
    return context


def _ancestors(path: str) -> list[str]:
    segments = _segments(path)
    return [".".join(segments[: n + 1]) for n in range(len(segments) - 1)]


def trend_csv(
    *, partition: str, kind: str, name: str, days: str | None = None, now: datetime | None = None
) -> tuple[str, list[list[str]]]:
    """A file name and the rows of ``trend_csv_rows`` for the same samples as ``trend_detail``."""
    _, name, count, _, samples = _trend_samples(
        partition=partition, kind=kind, name=name, days=days, now=now
    )
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{partition}-{kind}-{name}-{count}d")
    return f"usage-{stem}.csv", trend_csv_rows(samples)


# -- sparklines ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Spark:
    """A user's root-level usage of one resource over the last hour, as a path of
    ``SPARK_WIDTH`` by ``SPARK_HEIGHT`` units."""

    kind: str
    path: str
    latest: int
    latest_at: datetime
    peak: int

    @property
    def title(self) -> str:
        return (
            f"{self.kind} in the last hour: latest sample {_quantity(self.kind, self.latest)} "
            f"at {_clock(self.latest_at)}, peak {_quantity(self.kind, self.peak)} "
            f"({_raw(self.kind, self.peak)})"
        )


def _spark_kind(row: EntityRow) -> str:
    """The resource a user's sparkline shows: that of their most constrained limit when they
    use it, else memory, else the first they use."""
    bar = row.constrained
    constrained = bar.kind if bar is not None and bar.kind != APPLICATIONS else None
    used = sorted(kind for kind, value in row.usage.items() if value)
    if constrained in used:
        return constrained
    if "memory" in used:
        return "memory"
    if used:
        return used[0]
    return constrained or "memory"


def _spark(kind: str, points: list[tuple[float, int, int]], latest_at: datetime,
           every: int) -> Spark:
    """``points`` (seconds into the hour, units across, value; oldest first) as a path: one
    point per unit across (the peak of the samples there), split where samples are far apart."""
    gap = GAP_INTERVALS * max(every, _usual_spacing([at for at, _, _ in points]))
    runs: list[list[list[int]]] = []
    run: list[list[int]] = []
    previous = -math.inf
    peak = 0
    for at, x, value in points:
        peak = max(peak, value)
        if at - previous > gap:
            run = []
            runs.append(run)
        if run and run[-1][0] == x:
            run[-1][1] = max(run[-1][1], value)
        else:
            run.append([x, value])
        previous = at
    scale = (SPARK_HEIGHT - 2) / (peak or 1)
    bottom = SPARK_HEIGHT - 1
    parts = []
    for run in runs:
        path = "L".join(f"{x} {round(bottom - value * scale)}" for x, value in run)
        parts.append(f"M{path}{'h1' if len(run) == 1 else ''}")
    return Spark(kind, "".join(parts), points[-1][2], latest_at, peak)


def _usual_spacing(times: Sequence[float]) -> float:
    """The median spacing of ``times`` (seconds), 0 when there are too few to tell."""
    if len(times) <= GAP_EVIDENCE:
        return 0
    return sorted(later - earlier for earlier, later in pairwise(times))[(len(times) - 1) // 2]


def user_sparks(
    *, partition: str, rows: Sequence[EntityRow], now: datetime | None = None
) -> dict[str, Spark | None]:
    """The sparkline of each of the first ``SPARK_USERS`` users of ``rows`` (None: nothing
    sampled in the last hour; users further down have no entry), from one query.

    The database picks out each user's one resource, and the rows skip the ORM's per-row
    conversions (every user sampled in one pass shares its time, so each time is read once)."""
    kinds = {row.name: _spark_kind(row) for row in rows[:SPARK_USERS]}
    if not kinds:
        return {}
    since = (now or timezone.now()) - timedelta(seconds=SPARK_SECONDS)
    columns = sorted(set(kinds.values()))
    column = {kind: n for n, kind in enumerate(columns, start=2)}
    query = UsageSample.objects.filter(
        partition=partition, kind="user", name__in=list(kinds), at__gte=since
    )
    # The time as text: a database datetime would be parsed again on every row.
    query = query.order_by("name", "at").values_list(
        "name", Cast("at", CharField()), *(KeyTransform(kind, "resource") for kind in columns)
    )
    sql, params = query.query.sql_with_params()
    times: dict[str, tuple[float, int, datetime]] = {}
    every = sample_seconds()
    sparks: dict[str, Spark | None] = dict.fromkeys(kinds)
    name, at, points, index = None, "", [], 0

    def done() -> None:
        if name is not None and points:
            sparks[name] = _spark(kinds[name], points, times[at][2], every)

    with connections[query.db].cursor() as cursor:
        cursor.execute(sql, params)
        while chunk := cursor.fetchmany(10_000):
            # Rows come by name, then time: one user's run of rows after another's.
            for found in chunk:
                if found[0] != name:
                    done()
                    name, points = found[0], []
                    index = column[kinds[name]]
                at = found[1]
                when = times.get(at)
                if when is None:
                    when = times[at] = _sample_time(at, since)
                value = found[index]
                points.append((when[0], when[1], int(value) if value else 0))
    done()
    return sparks


def _sample_time(raw: Any, since: datetime) -> tuple[float, int, datetime]:
    """A sample time as the database writes it as text (SQLite: UTC without an offset):
    seconds after ``since``, units across a sparkline, and the aware datetime."""
    at = raw if isinstance(raw, datetime) else parse_datetime(str(raw))
    if at is None:
        raise ValueError(f"not a sample time: {raw!r}")
    if timezone.is_naive(at):
        at = at.replace(tzinfo=UTC)
    seconds = (at - since).total_seconds()
    return seconds, min(SPARK_WIDTH, max(0, round(seconds * SPARK_WIDTH / SPARK_SECONDS))), at
