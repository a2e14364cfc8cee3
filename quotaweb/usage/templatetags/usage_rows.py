"""The rows of the usage pages' tables, written in Python.

A template loop with a ``{% url %}`` and an include per row made a page of 10,000 users or
queues take several seconds; these write the same markup in a small fraction of that.
``static/js/live.js`` writes the same rows when usage changes: keep the two in step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from urllib.parse import quote

from django import template
from django.template.defaultfilters import date as date_filter
from django.urls import reverse
from django.utils.html import escape
from django.utils.http import RFC3986_SUBDELIMS
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import localtime

from quotaweb.css_sizes import WIDTH, depth_class, percent_class
from quotaweb.usage.limits import Bar, TreeRow
from quotaweb.usage.rows import AppRow, EntityRow, EventRow, Member, OverRow, UsingRow
from quotaweb.usage.sparks import SPARK_HEIGHT, SPARK_WIDTH, Spark
from trackers.names import shown_name

register = template.Library()

_PLACEHOLDER = "usage-name-placeholder"
# What reverse() leaves unescaped in a path (so links match the ones it makes).
_SAFE = RFC3986_SUBDELIMS + "/~:@"
NOTHING = '<span class="hint">nothing used, no limit</span>'
NO_GROUPS = '<span class="hint">none</span>'
NO_SPARK = '<span class="hint" title="No usage sampled in the last hour">&ndash;</span>'


def _linker(view: str, partition: str, *args: str) -> Callable[[str, str | None], str]:
    """``link(name, text)``: an ``<a>`` to ``view`` of ``name`` (reversed once, not per row)."""
    prefix, _, suffix = reverse(
        f"usage:{view}", args=[partition, *args, _PLACEHOLDER]
    ).partition(_PLACEHOLDER)

    def link(name: str, text: str | None = None, title: str | None = None) -> str:
        href = escape(f"{prefix}{quote(name, safe=_SAFE)}{suffix}")
        hover = f' title="{escape(title)}"' if title else ""
        return f'<a href="{href}"{hover}>{escape(shown_name(name) if text is None else text)}</a>'

    return link


def _config_linker(partition: str) -> Callable[[str], str]:
    """``link(path)``: an ``<a>`` to where a queue's limits are set (the configuration)."""
    prefix, _, suffix = reverse("config:queue", args=[partition, _PLACEHOLDER]).partition(
        _PLACEHOLDER
    )

    def link(path: str) -> str:
        href = escape(f"{prefix}{quote(path, safe=_SAFE)}{suffix}")
        return f'<a href="{href}">the limit</a>'

    return link


def _time(at, fmt: str = "Y-m-d H:i") -> str:
    at = localtime(at)
    return f'<time datetime="{date_filter(at, "c")}">{date_filter(at, fmt)}</time>'


def _bar(bar: Bar) -> str:
    return (
        f'<div class="ubar lvl-{bar.level}" title="{escape(bar.title)}">'
        f'<span class="ubar-label">{escape(bar.label)}</span>'
        '<span class="ubar-track" aria-hidden="true">'
        f'<span class="ubar-fill {percent_class(WIDTH, bar.width)}"></span></span>'
        f'<span class="ubar-text">{escape(bar.text)}</span></div>'
    )


def _bars(bars: Iterable[Bar]) -> str:
    return "".join(_bar(bar) for bar in bars) or NOTHING


def _constrained(bar: Bar | None, queue_link) -> str:
    if bar is None:
        return '<span class="hint">no limit applies</span>'
    return f'{_bar(bar)}<span class="hint">{escape(bar.label)} at {queue_link(bar.source)}</span>'


