"""Which part of a partition's queue tree a page shows, so a page stays light at any size.

A page opens collapsed to what fits a screen: the root and as many whole levels below it as
``SCREEN_ROWS`` rows hold. A level with more than ``LEVEL_ROWS`` children shows that many and a
row that pages on (``?focus=<parent>&page=<n>``) with a search box for that level. ``focus``
opens the page on one subtree (its ancestors above it, without their other children): what a
queue's expand link does without scripts. ``q`` shows the queues whose name holds the text (at
most ``SEARCH_ROWS``, with their ancestors) under the focus. With scripts, a closed queue's
children come from ``queue_fragment`` (``static/js/usage-tree.js``) a level at a time.

Each open queue is one live scope, ``queue:<path>`` (the queue and its children), so the socket
follows what is shown and nothing else: at most ``consumers.MAX_SCOPES`` of them.

The figures of a row (its effective limits) need every queue above it, which the whole tree
read gives; only the rows shown are built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from quotaweb.config.queue_tree import partition_queues
from quotaweb.usage.limits import (
    Level,
    TreeRow,
    ancestors,
    path_segments,
    queue_level,
    tree_levels,
    tree_row,
    walk_tree,
)
from quotaweb.usage.page_selectors import (
    UsageBadRequest,
    UsageNotFound,
    _gateway,
    over_limit_count,
)

# Rows a page opens with at most (a screen or two): whole levels are opened while they fit.
SCREEN_ROWS = 60
# Children of one queue shown at once; more are paged.
LEVEL_ROWS = 50
# Queues a search shows at most (their ancestors come on top).
SEARCH_ROWS = 100
# Live scopes one page subscribes to at most (consumers.MAX_SCOPES allows 64 a socket; a few
# are kept for what a reader opens).
PAGE_SCOPES = 48

ERR_FOCUS = "There is no queue {path!r} in partition {partition!r} to open the tree at."
ERR_TREE_PAGE = (
    "page must be a whole number from 1 to {last} ({count} queues under {path}, {size} a page), "
    "not {value!r}."
)


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


@dataclass(frozen=True, slots=True)
class More:
    """Where a level shows only some of its children: which, of how many, and the pages."""

    parent: str
    depth: int
    first: int  # 1-based index of the first child shown
    last: int  # index of the last child shown
    total: int
    page: int
    pages: int


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


@dataclass
class _Tree:
    nodes: dict[str, Mapping[str, Any]]
    children: dict[str, list[str]]
    levels: dict[str, Level]

    def shown(self, path: str, *, open_: bool) -> Shown:
        return Shown(path, len(path_segments(path)) - 1, len(self.children.get(path, ())),
                     open_, tree_row(self.levels, path), self.nodes[path])


def _tree(partition: str) -> _Tree:
    root = partition_queues(partition=partition)
    nodes: dict[str, Mapping[str, Any]] = {}
    children: dict[str, list[str]] = {}
    for node in walk_tree(root):
        nodes[node["queuename"]] = node
        kids = node.get("children")
        if kids:
            children[node["queuename"]] = [kid["queuename"] for kid in kids]
    return _Tree(nodes, children, tree_levels(root, queue_level))


def _page_number(value: str | None, *, count: int, path: str) -> int:
    last = max(1, -(-count // LEVEL_ROWS))
    if value is None or value == "":
        return 1
    if value.isascii() and value.isdigit() and len(value) < 10 and 1 <= int(value) <= last:
        return int(value)
    raise TreeBadRequest(ERR_TREE_PAGE.format(
        last=last, count=count, path=path, size=LEVEL_ROWS, value=value
    ))


def _screen_opened(tree: _Tree, start: str, rows: int) -> set[str]:
    """``start`` and the whole levels below it that fit ``SCREEN_ROWS`` with ``rows`` already."""
    opened = {start}
    frontier = [start]
    rows += min(len(tree.children.get(start, ())), LEVEL_ROWS)
    while frontier:
        below = [kid for path in frontier for kid in tree.children.get(path, ())[:LEVEL_ROWS]]
        parents = [path for path in below if path in tree.children]
        extra = sum(min(len(tree.children[path]), LEVEL_ROWS) for path in parents)
        if not parents or rows + extra > SCREEN_ROWS:
            break
        opened.update(parents)
        rows += extra
        frontier = parents
    return opened


def tree_window(*, partition: str, focus: str = "", page: str | None = None,
                query: str = "") -> Window:
    """What a tree page shows (``TreeNotFound``, ``TreeBadRequest``; ``EngineNotLoaded``
    passes through)."""
    tree = _tree(partition)
    focus = focus or "root"
    if focus not in tree.nodes:
        raise TreeNotFound(ERR_FOCUS.format(path=focus, partition=partition))
    chain = [*ancestors(focus), focus]
    kids = tree.children.get(focus, [])
    number = _page_number(page, count=len(kids), path=focus)
    query = query.strip()
    entries: list[Shown | More] = []
    if query:
        matched = _search(tree, focus, query.lower())
        keep = set(matched[:SEARCH_ROWS])
        for path in matched[:SEARCH_ROWS]:
            keep.update(ancestors(path))
        opened = {path for path in keep
                  if any(kid in keep for kid in tree.children.get(path, ()))}
        _emit(tree, "root", entries, opened=opened,
              pick=lambda path: ([kid for kid in tree.children.get(path, ()) if kid in keep],
                                 False))
        window = Window(entries, focus, query, len(matched))
    else:
        opened = set(chain[:-1]) | _screen_opened(tree, focus, len(chain))

        def pick(path: str) -> tuple[Sequence[str], bool]:
            if path in chain[:-1]:
                return [chain[chain.index(path) + 1]], False
            below = tree.children.get(path, [])
            at = (number - 1) * LEVEL_ROWS if path == focus else 0
            return below[at:at + LEVEL_ROWS], True

        _emit(tree, "root", entries, opened=opened, pick=pick,
              page_of={focus: number})
        window = Window(entries, focus)
    window.root = tree.levels["root"]
    window.scopes = [f"queue:{entry.path}" for entry in entries
                     if isinstance(entry, Shown) and entry.open][:PAGE_SCOPES]
    return window


def queue_fragment(*, partition: str, path: str, page: str | None = None) -> Window:
    """The children of ``path`` (one page of them, closed) for a page that opens it."""
    _gateway(partition)
    tree = _tree(partition)
    if path not in tree.nodes:
        raise TreeNotFound(ERR_FOCUS.format(path=path, partition=partition))
    kids = tree.children.get(path, [])
    number = _page_number(page, count=len(kids), path=path)
    at = (number - 1) * LEVEL_ROWS
    entries: list[Shown | More] = [
        tree.shown(kid, open_=False) for kid in kids[at:at + LEVEL_ROWS]
    ]
    more = _more(path, len(kids), number)
    if more is not None:
        entries.append(more)
    window = Window(entries, path, scopes=[f"queue:{path}"])
    window.root = tree.levels["root"]
    return window


def _search(tree: _Tree, under: str, needle: str) -> list[str]:
    """Queues below ``under`` whose own name holds ``needle``, in tree order."""
    found = []
    stack = list(reversed(tree.children.get(under, [])))
    while stack:
        path = stack.pop()
        if needle in path.rpartition(".")[2].lower():
            found.append(path)
        stack.extend(reversed(tree.children.get(path, [])))
    return found


def _more(parent: str, total: int, number: int) -> More | None:
    if total <= LEVEL_ROWS:
        return None
    first = (number - 1) * LEVEL_ROWS + 1
    return More(parent, len(path_segments(parent)), first, min(total, first + LEVEL_ROWS - 1),
                total, number, -(-total // LEVEL_ROWS))


def _emit(
    tree: _Tree, start: str, entries: list[Shown | More], *, opened: set[str],
    pick: Callable[[str], tuple[Sequence[str], bool]], page_of: Mapping[str, int] | None = None,
) -> None:
    """``start`` and what is open below it, in tree order (a stack: trees can be deep)."""
    stack: list[str | More] = [start]
    while stack:
        item = stack.pop()
        if isinstance(item, More):
            entries.append(item)
            continue
        is_open = item in opened and item in tree.children
        entries.append(tree.shown(item, open_=is_open))
        if not is_open:
            continue
        kids, paged = pick(item)
        # A level cut to what a focus or a search needs shows no pager.
        total = len(tree.children[item])
        more = _more(item, total, (page_of or {}).get(item, 1)) if paged else None
        if more is not None:
            stack.append(more)
        stack.extend(reversed(kids))


def overview_window(*, partition: str, focus: str = "", page: str | None = None,
                    query: str = "") -> dict[str, Any]:
    """The usage overview of ``partition``: its totals and the part of its tree shown."""
    gateway = _gateway(partition)
    window = tree_window(partition=partition, focus=focus, page=page, query=query)
    summary = gateway.summary(partition)
    return {
        "partition": partition, "partitions": gateway.partitions(), "window": window,
        "root": window.root, "user_count": summary["users"], "group_count": summary["groups"],
        "scopes": window.scopes, "over_limit": over_limit_count(partition=partition),
    }
