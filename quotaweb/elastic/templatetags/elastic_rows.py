"""The rows of the elastic quota page, written in Python (a tree of thousands of queues renders
fast). ``static/js/elastic.js`` writes the same markup when the live socket brings new figures:
keep the two in step."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from urllib.parse import quote, urlencode

from django import template
from django.urls import reverse
from django.utils.html import escape
from django.utils.http import RFC3986_SUBDELIMS
from django.utils.safestring import SafeString, mark_safe

from quotaweb.config.tree_paths import More, PathEntry
from quotaweb.css_sizes import LEFT, WIDTH, depth_class, percent_class
from quotaweb.elastic.page_selectors import Bar, Line, QueueRow, scale_factor
from trackers.resources import format_quantity, format_resource

register = template.Library()

_PLACEHOLDER = "elastic-path-placeholder"
_SAFE = RFC3986_SUBDELIMS + "/~:@"
EXPLAIN_TITLE = "How this runtime came about, step by step"
NOT_SHARED_TITLE = "{kind} is not in this queue's max, so it takes no part in sharing {kind}"
# Above its runtime: an alarm only while elastic quota is on (off, nothing acts on it).
TAG_OVER_ON = "over its runtime by {over}"
TAG_OVER_OFF = "above its runtime by {over} (not enforced: elastic quota is off)"
SCALED_TEXT = "scaled to {scaled} (\u00d7{factor})"
SCALED_TITLE = (
    "its siblings' mins add up to more than their parent shares, so each is scaled down by "
    "the same factor"
)


def _hint(text: str, title: str = "") -> str:
    hover = f' title="{escape(title)}"' if title else ""
    return f'<span class="hint"{hover}>{escape(text)}</span>'


def _bar(bar: Bar) -> str:
    """The runtime against the min: segments positioned in % of the bar's scale."""
    runtime_at = bar.pct(bar.runtime)
    parts = []

    def segment(name: str, width: int, left: int | None = None) -> None:
        if width > 0:
            at = "" if left is None else f" {percent_class(LEFT, left)}"
            size = percent_class(WIDTH, bar.pct(width))
            parts.append(f'<span class="ebar-{name}{at} {size}"></span>')

    segment("own", bar.own)
    segment("borrowed", bar.borrowed, bar.pct(bar.own))
    segment("lent", bar.lent, runtime_at)
    segment("wanted", bar.wanted, runtime_at)
    segment("used", bar.used)
    segment("over", bar.over, runtime_at)
    if bar.min > 0:
        parts.append(f'<span class="ebar-min {percent_class(LEFT, bar.pct(bar.min))}"></span>')
    text = escape(bar.text)
    return (
        f'<span class="ebar" role="img" aria-label="{text}" title="{text}">{"".join(parts)}'
        "</span>"
    )


def _cells(line: Line, explain: Callable[[str], str]) -> str:
    def q(value: int) -> str:
        return escape(format_quantity(line.kind, value))

    minimum = _hint("not set") if line.min is None else q(line.min)
    if line.scaled_min is not None and line.min is not None:
        scaled = SCALED_TEXT.format(scaled=format_quantity(line.kind, line.scaled_min),
                                    factor=scale_factor(line.min, line.scaled_min))
        minimum += (
            f'<span class="hint escaled" title="{escape(SCALED_TITLE)}">{escape(scaled)}</span>'
        )

    request = q(line.request)
    if line.limited_request < line.request:
        request += _hint(f" (capped at {format_quantity(line.kind, line.limited_request)})",
                         "the request above the max does not count")
    if line.runtime is None:
        runtime = _hint("not shared", NOT_SHARED_TITLE.format(kind=line.kind))
    else:
        runtime = (
            f'<a href="{escape(explain(line.kind))}" title="{EXPLAIN_TITLE}">'
            f"{q(line.runtime)}</a>"
        )
    # Key columns first (runtime, used, min, lent, borrowed, unallocated), so a narrow window
    # scrolls only the rest away; the same order as the page's header and elastic.js.
    cells = [
        f'<th scope="row" class="kind">{escape(line.kind)}</th>',
        f'<td class="num runtime">{runtime}</td>',
        f'<td class="num">{q(line.used)}</td>',
        f'<td class="num emin">{minimum}</td>',
        f'<td class="num">{q(line.lent)}</td>',
        f'<td class="num">{q(line.borrowed)}</td>',
        f'<td class="num">{"" if line.unallocated is None else q(line.unallocated)}</td>',
        f'<td class="ebar-cell">{_bar(line.bar) if line.bar else ""}</td>',
        f'<td class="num">{_hint("no max") if line.max is None else q(line.max)}</td>',
        f'<td class="num">{_hint("none") if line.weight is None else q(line.weight)}</td>',
        f'<td class="num">{request}</td>',
    ]
    return "".join(cells)