def _spark(sparks: Mapping[str, Spark | None], name: str) -> str:
    """A user's last hour of one resource; ``data-keep``: live updates leave the cell alone
    (samples are not live)."""
    spark = sparks.get(name)
    if spark is None:
        return f'<td class="spark" data-keep data-label="Last hour">{NO_SPARK}</td>'
    title = escape(spark.title)
    return (
        f'<td class="spark" data-keep data-label="Last hour"><svg class="sparkline" '
        f'viewBox="0 0 {SPARK_WIDTH} {SPARK_HEIGHT}" preserveAspectRatio="none" role="img" '
        f'aria-label="{title}">'
        f'<title>{title}</title><path d="{escape(spark.path)}" vector-effect="non-scaling-stroke"/>'
        f'</svg><span class="spark-kind">{escape(spark.kind)}</span></td>'
    )


def _row(key: str, sig: str, cells: str, attrs: str = "") -> str:
    return f'<tr data-key="{escape(key)}" data-sig="{escape(sig)}"{attrs}>{cells}</tr>'


def _names(names: Iterable[str], link, empty: str) -> str:
    return ", ".join(link(name) for name in names) or empty


@register.simple_tag
def constrained(partition: str, bar: Bar | None) -> SafeString:
    """An entity's most constrained limit and where it is set."""
    return mark_safe(_constrained(bar, _linker("queue", partition)))  # every value is escaped


@register.simple_tag
def group_links(partition: str, names: Iterable[str]) -> SafeString:
    return mark_safe(_names(names, _linker("group", partition), "no group"))  # escaped


@register.simple_tag
def tree_rows(partition: str, rows: list[TreeRow]) -> SafeString:
    """Each queue of a tree, indented by depth, with its bars, linked to its usage page."""
    link = _linker("queue", partition)
    out = [
        _row(
            row.path, row.sig,
            f'<th scope="row" class="qname">{link(row.path, row.name, row.path)}</th>'
            f'<td class="bars">{_bars(row.bars)}</td><td class="apps">{_bar(row.apps)}</td>',
            f' class="{depth_class(row.depth)}"',
        )
        for row in rows
    ]
    return mark_safe("\n".join(out))  # every value is escaped


@register.simple_tag
def queue_row(row: TreeRow) -> SafeString:
    """The one queue of a queue page, all users together."""
    return mark_safe(_row(  # every value is escaped
        row.path, row.sig,
        f'<th scope="row" class="qname">{escape(row.name)}</th>'
        f'<td class="bars">{_bars(row.bars)}</td><td class="apps">{_bar(row.apps)}</td>',
    ))


@register.simple_tag
def entity_rows(
    partition: str, kind: str, rows: list[EntityRow],
    sparks: Mapping[str, Spark | None] | None = None,
) -> SafeString:
    """The users or groups table: name, most constrained limit, running apps, usage (and, for
    users, their last hour's sparkline when ``sparks`` is given, and the groups their
    applications count against)."""
    own = _linker("user" if kind == "users" else "group", partition)
    group = _linker("group", partition)
    queue = _linker("queue", partition)
    out = []
    for row in rows:
        # data-label: a phone stacks the cells, each under its column's name.
        cells = (
            f'<th scope="row">{own(row.name)}</th>'
            f'<td data-label="Most constrained">{_constrained(row.constrained, queue)}</td>'
            f'<td class="num" data-label="Running">{row.running}</td>'
            f'<td class="in-use" data-label="In use">{escape(row.usage_text)}</td>'
        )
        if kind == "users":
            if sparks is not None:
                cells += _spark(sparks, row.name)
            cells += f'<td data-label="Groups">{_names(row.groups, group, NO_GROUPS)}</td>'
        out.append(_row(row.name, row.sig, cells))
    return mark_safe("\n".join(out))  # every value is escaped


@register.simple_tag
def app_rows(partition: str, apps: list[AppRow], for_group: bool = False) -> SafeString:
    """Running applications: where each runs, and the group (or user) it counts against."""
    queue = _linker("queue", partition)
    other = _linker("user" if for_group else "group", partition)
    out = []
    for app in apps:
        name = app.user if for_group else app.group
        missing = "unknown" if for_group else "no group"
        against = other(name) if name else f'<span class="hint">{missing}</span>'
        out.append(_row(
            app.application, app.sig,
            f'<th scope="row"><code>{escape(app.application)}</code></th>'
            f"<td>{queue(app.queue)}</td><td>{against}</td>",
        ))
    return mark_safe("\n".join(out))  # every value is escaped


