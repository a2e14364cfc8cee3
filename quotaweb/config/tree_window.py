"""The configuration's queue tree as much as a screen needs, so the page stays light at any size
(the rules and limits of ``tree_paths``, over the nested rows ``config_tree`` reads).

``config_tree`` reads every queue (four queries whatever the size) and marks matches; this keeps
of it what is open: each partition's root and its children, the ancestors of the matches of a
search (at most ``SEARCH_ROWS`` matches) and, with ``focus``, the queues down to that one and its
children; whole levels below the roots are sent too, closed, while ``SCREEN_ROWS`` hold them.
A queue whose children are not sent holds one item that links to the page focused on it
(what works without scripts) and names its fragment (``config:tree-fragment``), which
``static/js/queue-tree.js`` loads when it is opened. An open level shows ``LEVEL_ROWS`` children
at a time, then an item that pages on.
"""

from __future__ import annotations

from typing import Any

from quotaweb.config.selectors import ConfigNotFound, config_tree
from quotaweb.config.tree_paths import (
    LEVEL_ROWS,
    SCREEN_ROWS,
    SEARCH_ROWS,
    TreePageInvalid,
    page_number,
)

__all__ = ["TreePageInvalid", "config_tree_fragment", "config_tree_window"]

ERR_NO_QUEUE = "There is no queue {path!r} in partition {partition!r}."


def _nested(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``config_tree``'s flat items as nodes with their ``kids``."""
    top: list[dict[str, Any]] = []
    stack: list[list[dict[str, Any]]] = [top]
    last: dict[str, Any] | None = None
    for item in items:
        if "close" in item:
            stack.pop()
            continue
        node = {**item["node"], "kids": []}
        stack[-1].append(node)
        last = node
        if node["has_children"]:
            stack.append(last["kids"])
    return top


def _sent(roots: list[dict[str, Any]]) -> set[str]:
    """The queues whose children fit on a first screen: whole levels, from the roots down."""
    sent: set[str] = set()
    rows = len(roots)
    frontier = roots
    while frontier:
        parents = [node for node in frontier if node["kids"]]
        extra = sum(min(len(node["kids"]), LEVEL_ROWS) for node in parents)
        if not parents or (sent and rows + extra > SCREEN_ROWS):
            break
        sent.update(node["path"] for node in parents)
        rows += extra
        frontier = [kid for node in parents for kid in node["kids"][:LEVEL_ROWS]]
    return sent


def _emit(node: dict[str, Any], out: list[dict[str, Any]], *, keep: set[str] | None,
          focus: str, page: int, sent: frozenset[str] | set[str] = frozenset()) -> None:
    kids = node["kids"]
    path = node["path"]
    more = None
    is_open = bool(kids) and (node["open"] or path == focus or focus.startswith(path + "."))
    if keep is not None:
        kids = [kid for kid in kids if kid["path"] in keep]
        is_open = bool(kids)
    out.append({"node": {**node, "open": is_open, "kids": None}})
    if not node["has_children"]:
        return
    if not is_open and path not in sent:
        out.append({"load": {"path": path, "name": node["name"], "count": len(node["kids"])}})
        out.append({"close": True})
        return
    if keep is None and focus.startswith(path + "."):
        kids = [kid for kid in kids if focus == kid["path"] or focus.startswith(kid["path"] + ".")]
    elif keep is None:
        at = (page - 1) * LEVEL_ROWS if path == focus else 0
        shown = kids[at:at + LEVEL_ROWS]
        if len(kids) > at + LEVEL_ROWS:
            more = {"path": path, "first": at + 1, "last": at + len(shown), "total": len(kids),
                    "page": (page if path == focus else 1) + 1}
        kids = shown
    for kid in kids:
        _emit(kid, out, keep=keep, focus=focus, page=page, sent=sent)
    if more is not None:
        out.append({"more": more})
    out.append({"close": True})


def config_tree_window(*, query: str = "", partition: str = "", focus: str = "",
                       page: str | None = None) -> dict[str, Any]:
    """``config_tree`` cut to what the page shows (``ConfigNotFound`` for a focus on no queue,
    ``TreePageInvalid`` for a page out of range)."""
    context = config_tree(query=query)
    for found in context["partitions"]:
        roots = _nested(found["items"])
        mine = found["name"] == partition and focus
        number = 1
        if mine:
            target = _find(roots, focus)
            if target is None:
                raise ConfigNotFound(ERR_NO_QUEUE.format(path=focus, partition=partition))
            number = page_number(page, count=len(target["kids"]), path=focus)
        keep = None
        if context["query"]:
            keep = set()
            # A search under a focus (a long level's own box) keeps to that subtree.
            under = [path for path in found["matched"]
                     if not mine or path.startswith(focus + ".")]
            for path in under[:SEARCH_ROWS]:
                segments = path.split(".")
                keep.update(".".join(segments[:n]) for n in range(1, len(segments) + 1))
        items: list[dict[str, Any]] = []
        sent = _sent(roots) if keep is None and not mine else set()
        for root in roots:
            _emit(root, items, keep=keep, focus=focus if mine else "", page=number, sent=sent)
        found["items"] = items
    context["search_rows"] = SEARCH_ROWS
    context["focus"] = focus
    return context


def config_tree_fragment(*, partition: str, path: str, page: str | None = None) -> dict[str, Any]:
    """The items of one page of ``path``'s children, closed (``ConfigNotFound``,
    ``TreePageInvalid``)."""
    context = config_tree()
    for found in context["partitions"]:
        if found["name"] != partition:
            continue
        target = _find(_nested(found["items"]), path)
        if target is None:
            break
        number = page_number(page, count=len(target["kids"]), path=path)
        parent = {**target, "open": True}
        items: list[dict[str, Any]] = []
        _emit(parent, items, keep=None, focus=path, page=number)
        # Without the queue itself and its closing: only what goes into its list.
        return {"partition": partition, "items": items[1:-1]}
    raise ConfigNotFound(ERR_NO_QUEUE.format(path=path, partition=partition))


def _find(roots: list[dict[str, Any]], path: str) -> dict[str, Any] | None:
    nodes = roots
    found = None
    segments = path.split(".")
    for n in range(1, len(segments) + 1):
        prefix = ".".join(segments[:n])
        found = next((node for node in nodes if node["path"] == prefix), None)
        if found is None:
            return None
        nodes = found["kids"]
    return found
