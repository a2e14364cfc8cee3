"""Which part of a partition's queue tree a usage page shows (the home page, the usage
overview), so it stays light at any size: ``quotaweb.config.tree_paths`` picks the queues (a
screen of them, ``?focus=``, ``?page=``, ``?q=``), this builds their rows. With scripts, a
closed queue's children come from ``queue_fragment`` (``static/js/usage-tree.js``) a page at a
time.

Each open queue is one live scope, ``queue:<path>`` (the queue and its children), so the socket
follows what is shown and nothing else: at most ``PAGE_SCOPES`` of them.

The figures of a row (its effective limits) need every queue above it, which the whole tree
read gives; only the rows shown, and the queues above them, are built.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from quotaweb.config import tree_paths
from quotaweb.config.queue_tree import partition_queues
from quotaweb.config.tree_paths import SEARCH_ROWS, More, PathEntry, PathWindow
from quotaweb.usage.limits import Level, TreeRow, ancestors, queue_level, tree_row, walk_tree
from quotaweb.usage.page_selectors import (
    UsageBadRequest,
    UsageNotFound,
    _gateway,
    over_limit_count,
)

# Live scopes one page subscribes to at most (consumers.MAX_SCOPES allows 64 a socket; a few
# are kept for what a reader opens).
PAGE_SCOPES = 48


class TreeNotFound(UsageNotFound):
    """``focus`` or a fragment's queue names no queue; ``str()`` says which."""


class TreeBadRequest(UsageBadRequest):
    """``page`` out of range; ``str()`` says what it accepts."""


@dataclass(frozen=True, slots=True)
class Shown:
    """A queue shown as a row: ``open`` when its children follow it."""

    path: str
    depth: int
    children: int
    open: bool
    row: TreeRow
    node: Mapping[str, Any]

    @property
    def name(self) -> str:
        return self.path.rpartition(".")[2]


@dataclass
class Window:
    entries: list[Shown | More]
    focus: str = "root"
    query: str = ""
    # Queues a search matched in all (None: no search).
    matched: int | None = None
    scopes: list[str] = field(default_factory=list)
    # The partition's root queue (the page's totals).
    root: Level | None = None

    @property
    def search_rows(self) -> int:
        return SEARCH_ROWS


def _window(partition: str, pick) -> Window:
    root = partition_queues(partition=partition)
    nodes: dict[str, Mapping[str, Any]] = {}
    children: dict[str, list[str]] = {}
    for node in walk_tree(root):
        nodes[node["queuename"]] = node
        if node.get("children"):
            children[node["queuename"]] = [kid["queuename"] for kid in node["children"]]
    try:
        paths: PathWindow = pick(children=children, known=nodes)
    except tree_paths.TreePathNotFound as error:
        raise TreeNotFound(f"{error} (partition {partition!r})") from None
    except tree_paths.TreePageInvalid as error:
        raise TreeBadRequest(str(error)) from None
    # Only the rows shown and the queues above them: a row's limits need no other.
    needed = {"root"}
    for entry in paths.entries:
        if isinstance(entry, PathEntry):
            needed.add(entry.path)
            needed.update(ancestors(entry.path))
    levels = {path: queue_level(nodes[path]) for path in needed if path in nodes}
    entries: list[Shown | More] = [
        Shown(entry.path, entry.depth, entry.children, entry.open,
              tree_row(levels, entry.path), nodes[entry.path])
        if isinstance(entry, PathEntry) else entry
        for entry in paths.entries
    ]
    return Window(entries, paths.focus, paths.query, paths.matched, root=levels["root"])


def tree_window(*, partition: str, focus: str = "", page: str | None = None,
                query: str = "") -> Window:
    """What a tree page shows (``TreeNotFound``, ``TreeBadRequest``; ``EngineNotLoaded``
    passes through)."""
    window = _window(partition, lambda **tree: tree_paths.path_window(
        **tree, focus=focus, page=page, query=query))
    window.scopes = [f"queue:{entry.path}" for entry in window.entries
                     if isinstance(entry, Shown) and entry.open][:PAGE_SCOPES]
    return window


def queue_fragment(*, partition: str, path: str, page: str | None = None) -> Window:
    """The children of ``path`` (one page of them, closed) for a page that opens it."""
    _gateway(partition)
    window = _window(partition, lambda **tree: tree_paths.path_fragment(
        **tree, path=path, page=page))
    window.scopes = [f"queue:{path}"]
    return window


def overview_window(*, partition: str, focus: str = "", page: str | None = None,
                    query: str = "") -> dict[str, Any]:
    """The usage overview of ``partition``: its totals and the part of its tree shown."""
    gateway = _gateway(partition)
    window = tree_window(partition=partition, focus=focus, page=page, query=query)
    summary = gateway.summary(partition)
    return {
        "partition": partition, "partitions": gateway.configured(), "window": window,
        "root": window.root, "user_count": summary["users"], "group_count": summary["groups"],
        "scopes": window.scopes, "over_limit": over_limit_count(partition=partition),
    }
