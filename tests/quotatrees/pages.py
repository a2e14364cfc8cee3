"""Shared pieces of the quota tree page tests: addresses, the editor's form data, trees with a
story (borrowers, a rejection, preemptions) made through the services, and readers of the
pages' rows."""

from __future__ import annotations

import html as html_lib
import re
from typing import Any

from django.urls import reverse

from quotaweb.quotatrees import services
from tests.quotatrees.support import body, example_document, tree_document

# Spec M1's consumers without a's release: b ends up borrowing at H (from N), i (priority 1)
# borrows at A (from I) and preempts c, a and e there; f is rejected.
STORY = [
    ("a", "N", 1, 0), ("b", "N", 1, 0), ("c", "N", 1, 0), ("d", "N", 2, 1), ("e", "L", 3, 0),
    ("f", "E", 3, 0), ("g", "J", 1, 0), ("h", "K", 1, 0), ("i", "I", 3, 1),
]
# Spec M5's ContextTree: the root promises its children 14 of its 10 (slack -4).
CONTEXT_NODES = [
    ("Root", None, 10), ("Org-A", "Root", 4), ("Context-1", "Org-A", 1),
    ("Context-2", "Org-A", 1), ("Org-B", "Root", 6), ("Context-3", "Org-B", 2),
    ("Context-4", "Org-B", 2), ("Org-C", "Root", 4), ("Context-5", "Org-C", 4),
]


def url(name: str, *args: str) -> str:
    return reverse(f"quotatrees:{name}", args=args)


def example_with_story(author=None, name: str = "example") -> None:
    """The M1 example tree and the consumers of ``STORY`` allocated on it, in order."""
    services.tree_put(tree=name, document=example_document(name), author=author)
    for cid, group, cpu, priority in STORY:
        services.tree_allocate(tree=name, body=body(cid, group, cpu, priority))


def context_tree(author=None, name: str = "context") -> None:
    services.tree_put(tree=name, document=tree_document(name, ["cpu"], CONTEXT_NODES,
                                                       hard={"Org-B", "Context-4"}),
                      author=author)


def editor_data(
    rows: list[tuple[str, str, bool, list[str]]], *, resources: tuple[str, ...] = ("cpu",),
    name: str | None = None, action: str = "save", comment: str = "", **extra: str,
) -> dict[str, str]:
    """The editor's POST: ``rows`` are (node, parent, hard, quotas per resource)."""
    data: dict[str, str] = {"action": action, "comment": comment}
    if name is not None:
        data["name"] = name
    for j, resource in enumerate(resources):
        data[f"resource-{j}"] = resource
    for i, (node, parent, hard, quotas) in enumerate(rows):
        data[f"node-{i}-name"] = node
        data[f"node-{i}-parent"] = parent
        if hard:
            data[f"node-{i}-hard"] = "on"
        for j, quota in enumerate(quotas):
            data[f"node-{i}-quota-{j}"] = quota
    data.update(extra)
    return data


_TAG = re.compile(r"<[^>]+>")
_ROW = re.compile(r'<tr data-key="([^"]+)" data-sig="[^"]*"[^>]*>(.*?)</tr>', re.S)


def text(markup: str) -> str:
    """The text of some markup as read aloud: tags apart, entities decoded, spaces collapsed,
    none before punctuation."""
    spaced = " ".join(html_lib.unescape(_TAG.sub(" ", markup)).split())
    return re.sub(r" ([:,.;)])", r"\1", spaced)


def node_rows(page: str) -> dict[str, str]:
    """Each node row's markup by node name, in the page's order (the first tree's nodes, then
    the next tree's on a forest page)."""
    nodes = page.split("<tbody data-nodes>", 1)[1].split("</tbody>", 1)[0]
    return dict(_ROW.findall(nodes))


def cells(row: str) -> list[str]:
    return [text(cell) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]


def feed_rows(page: str) -> list[list[str]]:
    """The feed's rows, newest first, as the text of their cells: when, what, consumer, where,
    why."""
    feed = page.split("<tbody data-feed>", 1)[1].split("</tbody>", 1)[0]
    return [cells(row) for row in re.findall(r"<tr[^>]*>(.*?)</tr>", feed, re.S)]


def errors_for(page: str, name: str) -> list[str]:
    """The errors shown for the input named ``name``."""
    found = re.findall(rf'<p class="field-error" role="alert" data-error-for="{re.escape(name)}">'
                       r"(.*?)</p>", page, re.S)
    return [text(error) for error in found]


def all_errors(page: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, error in re.findall(
        r'<p class="field-error" role="alert" data-error-for="([^"]+)">(.*?)</p>', page, re.S
    ):
        out.setdefault(name, []).append(text(error))
    return out


def consumers_of(view: dict[str, Any]) -> dict[str, list[str]]:
    return {node["name"]: node["consumers"] for node in view["nodes"] if node["consumers"]}
