"""What the quota tree pages show, one read per page: the list of trees and forests, a tree
drawn node by node (quota, allocated, slack, consumers with their groups), a forest's trees side
by side, a consumer's story, and the editor's starting point.

The rows here are drawn again in the browser by ``static/js/quotatree.js`` when the live scope
``tree:<name>`` brings new figures: the bars, the words and each row's signature (``data-sig``,
unchanged rows are left as the server drew them) are computed the same way on both sides. Keep
the two in step.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from quotaweb.css_sizes import WIDTH, depth_class, percent_class
from quotaweb.engine.gateway import engines_get
from quotaweb.quotatrees import selectors
from quotaweb.quotatrees.models import Forest, Tree
from quotaweb.quotatrees.units import tree_quantity, tree_resource_text
from trackers.quotatree import NOT_FOUND, QuotaTreeError

FEED_SHOWN = 100
# The steps that say where a consumer ended up (trackers.quotatree.messages STEP_FITS, STEP_FORCED).
PLACED_STEPS = ("placed at", "maintenance mode:")
ERR_NO_CONSUMER = (
    "No consumer {consumer!r} is allocated on any tree, and nothing has been recorded about it."
)
ERR_NO_FOREST = "There is no forest {forest!r}."

KIND_TEXT = {
    "allocated": "placed",
    "forced": "forced",
    "trial": "tried",
    "rejected": "rejected",
    "preempted": "preempted",
    "released": "released",
    "undone": "trial undone",
    "unplaced": "not placed again",
}
HOW_TEXT = {
    "root": "pushed out at the root to make room",
    "priority": "preempted by a higher priority on its own path",
    "forest": "preempted on another tree of its forest, so removed here too",
}
MODE_TEXT = {
    "normal": (
        "Normal: an allocation is placed at the lowest node from its group up where it fits, "
        "borrowing unused quota through soft nodes (never above a hard one), and a higher "
        "priority may preempt."
    ),
    "maintenance": (
        "Maintenance: allocations are forced at their group without any check (quotas may be "
        "exceeded) and trials are refused. Use it while loading consumers that already run, "
        "then switch back to normal."
    ),
}


class PageNotFound(Exception):
    """Nothing to show at this address (404)."""


# -- bars and rows --------------------------------------------------------------------------------


def kv(values: Mapping[str, int] | None) -> str:
    """``cpu=3,memory=8``: a map in key order, as the signatures write it."""
    return ",".join(f"{key}={values[key]}" for key in sorted(values or {}))


resource_text = tree_resource_text


@dataclass(frozen=True)
class Bar:
    """Allocated against quota for one resource of a node; over quota when above it."""

    kind: str
    allocated: int
    quota: int

    @property
    def over(self) -> bool:
        return self.allocated > self.quota

    @property
    def ratio(self) -> float:
        if self.quota > 0:
            return self.allocated / self.quota
        return float("inf") if self.allocated > 0 else 0.0

    @property
    def level(self) -> str:
        if self.over:
            return "over"
        for threshold in (90, 75, 60):
            if self.ratio * 100 >= threshold:
                return str(threshold)
        return "ok"

    @property
    def width(self) -> int:
        return 100 if self.ratio >= 1 else max(0, int(self.ratio * 100))

    @property
    def width_class(self) -> str:
        return percent_class(WIDTH, self.width)

    def q(self, value: int) -> str:
        return tree_quantity(self.kind, value)

    @property
    def text(self) -> str:
        allocated, quota = self.q(self.allocated), self.q(self.quota)
        if self.over:
            return f"{allocated} of {quota} · over by {self.q(self.allocated - self.quota)}"
        return f"{allocated} of {quota} · {int(self.ratio * 100)} %"

    @property
    def title(self) -> str:
        head = f"{self.kind}: {self.q(self.allocated)} allocated of a quota of {self.q(self.quota)}"
        if self.over:
            return f"{head}, {self.q(self.allocated - self.quota)} over quota"
        return f"{head}, {self.q(self.quota - self.allocated)} left"


@dataclass(frozen=True)
class Slack:
    """Quota minus the children's quotas, for one resource; negative: over-committed."""

    kind: str
    value: int

    @property
    def negative(self) -> bool:
        return self.value < 0

    @property
    def text(self) -> str:
        return tree_quantity(self.kind, self.value)

    @property
    def note(self) -> str:
        if not self.negative:
            return ""
        return f"its children are promised {tree_quantity(self.kind, -self.value)} more than it has"


