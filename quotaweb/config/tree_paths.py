"""Which queues of a tree a page shows, from its paths alone, for every page that draws a queue
tree (the usage trees, the elastic page; the configuration's tree does the same over its nested
rows in ``tree_window``).

A page opens collapsed to what fits a screen: the root and as many whole levels below it as
``SCREEN_ROWS`` rows hold. A level with more than ``LEVEL_ROWS`` children shows that many and a
``More`` entry (the pager: ``?focus=<parent>&page=<n>``). ``focus`` opens the page on one queue
(its ancestors above it, without their other children, and its children a page at a time):
what a queue's arrow opens without scripts. ``query`` shows the queues under the focus whose own
name holds the text, at most ``SEARCH_ROWS``, with their ancestors.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass

# Rows a page opens with at most (a screen or two): whole levels are opened while they fit.
SCREEN_ROWS = 60
# Children of one queue shown at once; more are paged.
LEVEL_ROWS = 50
# Queues a search shows at most (their ancestors come on top).
SEARCH_ROWS = 100

ERR_FOCUS = "There is no queue {path!r} in this tree to open it at."
ERR_TREE_PAGE = (
    "page must be a whole number from 1 to {last} ({count} queues under {path}, {size} a page), "
    "not {value!r}."
)


class TreePathNotFound(LookupError):
    """A focus or a fragment's queue names no queue of the tree; ``str()`` says which."""


class TreePageInvalid(ValueError):
    """``page`` out of range; ``str()`` says what it accepts."""


@dataclass(frozen=True, slots=True)
class PathEntry:
    """A queue shown as a row: ``open`` when its children follow it."""

    path: str
    depth: int
    children: int
    open: bool

    @property
    def name(self) -> str:
        return self.path.rpartition(".")[2]


@dataclass(frozen=True, slots=True)
class More:
    """Where a level shows only some of its children: which, of how many, and the pages."""

    parent: str
    depth: int  # the parent's
    first: int  # 1-based index of the first child shown
    last: int
    total: int
    page: int
    pages: int


@dataclass
class PathWindow:
    entries: list[PathEntry | More]
    focus: str
    query: str = ""
    # Queues a search matched in all (None: no search).
    matched: int | None = None

    @property
    def opened(self) -> list[str]:
        return [entry.path for entry in self.entries
                if isinstance(entry, PathEntry) and entry.open]


