"""The rows of a windowed queue tree (``quotaweb.usage.tree_window``), written in Python like
``usage_rows``: a queue's row with its open/close link, and the pager row of a long level.

Links go to the usage overview of the partition (``?focus=`` a queue, ``?page=``, ``?q=``), so
they work without scripts from the home page too; ``static/js/usage-tree.js`` turns them into
in-place loads of ``usage:tree-fragment``.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

from django import template
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from quotaweb.config.tree_paths import More
from quotaweb.css_sizes import depth_class
from quotaweb.usage.templatetags.usage_rows import _SAFE, _bar, _bars, _linker, _row
from quotaweb.usage.tree_window import Shown, Window
from trackers.resources import format_resource, format_resource_raw

register = template.Library()


def _href(base: str, **params: object) -> str:
    return escape(f"{base}?{urlencode(params)}")


def _shown(entry: Shown, base: str, link) -> str:
    toggle = ""
    if entry.children:
        verb = "Close" if entry.open else "Open"
        label = f"{verb} {entry.path} ({entry.children} queue{'s' if entry.children != 1 else ''})"
        toggle = (
            f'<a class="twisty" href="{_href(base, focus=entry.path)}" '
            f'data-expand="{escape(entry.path)}" aria-expanded="{str(entry.open).lower()}" '
            f'title="{escape(label)}"><span aria-hidden="true">{"▾" if entry.open else "▸"}'
            f'</span><span class="visually-hidden">{escape(label)}</span></a>'
        )
    else:
        toggle = '<span class="twisty" aria-hidden="true"></span>'
    return _row(
        entry.path, entry.row.sig,
        f'<th scope="row" class="qname">{toggle}{link(entry.path, entry.name, entry.path)}</th>'
        f'<td class="bars">{_bars(entry.row.bars)}</td>'
        f'<td class="apps">{_bar(entry.row.apps)}</td>',
        f' class="{depth_class(entry.depth)}"',
    )


def _more(entry: More, base: str, *, pager: bool, partition: str) -> str:
    parent = escape(entry.parent)
    parts = [f'<span class="hint">Queues {entry.first}&ndash;{entry.last} of {entry.total} under '
             f'<code>{parent}</code>.</span>']
    if pager and entry.page > 1:
        parts.append(f'<a href="{_href(base, focus=entry.parent, page=entry.page - 1)}">'
                     'Previous</a>')
    if entry.page < entry.pages:
        parts.append(
            f'<a href="{_href(base, focus=entry.parent, page=entry.page + 1)}" '
            f'data-more="{parent}" data-page="{entry.page + 1}">Show more</a>'
        )
    # Unique on the home page too, which shows every partition's tree.
    field = f"level-q-{escape(partition)}-{parent}"
    parts.append(
        f'<form method="get" action="{escape(base)}" class="tree-search level-search" '
        f'role="search"><input type="hidden" name="focus" value="{parent}">'
        f'<label for="{field}">Find under {escape(entry.parent.rpartition(".")[2])}</label>'
        f'<input id="{field}" type="search" name="q"><button class="button">Find</button></form>'
    )
    return (f'<tr class="tree-more {depth_class(entry.depth + 1)}" data-more-of="{parent}">'
            f'<td colspan="3">{" ".join(parts)}</td></tr>')


@register.simple_tag
def window_rows(partition: str, window: Window, pager: bool = True) -> SafeString:
    """The rows of ``window``: queues with their bars, and a pager row per long level
    (``pager``: with a link back, as a page shows it; a fragment loads pages one after another)."""
    base = reverse("usage:overview", args=[partition])
    link = _linker("queue", partition)
    out = [
        _shown(entry, base, link) if isinstance(entry, Shown)
        else _more(entry, base, pager=pager, partition=partition)
        for entry in window.entries
    ]
    return mark_safe("\n".join(out))  # every value is escaped


@register.simple_tag
def window_limits(partition: str, window: Window) -> SafeString:
    """The limits set on each queue shown, indented by depth, linked to its configuration."""
    prefix, _, suffix = reverse(
        "config:queue", args=[partition, "queue-placeholder"]
    ).partition("queue-placeholder")
    out = []
    for entry in window.entries:
        if not isinstance(entry, Shown):
            continue
        node = entry.node
        tags = []
        for key, word, title in (("maxResource", "max", "maximum"),
                                 ("guaranteedResource", "guaranteed", "guaranteed")):
            if node.get(key):
                tags.append(f'<span class="tag" title="{title}: '
                            f'{escape(format_resource_raw(node[key]))}">{word} '
                            f'{escape(format_resource(node[key]))}</span>')
        if node.get("maxRunningApps"):
            tags.append(f'<span class="tag" title="maximum running applications">≤ '
                        f'{node["maxRunningApps"]} apps</span>')
        used = node.get("allocatedResource")
        using = (f'using <span title="{escape(format_resource_raw(used))}">'
                 f'{escape(format_resource(used))}</span> · ') if used else ""
        tags.append(f'<span class="usage">{using}{node.get("runningApps") or 0} running</span>')
        href = escape(prefix + quote(entry.path, safe=_SAFE) + suffix)
        out.append(
            f'<li class="queue {depth_class(entry.depth)}" data-queue="{escape(entry.path)}">'
            f'<div class="queue-row"><a class="queue-name" href="{href}" '
            f'title="The limits of {escape(entry.path)}">{escape(entry.name)}</a>{"".join(tags)}'
            f'</div></li>'
        )
    return mark_safe("\n".join(out))  # every value is escaped
