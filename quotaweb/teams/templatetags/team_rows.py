"""The team dashboard's rows for someone without an account: the usage pages' rows with names
instead of links, since those pages would only send the link holder to the login page. The
markup (keys, signatures, bars) is the usage pages' own, so ``live.js`` updates it the same way.
"""

from __future__ import annotations

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from quotaweb.css_sizes import depth_class
from quotaweb.usage.limits import Bar, TreeRow
from quotaweb.usage.rows import AppRow
from quotaweb.usage.templatetags import usage_rows

register = template.Library()


def _name(name: str) -> str:
    return f"<code>{escape(name)}</code>"


@register.simple_tag
def team_tree_rows(partition: str, rows: list[TreeRow], linked: bool) -> SafeString:
    if linked:
        return usage_rows.tree_rows(partition, rows)
    return mark_safe("\n".join(  # every value is escaped
        usage_rows._row(
            row.path, row.sig,
            f'<th scope="row" class="qname">{escape(row.name)}</th>'
            f'<td class="bars">{usage_rows._bars(row.bars)}</td>'
            f'<td class="apps">{usage_rows._bar(row.apps)}</td>',
            f' class="{depth_class(row.depth)}"',
        )
        for row in rows
    ))


@register.simple_tag
def team_app_rows(
    partition: str, apps: list[AppRow], for_group: bool, linked: bool
) -> SafeString:
    if linked:
        return usage_rows.app_rows(partition, apps, for_group)
    out = []
    for app in apps:
        other = app.user if for_group else app.group
        missing = "unknown" if for_group else "no group"
        against = escape(other) if other else f'<span class="hint">{missing}</span>'
        out.append(usage_rows._row(
            app.application, app.sig,
            f'<th scope="row">{_name(app.application)}</th>'
            f"<td>{escape(app.queue)}</td><td>{against}</td>",
        ))
    return mark_safe("\n".join(out))  # every value is escaped


@register.simple_tag
def team_constrained(partition: str, bar: Bar | None, linked: bool) -> SafeString:
    if linked or bar is None:
        return usage_rows.constrained(partition, bar)
    return mark_safe(  # every value is escaped
        f'{usage_rows._bar(bar)}<span class="hint">{escape(bar.label)} at '
        f"{escape(bar.source)}</span>"
    )