def page_number(value: str | None, *, count: int, path: str) -> int:
    """``?page=`` of ``path``'s ``count`` children: 1 when left out (``TreePageInvalid``)."""
    last = max(1, -(-count // LEVEL_ROWS))
    if value is None or value == "":
        return 1
    if value.isascii() and value.isdigit() and len(value) < 10 and 1 <= int(value) <= last:
        return int(value)
    raise TreePageInvalid(ERR_TREE_PAGE.format(
        last=last, count=count, path=path, size=LEVEL_ROWS, value=value
    ))


def _depth(path: str) -> int:
    return path.count(".")


def _ancestors(path: str) -> list[str]:
    segments = path.split(".")
    return [".".join(segments[:n]) for n in range(1, len(segments))]


def _more(parent: str, total: int, number: int) -> More | None:
    if total <= LEVEL_ROWS:
        return None
    first = (number - 1) * LEVEL_ROWS + 1
    return More(parent, _depth(parent), first, min(total, first + LEVEL_ROWS - 1), total,
                number, -(-total // LEVEL_ROWS))


def _screen_opened(children: Mapping[str, Sequence[str]], start: str, rows: int) -> set[str]:
    """``start`` and the whole levels below it that fit ``SCREEN_ROWS`` with ``rows`` already."""
    opened = {start}
    frontier = [start]
    rows += min(len(children.get(start, ())), LEVEL_ROWS)
    while frontier:
        below = [kid for path in frontier for kid in children.get(path, ())[:LEVEL_ROWS]]
        parents = [path for path in below if children.get(path)]
        extra = sum(min(len(children[path]), LEVEL_ROWS) for path in parents)
        if not parents or rows + extra > SCREEN_ROWS:
            break
        opened.update(parents)
        rows += extra
        frontier = parents
    return opened


def _search(children: Mapping[str, Sequence[str]], under: str, needle: str) -> list[str]:
    """Queues below ``under`` whose own name holds ``needle``, in tree order."""
    found = []
    stack = list(reversed(children.get(under, [])))
    while stack:
        path = stack.pop()
        if needle in path.rpartition(".")[2].lower():
            found.append(path)
        stack.extend(reversed(children.get(path, [])))
    return found


def path_window(
    *, children: Mapping[str, Sequence[str]], known: Container[str], focus: str = "",
    page: str | None = None, query: str = "", root: str = "root",
) -> PathWindow:
    """The queues a page shows of the tree ``children`` (parent path -> child paths in order;
    ``known``: every path), per the module's rules."""
    focus = focus or root
    if focus not in known:
        raise TreePathNotFound(ERR_FOCUS.format(path=focus))
    chain = [*_ancestors(focus), focus]
    number = page_number(page, count=len(children.get(focus, ())), path=focus)
    query = query.strip()
    entries: list[PathEntry | More] = []
    if query:
        matched = _search(children, focus, query.lower())
        keep = set(matched[:SEARCH_ROWS])
        for path in matched[:SEARCH_ROWS]:
            keep.update(_ancestors(path))
        opened = {path for path in keep if any(kid in keep for kid in children.get(path, ()))}
        _emit(children, root, entries, opened=opened,
              pick=lambda path: ([kid for kid in children.get(path, ()) if kid in keep], False))
        return PathWindow(entries, focus, query, len(matched))
    opened = set(chain[:-1]) | _screen_opened(children, focus, len(chain))

    def pick(path: str) -> tuple[Sequence[str], bool]:
        if path in chain[:-1]:
            return [chain[chain.index(path) + 1]], False
        at = (number - 1) * LEVEL_ROWS if path == focus else 0
        return children.get(path, [])[at:at + LEVEL_ROWS], True

    _emit(children, root, entries, opened=opened, pick=pick, page_of={focus: number})
    return PathWindow(entries, focus)


def path_fragment(
    *, children: Mapping[str, Sequence[str]], known: Container[str], path: str,
    page: str | None = None,
) -> PathWindow:
    """One page of ``path``'s children, closed: what a page loads when a queue is opened."""
    if path not in known:
        raise TreePathNotFound(ERR_FOCUS.format(path=path))
    kids = children.get(path, [])
    number = page_number(page, count=len(kids), path=path)
    at = (number - 1) * LEVEL_ROWS
    entries: list[PathEntry | More] = [
        PathEntry(kid, _depth(kid), len(children.get(kid, ())), False)
        for kid in kids[at:at + LEVEL_ROWS]
    ]
    more = _more(path, len(kids), number)
    if more is not None:
        entries.append(more)
    return PathWindow(entries, path)


def _emit(
    children: Mapping[str, Sequence[str]], start: str, entries: list[PathEntry | More], *,
    opened: set[str], pick: Callable[[str], tuple[Sequence[str], bool]],
    page_of: Mapping[str, int] | None = None,
) -> None:
    """``start`` and what is open below it, in tree order (a stack: trees can be deep)."""
    stack: list[str | More] = [start]
    while stack:
        item = stack.pop()
        if isinstance(item, More):
            entries.append(item)
            continue
        kids_all = children.get(item, ())
        is_open = item in opened and bool(kids_all)
        entries.append(PathEntry(item, _depth(item), len(kids_all), is_open))
        if not is_open:
            continue
        kids, paged = pick(item)
        # A level cut to what a focus or a search needs shows no pager.
        more = _more(item, len(kids_all), (page_of or {}).get(item, 1)) if paged else None
        if more is not None:
            stack.append(more)
        stack.extend(reversed(kids))
