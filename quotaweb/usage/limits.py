"""Usage against limits, by the rules every usage page shows: bars, trees and effective limits.

``static/js/live.js`` recomputes the same rows from the same REST shapes with the same rules when
usage changes; keep the two in step. The rules:

- A tree row's **effective limit** for a resource is the most the node could hold right now: its
  usage plus the least room left on any capped level from root down to it (the engine admits
  nothing beyond that). ``source`` is the level that leaves the least room, the node's own when
  it ties. Applications work the same way with running applications and application caps.
- An entity's **most constrained limit** is the highest share used of any cap it has, at the
  level where that cap is set (the same number the effective limits peak at).
- Bars are coloured at 60, 75 and 90 % and have a colour of their own above the limit.

A tree comes as either REST shape (a user's or group's queues, or the queue tree) and is read
into ``Level``s by queue path (``tree_levels`` with ``entity_level`` or ``queue_level``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from trackers.resources import NOT_ALLOWED, base_unit, format_quantity

APPLICATIONS = "applications"

# How a bar explains an odd limit: a level above sets it (NOT_ALLOWED says a limit of 0).
CAPPED_BY = "capped by {source}"
CAPPED_LESS = ": {written} less {elsewhere} in use elsewhere"


# -- bars ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bar:
    """Usage of one resource type (or of applications) against a limit; ``limit`` None is
    unlimited, and may be negative when a level above is already over its cap.

    ``written`` is the limit as the configuration sets it at ``source``, when known, and
    ``above`` says that ``source`` is a level above the row's own: the text then says why the
    limit is what it is (a limit of 0 is "not allowed"; a parent's cap, less what others use,
    explains an effective limit of 74 apps under an 80-app limit).
    """

    kind: str
    used: int
    limit: int | None
    source: str = ""
    written: int | None = None
    above: bool = False

    @property
    def over(self) -> bool:
        return self.limit is not None and self.used > self.limit

    @property
    def ratio(self) -> float:
        """Share used; infinite when a limit of nothing is exceeded; 0 without a limit."""
        if self.limit is None:
            return 0.0
        shown = max(self.limit, 0)
        if shown > 0:
            return self.used / shown
        return math.inf if self.used > 0 or self.over else 0.0

    @property
    def level(self) -> str:
        """``ok``, ``60``, ``75``, ``90`` or ``over``: the CSS colour class ``lvl-<level>``."""
        if self.limit is None:
            return "none"
        if self.over:
            return "over"
        ratio = self.ratio
        return next((str(t) for t in (90, 75, 60) if ratio * 100 >= t), "ok")

    @property
    def width(self) -> int:
        """The fill of the bar in percent (0 to 100)."""
        if self.limit is None:
            return 0
        ratio = self.ratio
        return 100 if ratio >= 1 else max(0, math.floor(ratio * 100))

    @property
    def label(self) -> str:
        return "apps" if self.kind == APPLICATIONS else self.kind

    @property
    def text(self) -> str:
        used = quantity_text(self.kind, self.used)
        if self.limit is None:
            return f"{used} · no limit"
        limit = quantity_text(self.kind, max(self.limit, 0))
        if self.written == 0:
            text = NOT_ALLOWED if not self.used else f"{NOT_ALLOWED} · {used} in use"
        elif self.over:
            text = f"{used} of {limit} · over by {quantity_text(self.kind, self.used - self.limit)}"
        else:
            text = f"{used} of {limit} · {math.floor(self.ratio * 100)} %"
        if not self.above:
            return text
        text = f"{text} · {CAPPED_BY.format(source=self.source)}"
        if not self.written or self.written == self.limit:
            return text
        return text + CAPPED_LESS.format(
            written=quantity_text(self.kind, self.written),
            elsewhere=quantity_text(self.kind, self.written - self.limit),
        )

    @property
    def title(self) -> str:
        """The raw numbers, for hover."""
        unit = base_unit(self.kind)
        if self.limit is None:
            return f"{self.kind}: {self.used}{unit} used, no limit"
        title = (
            f"{self.kind}: {self.used}{unit} used of {self.limit}{unit}, "
            f"{self.limit - self.used}{unit} left; tightest limit at {self.source}"
        )
        if self.written is None or self.written == self.limit:
            return title
        return f"{title}, which sets {self.written}{unit}"

    @property
    def sig(self) -> str:
        limit = "-" if self.limit is None else self.limit
        sig = f"{self.kind}={self.used}/{limit}@{self.source}"
        # The limit as written changes the text even when the effective limit stays the same.
        if self.written is None or self.written == self.limit:
            return sig
        return f"{sig}^{self.written}"


def quantity_text(kind: str, value: int) -> str:
    """An amount of ``kind`` for people (``4.3 GiB``); applications as a plain count."""
    return str(value) if kind == APPLICATIONS else format_quantity(kind, value)


def raw_text(kind: str, value: int) -> str:
    """An amount of ``kind`` as the raw number with its unit (``4617089843 bytes``), for hover."""
    return f"{value}{base_unit(kind)}"


# -- trees -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Level:
    """One node of a user, group or queue tree, whatever its REST shape."""

    path: str
    usage: Mapping[str, int]
    running: int
    cap: Mapping[str, int] | None
    max_apps: int
    apps: tuple[str, ...] = ()


def entity_level(node: Mapping[str, Any]) -> Level:
    """A node of a user's or group's queues."""
    apps = tuple(node.get("runningApplications", ()))
    return Level(
        node["queuePath"], node.get("resourceUsage", {}), len(apps), node.get("maxResources"),
        node.get("maxApplications", 0), apps,
    )


def queue_level(node: Mapping[str, Any]) -> Level:
    """A node of the queue tree."""
    return Level(
        node["queuename"], node.get("allocatedResource", {}), node.get("runningApps", 0),
        node.get("maxResource"), node.get("maxRunningApps", 0),
    )


def walk_tree(root: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """``root`` and every node under it, parents before their children."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.get("children", ())))