@dataclass(frozen=True)
class Placed:
    """A consumer placed at a node: its group (gNode), priority and request when known."""

    id: str
    group: str | None = None
    priority: int | None = None
    request: Mapping[str, int] = field(default_factory=dict)
    # placed above its group: it borrows quota of that node
    borrowing: bool = False

    @property
    def sig(self) -> str:
        if self.group is None:
            return f"{self.id}@?"
        return f"{self.id}@{self.group}#{self.priority}#{kv(self.request)}"

    @property
    def title(self) -> str:
        if self.group is None:
            return ""
        return f"priority {self.priority}, asks for {resource_text(self.request)}"


@dataclass(frozen=True)
class NodeRow:
    name: str
    parent: str | None
    depth: int
    hard: bool
    leaf: bool
    bars: list[Bar]
    slack: list[Slack]
    consumers: list[Placed]
    sig: str

    @property
    def over(self) -> bool:
        return any(bar.over for bar in self.bars)

    @property
    def depth_class(self) -> str:
        return depth_class(self.depth)


def node_sig(node: Mapping[str, Any], placed: Iterable[Placed]) -> str:
    """The signature of a node row (``quotatree.js`` writes the same)."""
    return "|".join([
        node["name"], node.get("parent") or "", "hard" if node["hard"] else "soft",
        kv(node["quota"]), kv(node["allocated"]), kv(node["slack"]),
        " ".join(p.sig for p in placed),
    ])


def tree_order(nodes: list[Mapping[str, Any]]) -> list[tuple[Mapping[str, Any], int]]:
    """The nodes depth first from the root, children in the order given, with their depth."""
    children: dict[str | None, list[Mapping[str, Any]]] = {}
    names = {node["name"] for node in nodes}
    for node in nodes:
        parent = node.get("parent")
        children.setdefault(parent if parent in names else None, []).append(node)
    out: list[tuple[Mapping[str, Any], int]] = []
    stack = [(node, 0) for node in reversed(children.get(None, []))]
    seen: set[str] = set()
    while stack:
        node, depth = stack.pop()
        if node["name"] in seen:
            continue
        seen.add(node["name"])
        out.append((node, depth))
        stack.extend((child, depth + 1) for child in reversed(children.get(node["name"], [])))
    out.extend((node, 0) for node in nodes if node["name"] not in seen)
    return out


