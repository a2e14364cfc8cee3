"""Reads for the live usage pages: each page's first state, rendered on the server; one function
per page, which the views call (the overview's, which shows part of the tree, is in
``tree_window``).

The pages then follow the live socket (``static/js/live.js``). The rows and their rules are in
``limits`` (bars, trees, effective limits) and ``rows``; the sampled pages draw with ``charts``
and ``sparks``; the user page's "will it fit?" is ``fit``.

Unknown partitions, users, groups and queues raise ``UsageNotFound`` (the page answers 404 with
its message); a query parameter out of range raises ``UsageBadRequest`` (400 with its message);
``EngineNotLoaded`` passes through (the page answers 503 "starting").

The over-limit list, trends and the users' sparklines read the samples ``usage_sample`` takes
every ``QUOTAWEB_TREND_SAMPLE_SECONDS`` (not the engines): their figures are as of the last sample.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from quotaweb.config.queue_tree import partition_queues
from quotaweb.engine.gateway import Gateway, engines_get
from quotaweb.engine.live import EVENTS_KEPT
from quotaweb.usage import sparks
from quotaweb.usage.charts import CHART_GEOMETRY, trend_charts
from quotaweb.usage.fit import user_fit_check
from quotaweb.usage.limits import (
    APPLICATIONS,
    ancestors,
    entity_level,
    in_tree_order,
    most_constrained,
    path_segments,
    queue_level,
    tree_levels,
    tree_row,
    tree_rows,
)
from quotaweb.usage.models import OverLimit
from quotaweb.usage.queue_picker import queue_picker_get
from quotaweb.usage.row_cache import entity_rows_of, entity_rows_read
from quotaweb.usage.rows import (
    SORTS,
    AppRow,
    Member,
    OverRow,
    UsingRow,
    app_queues,
    event_rows,
    row_matches,
    sorted_rows,
    using_rows,
)
from quotaweb.usage.sampling import sample_seconds, sampling_state
from quotaweb.usage.selectors import over_limit_list, trend_csv_rows, usage_trend
from trackers import TrackersError
from trackers.names import is_group_name, is_user_name

ERR_UNKNOWN_PARTITION = (
    "There is no partition {partition!r}. The configured partitions are: {known}."
)
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
ERR_SORT = "sort can be {choices}, not {value!r}."
ERR_PAGE = (
    "page must be a whole number from 1 to {last} ({count} rows match, {size} a page), not "
    "{value!r}."
)
ERR_EVENT_TYPE = "type can be {choices} (or left out for every event), not {value!r}."
ERR_WITHIN = (
    "within can be {choices} (minutes back from now; left out: every event kept), not {value!r}."
)
ERR_BEFORE = (
    "before must be the number of an event (a whole number above 1, as the feed's \"older\" "
    "link writes it), not {value!r}."
)
ERR_DAYS = (
    "days must be a whole number of days from 1 to {most} (the server keeps {most} days of "
    "samples), not {value!r}."
)

EVENT_TYPES = ("allocated", "released", "denied")
# Minutes the feed's time filter offers.
WITHIN_MINUTES = (5, 15, 60, 360, 1440)
# Users or groups a page of the lists shows: each row on screen is one live subscription, and a
# socket takes at most 64 (consumers.MAX_SCOPES).
PAGE_ROWS = 50
# Users and groups a queue's page shows of those that use it (each row a live subscription).
QUEUE_ROWS = 25
# Rows of the activity feed a page shows (an application's events together make one row).
EVENT_ROWS = 50
TREND_KINDS = ("user", "group", "queue")
# The users, groups or queues list a trend page belongs under (its nav and partition switch).
TREND_SECTIONS = {"user": "users", "group": "groups", "queue": "overview"}


class UsageNotFound(LookupError):
    """A page asked for something that does not exist; ``str()`` says what and why."""


class UsageBadRequest(ValueError):
    """A query parameter a page cannot use; ``str()`` says which and what it accepts."""


# -- shared pieces ---------------------------------------------------------------------------------


def _gateway(partition: str) -> Gateway:
    gateway = engines_get()
    known = gateway.partitions()
    if partition not in known:
        raise UsageNotFound(
            ERR_UNKNOWN_PARTITION.format(partition=partition, known=", ".join(known) or "none")
        )
    return gateway


def _page(partition: str, gateway: Gateway, **context: Any) -> dict[str, Any]:
    # Every configured partition in the switcher: one another peer serves opens through this one.
    return {"partition": partition, "partitions": gateway.configured(), **context}


def page_of(partition: str, **context: Any) -> dict[str, Any]:
    """A usage page's context for a known ``partition`` (``UsageNotFound`` otherwise)."""
    return _page(partition, _gateway(partition), **context)