def tree_levels(
    root: Mapping[str, Any], shape: Callable[[Mapping[str, Any]], Level]
) -> dict[str, Level]:
    """Every node of the tree under ``root`` read by ``shape``, by queue path."""
    return {level.path: level for level in map(shape, walk_tree(root))}


def path_segments(path: str) -> list[str]:
    """A queue path's names, root first (the key that sorts paths in tree order)."""
    return path.split(".")


def ancestors(path: str) -> list[str]:
    """The paths above ``path``, root first."""
    segments = path_segments(path)
    return [".".join(segments[: n + 1]) for n in range(len(segments) - 1)]


def in_tree_order(levels: Mapping[str, Level]) -> list[Level]:
    return [levels[path] for path in sorted(levels, key=path_segments)]


def _chain(levels: Mapping[str, Level], path: str) -> list[Level]:
    return [levels[prefix] for prefix in (*ancestors(path), path) if prefix in levels]


def _effective(chain: list[Level], kind: str) -> Bar:
    """``chain[-1]``'s usage of ``kind`` against the least room on the chain."""
    node = chain[-1]
    is_apps = kind == APPLICATIONS
    used = node.running if is_apps else node.usage.get(kind, 0)
    best: tuple[int, str, int] | None = None
    for level in reversed(chain):
        if is_apps:
            if not level.max_apps:
                continue
            written = level.max_apps
            room = written - level.running
        else:
            if not level.cap or kind not in level.cap:
                continue
            written = level.cap[kind]
            room = written - level.usage.get(kind, 0)
        if best is None or used + room < best[0]:
            best = (used + room, level.path, written)
    if best is None:
        return Bar(kind, used, None)
    limit, source, written = best
    return Bar(kind, used, limit, source, written, source != node.path)


@dataclass(frozen=True, slots=True)
class TreeRow:
    """A node of a tree: its usage of each resource and of applications against its effective
    limits."""

    path: str
    depth: int
    bars: tuple[Bar, ...]
    apps: Bar

    @property
    def name(self) -> str:
        return self.path.rpartition(".")[2]

    @property
    def sig(self) -> str:
        return ";".join(bar.sig for bar in (*self.bars, self.apps))


def tree_row(levels: Mapping[str, Level], path: str) -> TreeRow:
    chain = _chain(levels, path)
    kinds = set(chain[-1].usage)
    for level in chain:
        kinds.update(level.cap or ())
    bars = tuple(_effective(chain, kind) for kind in sorted(kinds))
    return TreeRow(path, len(path_segments(path)) - 1, bars, _effective(chain, APPLICATIONS))


def tree_rows(levels: Mapping[str, Level]) -> list[TreeRow]:
    """A row per node, in tree order."""
    return [tree_row(levels, path) for path in sorted(levels, key=path_segments)]


def most_constrained(levels: Iterable[Level]) -> Bar | None:
    """The cap with the highest share used, where it is set (first in tree order on a tie)."""
    worst: Bar | None = None
    for level in levels:
        bars = [Bar(kind, level.usage.get(kind, 0), cap, level.path, cap)
                for kind, cap in sorted((level.cap or {}).items())]
        if level.max_apps:
            bars.append(
                Bar(APPLICATIONS, level.running, level.max_apps, level.path, level.max_apps)
            )
        for bar in bars:
            if worst is None or bar.ratio > worst.ratio:
                worst = bar
    return worst