def consumer_info(allocations: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """What the rows say about each consumer: ``{id: {group, priority, request}}`` (also the
    page's starting map for ``quotatree.js``)."""
    return {
        c["id"]: {"group": c["groupID"], "priority": c["priority"], "request": c["request"]}
        for c in allocations
    }


def node_rows(view: Mapping[str, Any], info: Mapping[str, Mapping[str, Any]]) -> list[NodeRow]:
    nodes = view["nodes"]
    parents = {node.get("parent") for node in nodes}
    rows = []
    for node, depth in tree_order(nodes):
        placed = [
            Placed(cid, info[cid]["group"], info[cid]["priority"], info[cid]["request"],
                   borrowing=info[cid]["group"] != node["name"])
            if cid in info else Placed(cid)
            for cid in node["consumers"]
        ]
        kinds = sorted(set(node["quota"]) | set(node["allocated"]))
        rows.append(NodeRow(
            name=node["name"], parent=node.get("parent"), depth=depth, hard=node["hard"],
            leaf=node["name"] not in parents,
            bars=[Bar(k, node["allocated"].get(k, 0), node["quota"].get(k, 0)) for k in kinds],
            slack=[Slack(k, node["slack"][k]) for k in sorted(node["slack"])],
            consumers=placed, sig=node_sig(node, placed),
        ))
    return rows


# -- the feed --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FeedRow:
    seq: int | None
    at: datetime
    kind: str
    kind_text: str
    consumer: str
    places: list[tuple[str, str]]
    trees: list[str]
    forest: str
    message: str
    steps: list[str]
    preemption: Mapping[str, Any] | None

    @property
    def reason(self) -> str:
        """The one line that says why: the message, or where it was placed, or the last step."""
        if self.message:
            return self.message
        placed = [step for step in self.steps if step.startswith(PLACED_STEPS)]
        return placed[-1] if placed else (self.steps[-1] if self.steps else "")

    @property
    def how_text(self) -> str:
        if not self.preemption:
            return ""
        return HOW_TEXT.get(self.preemption.get("how", ""), self.preemption.get("how", ""))


def _moment(at: Any) -> datetime:
    if isinstance(at, datetime):
        return at
    return datetime.fromtimestamp(float(at), tz=UTC)


def feed_row(event: Mapping[str, Any], consumer: str = "") -> FeedRow:
    nodes = event.get("nodes") or {}
    preemption = event.get("preemption")
    places = sorted(nodes.items())
    if preemption and not places:
        places = [(preemption["tree"], preemption["node"])]
    return FeedRow(
        seq=event.get("seq"), at=_moment(event["at"]), kind=event["kind"],
        kind_text=KIND_TEXT.get(event["kind"], event["kind"]),
        consumer=event.get("consumer", consumer),
        places=places, trees=list(event.get("trees") or []), forest=event.get("forest") or "",
        message=event.get("message") or "", steps=list(event.get("steps") or []),
        preemption=preemption,
    )


def feed_rows(events: Iterable[Mapping[str, Any]]) -> list[FeedRow]:
    """Newest first, each event once (an event of a forest touches several trees)."""
    unique = {event["seq"]: event for event in events}
    newest = sorted(unique.values(), key=lambda e: e["seq"], reverse=True)[:FEED_SHOWN]
    return [feed_row(event) for event in newest]


# -- pages -----------------------------------------------------------------------------------


def live_partition() -> str | None:
    """The partition whose socket carries the tree scopes (any will do: the first)."""
    partitions = engines_get().partitions()
    return partitions[0] if partitions else None


def _versions() -> dict[str, int]:
    return dict(Tree.objects.values_list("name", "version"))


def trees_page() -> dict[str, Any]:
    """``/trees/``: every tree with its figures and version, every forest with its trees."""
    versions = _versions()
    trees = [{**tree, "version": versions.get(tree["name"])} for tree in selectors.trees_list()]
    return {"trees": trees, "forests": selectors.forests_list(),
            "tree_names": [tree["name"] for tree in trees]}


def forest_names() -> list[str]:
    return list(Forest.objects.values_list("name", flat=True))


def tree_names() -> list[str]:
    return [tree["name"] for tree in selectors.trees_list()]


def _tree_part(tree: str) -> dict[str, Any]:
    """One tree as its page (or its forest's page) draws it."""
    view = selectors.tree_view(tree=tree)
    info = consumer_info(selectors.tree_allocations(tree=tree))
    rows = node_rows(view, info)
    created = view.get("versionCreated")
    return {
        "view": view, "name": tree, "rows": rows, "info": info,
        "consumer_count": sum(len(row.consumers) for row in rows),
        "version_created": datetime.fromisoformat(created) if created else None,
        "mode_text": MODE_TEXT.get(view["mode"], ""),
        "other_mode": "normal" if view["mode"] == "maintenance" else "maintenance",
        "feed": selectors.tree_feed(tree=tree),
    }


def tree_page(*, tree: str) -> dict[str, Any]:
    """``/trees/<tree>/``: the tree node by node, its feed newest first, its versions, and the
    socket's partition and scope (QuotaTreeError NOT_FOUND for an unknown tree)."""
    part = _tree_part(tree)
    return {
        "tree": part, "trees": [part], "feed": feed_rows(part["feed"]),
        "versions": selectors.tree_versions(tree=tree)[:10],
        "consumer_map": {tree: part["info"]},
        "partition": live_partition(), "scopes": [f"tree:{tree}"],
        "mode_texts": MODE_TEXT,
    }


def forest_page(*, forest: str) -> dict[str, Any]:
    """``/trees/forests/<forest>/``: its trees side by side, live, and their joint feed."""
    try:
        info = selectors.forest_view(forest=forest)
    except QuotaTreeError as error:
        if error.code == NOT_FOUND:
            raise PageNotFound(ERR_NO_FOREST.format(forest=forest)) from None
        raise
    parts = [_tree_part(tree) for tree in info["trees"]]
    return {
        "forest": info, "trees": parts,
        "feed": feed_rows(event for part in parts for event in part["feed"]),
        "consumer_map": {part["name"]: part["info"] for part in parts},
        "partition": live_partition(), "scopes": [f"tree:{part['name']}" for part in parts],
        "mode_texts": MODE_TEXT, "tree_names": tree_names(),
        "other_mode": "normal" if info["mode"] == "maintenance" else "maintenance",
        "mode_text": MODE_TEXT.get(info["mode"], ""),
    }


def consumer_page(*, consumer: str) -> dict[str, Any]:
    """``/trees/consumers/<id>/``: where it is per tree and why, and its history."""
    story = selectors.consumer_story(consumer=consumer)
    if not story["placements"] and not story["events"]:
        raise PageNotFound(ERR_NO_CONSUMER.format(consumer=consumer))
    placements = [
        {**placed, "tree": tree, "request_text": resource_text(placed["request"])}
        for tree, placed in sorted(story["placements"].items())
    ]
    return {"consumer": consumer, "placements": placements,
            "events": [feed_row(event, consumer) for event in story["events"]]}


def editor_document(*, tree: str) -> dict[str, Any]:
    """The active document of a tree, to edit (QuotaTreeError NOT_FOUND when unknown)."""
    return selectors.tree_document(tree=tree)


def tree_export(*, tree: str) -> str:
    """The active document as indented JSON, for download."""
    return json.dumps(selectors.tree_document(tree=tree), indent=2) + "\n"