@register.simple_tag
def member_rows(partition: str, members: list[Member]) -> SafeString:
    user = _linker("user", partition)
    out = [
        _row(
            member.user, ",".join(member.applications),
            f'<th scope="row">{user(member.user)}</th><td>'
            + ", ".join(f"<code>{escape(app)}</code>" for app in member.applications)
            + "</td>",
        )
        for member in members
    ]
    return mark_safe("\n".join(out))  # every value is escaped


@register.simple_tag
def using_rows(partition: str, kind: str, items: list[UsingRow]) -> SafeString:
    """Users or groups using one queue: their usage there against their effective limit."""
    link = _linker("user" if kind == "users" else "group", partition)
    out = [
        _row(
            item.name, item.sig,
            f'<th scope="row">{link(item.name)}</th><td class="bars">{_bars(item.row.bars)}</td>'
            f'<td class="apps">{_bar(item.row.apps)}</td>',
        )
        for item in items
    ]
    return mark_safe("\n".join(out))  # every value is escaped


@register.simple_tag
def event_rows(partition: str, events: list[EventRow]) -> SafeString:
    """The activity feed: when (date and time of the newest event in the row), what, who (and
    as which group), where, how much in all and in how many events; a denial's message says
    which limit and the numbers."""
    user, group = _linker("user", partition), _linker("group", partition)
    queue = _linker("queue", partition)
    out = []
    for event in events:
        reason = f' <span class="hint">{escape(event.reason)}</span>' if event.reason else ""
        as_group = f' <span class="hint">as</span> {group(event.group)}' if event.group else ""
        message = f'<p class="ev-message">{escape(event.message)}</p>' if event.message else ""
        count = (
            f' <span class="ev-count">&times;{event.count}</span>' if event.count > 1 else ""
        )
        total = "in all " if event.count > 1 else ""
        out.append(_row(
            str(event.oldest), event.sig,
            f"<td>{_time(datetime.fromtimestamp(event.ended, tz=UTC), 'Y-m-d H:i:s')}</td>"
            f'<td><span class="ev-kind">{escape(event.type)}</span>{count}{reason}</td>'
            f"<td>{user(event.user)}{as_group}</td><td>{queue(event.queue)}</td>"
            f'<td>{total}{escape(event.resource_text)} '
            f'<span class="hint">· <code>{escape(event.application)}</code></span>{message}</td>',
            f' class="ev ev-{escape(event.type)}"',
        ))
    return mark_safe("\n".join(out))  # every value is escaped


@register.simple_tag
def over_limit_rows(partition: str, rows: list[OverRow]) -> SafeString:
    """Who sits above a limit: who (and their trends), where (and where the limit is set), since
    when and for how long, by how much, and usage there against each limited resource."""
    users, groups = _linker("user", partition), _linker("group", partition)
    trends = {kind: _linker("trends", partition, kind) for kind in ("user", "group")}
    queue, config = _linker("queue", partition), _config_linker(partition)
    out = []
    for row in rows:
        own = users if row.kind == "user" else groups
        trend = trends[row.kind](row.name, "Trends")
        key = f"{row.kind}:{row.name}@{row.queue}"
        out.append(_row(
            key, f"{row.since.isoformat()}|{row.seen.isoformat()}",
            f'<th scope="row"><span class="tag">{escape(row.kind)}</span> {own(row.name)}'
            f'<div class="hint">{trend}</div></th>'
            f'<td>{queue(row.queue)}<div class="hint">{config(row.queue)}</div></td>'
            f'<td>{_time(row.since)}<div class="hint">for {escape(row.lasted)}</div></td>'
            f'<td><strong class="over-by">{escape(row.over_text)}</strong></td>'
            f'<td class="bars">{_bars(row.bars)}<div class="hint">uses '
            f"{escape(row.usage_text)} · limit {escape(row.limit_text)}</div></td>",
        ))
    return mark_safe("\n".join(out))  # every value is escaped
