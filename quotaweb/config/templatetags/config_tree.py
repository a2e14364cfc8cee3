"""The queue tree's list items, written in Python: a template loop over 10,000 queues with a dozen
tags each takes most of a second; this takes a small fraction of that for the same markup."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from django import template
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

_PLACEHOLDER = "queue-path-placeholder"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _node(node: dict[str, Any], url_prefix: str, url_suffix: str) -> str:
    path = escape(node["path"])
    parts = node["name_parts"]
    name = (
        f"{escape(parts[0])}<mark>{escape(parts[1])}</mark>{escape(parts[2])}"
        if parts else escape(node["name"])
    )
    tags = []
    if node["max"]:
        tags.append(f'<span class="tag">max {escape(node["max"])}</span>')
    if node["guaranteed"]:
        tags.append(f'<span class="tag">guaranteed {escape(node["guaranteed"])}</span>')
    if node["max_applications"]:
        tags.append(f'<span class="tag">≤ {node["max_applications"]} apps</span>')
    count = node["limit_count"]
    tags.append(
        f'<span class="tag{"" if count else " quiet"}" data-limit-count="{count}">'
        f'{_plural(count, "limit")}</span>'
    )
    href = f'{url_prefix}{escape(quote(node["path"], safe="/:@"))}{url_suffix}'
    row = (
        f'<span class="cq-row"><a class="cq-name" href="{href}" '
        f'title="{path}">{name}</a>{"".join(tags)}</span>'
    )
    head = (
        f'<li class="cq{" match" if node["match"] else ""}" data-path="{path}" '
        f'data-name="{escape(node["name"])}">'
    )
    if node["has_children"]:
        # The toggle holds no link (a link inside a summary is a control inside a control,
        # which screen readers announce badly); the stylesheet puts it in front of the row.
        toggle = (
            f'<summary><span class="visually-hidden">Queues under {escape(node["name"])}'
            '</span></summary>'
        )
        return f'{head}{row}<details{" open" if node["open"] else ""}>{toggle}<ul>'
    return f"{head}{row}</li>"


def _load(load: dict[str, Any], page: str, fragment: tuple[str, str]) -> str:
    """What a closed queue's list holds until it is opened: a link to the page focused on it
    (without scripts), whose ``data-children`` names the fragment that replaces it."""
    path = load["path"]
    href = escape(f"{page}?{urlencode({'partition': fragment[2], 'focus': path})}")
    url = escape(f"{fragment[0]}{quote(path, safe='/:@')}{fragment[1]}")
    return (f'<li class="cq-load"><a href="{href}" data-children="{url}">'
            f'{_plural(load["count"], "queue")} under {escape(load["name"])}</a></li>')


def _more(more: dict[str, Any], page: str, fragment: tuple[str, str]) -> str:
    path = more["path"]
    partition = fragment[2]
    query = urlencode({"partition": partition, "focus": path, "page": more["page"]})
    href = escape(f"{page}?{query}")
    url = escape(f"{fragment[0]}{quote(path, safe='/:@')}{fragment[1]}?page={more['page']}")
    field = escape(f"cq-q-{partition}-{path}")
    return (
        f'<li class="cq-more"><span class="hint">Queues {more["first"]}&ndash;{more["last"]} of '
        f'{more["total"]} under <code>{escape(path)}</code>.</span> '
        f'<a href="{href}" data-more="{url}">Show more</a> '
        f'<form method="get" action="{escape(page)}" class="tree-search level-search" '
        'role="search">'
        f'<input type="hidden" name="partition" value="{escape(partition)}">'
        f'<input type="hidden" name="focus" value="{escape(path)}">'
        f'<label for="{field}">Find under {escape(path.rpartition(".")[2])}</label>'
        f'<input id="{field}" type="search" name="q"><button class="button">Find</button>'
        f'</form></li>'
    )


@register.simple_tag
def queue_tree_items(partition: str, items: list[dict[str, Any]]) -> SafeString:
    """The ``<li>`` elements of ``config_tree``'s flattened items, nested lists closed in place;
    ``quotaweb.config.tree_window``'s ``load`` and ``more`` items as links that open more."""
    url = reverse("config:queue", args=[partition, _PLACEHOLDER])
    url_prefix, _, url_suffix = url.partition(_PLACEHOLDER)
    page = reverse("config:tree")
    prefix, _, suffix = reverse(
        "config:tree-fragment", args=[partition, _PLACEHOLDER]).partition(_PLACEHOLDER)
    fragment = (prefix, suffix, partition)
    out = []
    for item in items:
        if "close" in item:
            out.append("</ul></details></li>")
        elif "load" in item:
            out.append(_load(item["load"], page, fragment))
        elif "more" in item:
            out.append(_more(item["more"], page, fragment))
        else:
            out.append(_node(item["node"], url_prefix, url_suffix))
    return mark_safe("\n".join(out))  # every value above is escaped