def first_partition() -> str:
    """The partition ``/usage/`` opens (the first configured, served here or by another peer);
    ``UsageNotFound`` when none."""
    partitions = engines_get().configured()
    if not partitions:
        raise UsageNotFound(ERR_NO_PARTITIONS)
    return partitions[0]


# -- users and groups ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ListPage:
    """One page of a list: its rows, which page of how many, and how many rows matched."""

    rows: list[Any]
    number: int
    last: int
    matched: int

    @property
    def first_index(self) -> int:
        return (self.number - 1) * PAGE_ROWS + 1 if self.rows else 0

    @property
    def last_index(self) -> int:
        return (self.number - 1) * PAGE_ROWS + len(self.rows)


def list_page(rows: list[Any], value: str | None) -> ListPage:
    """``?page=`` of ``rows``: a whole number from 1 to the last page; 1 when left out."""
    last = max(1, -(-len(rows) // PAGE_ROWS))
    if value is None or value == "":
        number = 1
    elif re.fullmatch(r"[0-9]{1,9}", value) and 1 <= int(value) <= last:
        number = int(value)
    else:
        raise UsageBadRequest(
            ERR_PAGE.format(last=last, count=len(rows), size=PAGE_ROWS, value=value)
        )
    start = (number - 1) * PAGE_ROWS
    return ListPage(rows[start:start + PAGE_ROWS], number, last, len(rows))


def _sort(value: str) -> str:
    if value not in SORTS:
        raise UsageBadRequest(ERR_SORT.format(choices=", ".join(SORTS), value=value))
    return value


def _names_page(
    gateway: Gateway, partition: str, kind: str, page: str | None
) -> tuple[ListPage, int]:
    """A page of the whole list in name order, built from the names alone: only its own rows
    are read. Every row of 10,000 users, read and built for a first page of 50, took 1.5 s
    (a filter or another order still needs them all, ``entity_rows_read``)."""
    names = gateway.user_names(partition) if kind == "users" else gateway.group_names(partition)
    named = list_page(names, page)
    rows = entity_rows_of(gateway=gateway, partition=partition, kind=kind, names=named.rows)
    return ListPage(rows, named.number, named.last, named.matched), len(names)


def user_list(
    *, partition: str, q: str = "", queue: str = "", group: str = "", sort: str = "name",
    page: str | None = None,
) -> dict[str, Any]:
    """One page of the users who pass the filters, in the asked order; each row on it is live
    through its own ``user:<name>`` scope, so the page follows 50 users, not all of them."""
    gateway = _gateway(partition)
    sort = _sort(sort)
    queue = queue.lower()
    if q or queue or group or sort != "name":
        everyone = entity_rows_read(gateway=gateway, partition=partition, kind="users")
        total = len(everyone)
        chosen = list_page(sorted_rows(
            [row for row in everyone if row_matches(row, q=q, queue=queue, group=group)], sort
        ), page)
    else:
        chosen, total = _names_page(gateway, partition, "users", page)
    return _page(
        partition, gateway, rows=chosen.rows, listed=chosen, total=total,
        sparks=sparks.user_sparks(partition=partition, rows=chosen.rows), every=sample_seconds(),
        filters={"q": q, "queue": queue, "group": group, "sort": sort},
        filtered=bool(q or queue or group),
        queue_picker=queue_picker_get(partition=partition, around=[queue]),
        group_names=gateway.group_names(partition),
        scopes=[f"user:{row.name}" for row in chosen.rows if is_user_name(row.name)],
    )


def group_list(
    *, partition: str, q: str = "", queue: str = "", sort: str = "name", page: str | None = None
) -> dict[str, Any]:
    """One page of the groups, as ``user_list``; the group wildcard ``*`` has no scope of its
    own, so its row is drawn once and not followed."""
    gateway = _gateway(partition)
    sort = _sort(sort)
    queue = queue.lower()
    if q or queue or sort != "name":
        everyone = entity_rows_read(gateway=gateway, partition=partition, kind="groups")
        total = len(everyone)
        chosen = list_page(sorted_rows(
            [row for row in everyone if row_matches(row, q=q, queue=queue, group="")], sort
        ), page)
    else:
        chosen, total = _names_page(gateway, partition, "groups", page)
    return _page(
        partition, gateway, rows=chosen.rows, listed=chosen, total=total,
        filters={"q": q, "queue": queue, "sort": sort}, filtered=bool(q or queue),
        queue_picker=queue_picker_get(partition=partition, around=[queue]),
        scopes=[f"group:{row.name}" for row in chosen.rows if is_group_name(row.name)],
    )


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
    levels = tree_levels(obj["queues"], entity_level)
    links = obj.get("groups", {})
    apps = [AppRow(app, queue, group=links.get(app))
            for app, queue in sorted(app_queues(levels).items())]
    context = _page(
        partition, gateway, name=name, rows=tree_rows(levels), apps=apps, root=levels["root"],
        groups=sorted(set(links.values())), constrained=most_constrained(in_tree_order(levels)),
        queue_picker=queue_picker_get(partition=partition, around=levels),
        scopes=[f"user:{name}"],
    )
    if fit is not None:
        try:
            context["fit"] = user_fit_check(partition=partition, user=name, **fit)
        except TrackersError as error:
            # The engine refuses the question itself (a malformed queue path): say so on the field.
            context["fit_problem"] = ("queue", str(error))
    return context


def group_detail(*, partition: str, name: str) -> dict[str, Any]:
    gateway = _gateway(partition)
    obj = gateway.group_usage(partition, name)
    if obj is None:
        raise UsageNotFound(ERR_GROUP.format(name=name, partition=partition))
    levels = tree_levels(obj["queues"], entity_level)
    members: list[Member] = []
    owners: dict[str, str] = {}
    for user in gateway.users_usage(partition):
        mine = tuple(sorted(app for app, group in user.get("groups", {}).items() if group == name))
        if mine:
            members.append(Member(user["userName"], mine))
            owners.update(dict.fromkeys(mine, user["userName"]))
    apps = [AppRow(app, queue, user=owners.get(app))
            for app, queue in sorted(app_queues(levels).items())]
    # The group wildcard ``*`` is no valid scope name: its page follows the whole groups list.
    own_scope = f"group:{name}" if is_group_name(name) else "groups"
    return _page(
        partition, gateway, name=name, rows=tree_rows(levels), apps=apps, root=levels["root"],
        members=members, constrained=most_constrained(in_tree_order(levels)),
        scopes=[own_scope, "users"],
    )


# -- one queue -------------------------------------------------------------------------------------


def queue_detail(*, partition: str, queue_path: str) -> dict[str, Any]:
    gateway = _gateway(partition)
    path = queue_path.lower()
    levels = tree_levels(partition_queues(partition=partition), queue_level)
    if path not in levels:
        raise UsageNotFound(ERR_QUEUE.format(path=queue_path, partition=partition))
    children = [p for p in sorted(levels, key=path_segments) if p.rpartition(".")[0] == path]
    users, user_count = _using_first(gateway, partition, "users", path)
    groups, group_count = _using_first(gateway, partition, "groups", path)
    return _page(
        partition, gateway, path=path, row=tree_row(levels, path), ancestors=ancestors(path),
        children=children, users=users, user_count=user_count, groups=groups,
        group_count=group_count,
        # The queue, and each user and group row on screen: never the whole lists.
        scopes=["queues", *(f"user:{item.name}" for item in users if is_user_name(item.name)),
                *(f"group:{item.name}" for item in groups if is_group_name(item.name))],
    )


def _using_first(
    gateway: Gateway, partition: str, kind: str, path: str
) -> tuple[list[UsingRow], int]:
    """The first ``QUEUE_ROWS`` users or groups (by name) that use ``path``, and how many do;
    the users and groups lists filtered by the queue show them all, a page at a time."""
    names = gateway.names_at(partition, kind, path)
    read = gateway.users_usage_of if kind == "users" else gateway.groups_usage_of
    objects = [obj for obj in read(partition, names[:QUEUE_ROWS]).values() if obj is not None]
    return using_rows(objects, "userName" if kind == "users" else "groupName", path), len(names)


# -- the activity feed -----------------------------------------------------------------------------


def event_list(
    *, partition: str, kind: str = "", user: str = "", group: str = "", queue: str = "",
    reason: str = "", within: str = "", before: str = "", now: float | None = None,
) -> dict[str, Any]:
    """A page of the kept events, newest first, an application's events taken together (see
    ``rows.event_rows``), filtered by type, user, group, queue (and the queues under it), denial
    reason and minutes back; ``before`` (an event number) pages back through older events."""
    gateway = _gateway(partition)
    if kind and kind not in EVENT_TYPES:
        raise UsageBadRequest(ERR_EVENT_TYPE.format(choices=", ".join(EVENT_TYPES), value=kind))
    minutes = _choice_number(within, WITHIN_MINUTES, ERR_WITHIN)
    if before and (not re.fullmatch(r"[0-9]{1,12}", before) or int(before) < 2):
        raise UsageBadRequest(ERR_BEFORE.format(value=before))
    queue = queue.lower()
    events, _, _ = gateway.events(partition, after=0, limit=EVENTS_KEPT)
    since = (now if now is not None else time.time()) - minutes * 60 if minutes else None
    below = int(before) if before else None
    chosen = (
        event for event in reversed(events)
        if (below is None or event["seq"] < below)
        and (since is None or event["time"] >= since)
        and (not kind or event["type"] == kind)
        and (not user or event["user"] == user)
        and (not group or event["group"] == group)
        and (not queue or event["queuePath"] == queue or event["queuePath"].startswith(f"{queue}."))
        and (not reason or event.get("reason") == reason)
    )
    rows, more = event_rows(chosen, limit=EVENT_ROWS)
    filters = {"type": kind, "user": user, "group": group, "queue": queue, "reason": reason,
               "within": within}
    return _page(
        partition, gateway, events=rows, filters=filters, filtered=any(filters.values()),
        older=rows[-1].oldest if more else None, paged=below is not None,
        oldest_kept=events[0]["seq"] if events else None, kept=EVENTS_KEPT,
        within_choices=WITHIN_MINUTES, event_types=EVENT_TYPES,
        reasons=sorted({event["reason"] for event in events if event.get("reason")}),
        queue_picker=queue_picker_get(partition=partition, around=[queue]),
        # Older pages stand still: only the newest follows the feed.
        scopes=[] if below is not None else ["events"],
    )


def _choice_number(value: str, choices: Iterable[int], message: str) -> int:
    """``value`` as one of ``choices`` (0 when left out), or ``UsageBadRequest``."""
    if not value:
        return 0
    if not re.fullmatch(r"[0-9]{1,6}", value) or int(value) not in choices:
        raise UsageBadRequest(message.format(choices=", ".join(map(str, choices)), value=value))
    return int(value)


# -- the over-limit list ---------------------------------------------------------------------------


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
        **sampling_state(now or timezone.now()),
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
    context = _page(
        partition, gateway, kind=kind, name=name, days=count, samples=samples,
        day_choices=_day_choices(settings.QUOTAWEB_TREND_DAYS), section=TREND_SECTIONS[kind],
        ancestors=ancestors(name) if kind == "queue" else [], charts=[], geometry=CHART_GEOMETRY,
        **sampling_state(now),
    )
    if samples:
        context.update(trend_charts(
            samples, now=now, every=sample_seconds(),
            limits=_trend_limits(gateway, partition=partition, kind=kind, name=name),
        ))
    return context


def _trend_limits(gateway: Gateway, *, partition: str, kind: str, name: str) -> dict[str, int]:
    """The limits the configuration sets now on what a trend shows (a user's or group's root,
    or the queue), by resource and ``APPLICATIONS``; none for what is no longer known."""
    if kind == "queue":
        levels = tree_levels(partition_queues(partition=partition), queue_level)
        path = name
    else:
        if kind == "user":
            obj = gateway.user_usage(partition, name) if is_user_name(name) else None
        else:
            obj = gateway.group_usage(partition, name)
        levels = tree_levels(obj["queues"], entity_level) if obj else {}
        path = "root"
    level = levels.get(path)
    if level is None:
        return {}
    limits = dict(level.cap or {})
    if level.max_apps:
        limits[APPLICATIONS] = level.max_apps
    return limits


def trend_csv(
    *, partition: str, kind: str, name: str, days: str | None = None, now: datetime | None = None
) -> tuple[str, list[list[str]]]:
    """A file name and the rows of ``trend_csv_rows`` for the same samples as ``trend_detail``."""
    _, name, count, _, samples = _trend_samples(
        partition=partition, kind=kind, name=name, days=days, now=now
    )
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{partition}-{kind}-{name}-{count}d")
    return f"usage-{stem}.csv", trend_csv_rows(samples)