def _queue_cell(
    row: QueueRow, link: Callable[[str, str], str], rowspan: int, *, enabled: bool,
    toggle: str = "",
) -> str:
    tags = []
    if row.system:
        tags.append('<span class="tag">system</span>')
    if row.over:
        over = escape(format_resource(row.over))
        if enabled:
            tags.append(f'<span class="tag over">{TAG_OVER_ON.format(over=over)}</span>')
        else:
            tags.append(f'<span class="tag above">{TAG_OVER_OFF.format(over=over)}</span>')
    notes = "".join(f'<p class="hint enote">{escape(note)}</p>' for note in row.notes)
    span = f' rowspan="{rowspan}"' if rowspan > 1 else ""
    return (
        f'<th scope="rowgroup"{span} class="qname">{toggle}{link(row.path, row.name)}'
        f'{" " + " ".join(tags) if tags else ""}{notes}</th>'
    )


def row_state_sig(sig: str, *, enabled: bool) -> str:
    """A row's signature with the switch in it: turning elastic quota on or off redraws the
    over-runtime tags (elastic.js: stateSig)."""
    return f"{sig}|{'on' if enabled else 'off'}"


def queue_body(
    row: QueueRow, link: Callable[[str, str], str], explain_of: Callable[[str, str], str],
    *, enabled: bool, toggle: str = "",
) -> str:
    lines = row.lines
    head = _queue_cell(row, link, max(1, len(lines)), enabled=enabled, toggle=toggle)
    if not lines:
        body = (f'<tr>{head}<th scope="row" class="kind">&ndash;</th>'
                '<td colspan="10" class="hint">no resource figures</td></tr>')
    else:
        body = "".join(
            f"<tr>{head if index == 0 else ''}"
            f"{_cells(line, lambda kind: explain_of(row.path, kind))}</tr>"
            for index, line in enumerate(lines)
        )
    return (
        f'<tbody class="equeue {depth_class(row.depth)}" data-key="{escape(row.path)}" '
        f'data-sig="{escape(row_state_sig(row.sig, enabled=enabled))}">{body}</tbody>'
    )


def _toggle(entry: PathEntry, page: str) -> str:
    """A queue's arrow: a link to the page focused on it (open: on its parent, to close it)."""
    if not entry.children:
        return '<span class="twisty" aria-hidden="true"></span>'
    target = entry.path.rpartition(".")[0] or entry.path if entry.open else entry.path
    verb = "Close" if entry.open else "Open"
    label = escape(f"{verb} {entry.path} ({entry.children} queue"
                   f"{'s' if entry.children != 1 else ''})")
    return (
        f'<a class="twisty" href="{escape(page)}?{escape(urlencode({"focus": target}))}" '
        f'aria-expanded="{str(entry.open).lower()}" title="{label}"><span aria-hidden="true">'
        f'{"▾" if entry.open else "▸"}</span><span class="visually-hidden">{label}</span></a>'
    )


def _more(more: More, page: str, *, partition: str, query: str) -> str:
    parent = escape(more.parent)
    links = []
    if more.page > 1:
        links.append(f'<a href="{escape(page)}?'
                     f'{escape(urlencode({"focus": more.parent, "page": more.page - 1}))}">'
                     'Previous</a>')
    if more.page < more.pages:
        links.append(f'<a href="{escape(page)}?'
                     f'{escape(urlencode({"focus": more.parent, "page": more.page + 1}))}">'
                     'Show more</a>')
    field = escape(f"elastic-q-{partition}-{more.parent}")
    return (
        f'<tbody class="emore {depth_class(more.depth + 1)}" data-more-of="{parent}"><tr>'
        f'<td colspan="12"><span class="hint">Queues {more.first}&ndash;{more.last} of '
        f'{more.total} under <code>{parent}</code>.</span> {" ".join(links)} '
        f'<form method="get" action="{escape(page)}" class="tree-search level-search" '
        f'role="search"><input type="hidden" name="focus" value="{parent}">'
        f'<label for="{field}">Find under {escape(more.parent.rpartition(".")[2])}</label>'
        f'<input id="{field}" type="search" name="q" value="{escape(query)}">'
        '<button class="button">Find</button></form></td></tr></tbody>'
    )


@register.simple_tag
def elastic_rows(
    partition: str, window: Iterable[tuple[QueueRow, PathEntry] | More], enabled: bool,
    query: str = "",
) -> SafeString:
    """Each queue shown as a ``<tbody>`` of one row per resource type, with its arrow; a long
    level's pager as a ``<tbody>`` of its own."""
    prefix, _, suffix = reverse(
        "usage:queue", args=[partition, _PLACEHOLDER]
    ).partition(_PLACEHOLDER)
    explain = reverse("elastic:explain", args=[partition])
    page = reverse("elastic:page", args=[partition])

    def link(path: str, text: str) -> str:
        href = escape(f"{prefix}{quote(path, safe=_SAFE)}{suffix}")
        return f'<a href="{href}" title="{escape(path)}">{escape(text)}</a>'

    def explain_of(path: str, kind: str) -> str:
        return f"{explain}?queue={quote(path, safe='')}&resource={quote(kind, safe='')}"

    bodies = (
        _more(entry, page, partition=partition, query=query) if isinstance(entry, More)
        else queue_body(entry[0], link, explain_of, enabled=enabled,
                        toggle=_toggle(entry[1], page))
        for entry in window
    )
    return mark_safe("\n".join(bodies))  # escaped
