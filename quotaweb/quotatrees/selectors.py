"""Reads of quota trees: a tree's nodes with quota, allocated, slack and consumers; its
consumers; a consumer's story (why it was placed, rejected or preempted); forests; the feed."""

from __future__ import annotations

from typing import Any

from quotaweb.engine.quotatrees import trees_get, trees_loaded
from quotaweb.quotatrees.models import TreeEvent, TreeVersion

FEED_SNAPSHOT = 100


def trees_list() -> list[dict[str, Any]]:
    """Every tree: name, mode, version, forest, root, resources, consumer count."""
    manager = trees_get().manager
    found = []
    for name in sorted(manager.tree_names()):
        state = manager.state(name)
        found.append({
            "name": name, "mode": state["mode"], "forest": manager.forest_of(name),
            "root": state["root"], "resourceNames": state["resources"],
            "nodes": len(state["nodes"]), "consumers": len(manager.placements(name)),
        })
    return found


def tree_view(*, tree: str) -> dict[str, Any]:
    """``GET /api/v1/quota-trees/{tree}``: the tree's settings and, per node in tree order,
    ``name, parent, hard, quota, allocated, slack, consumers`` (ids placed there, in order)."""
    slot = trees_get()
    manager = slot.manager
    state = manager.state(tree)
    version = TreeVersion.objects.filter(tree=tree).order_by("-number").values(
        "number", "created", "author__username", "comment"
    ).first()
    return {
        "name": tree, "mode": state["mode"], "forest": manager.forest_of(tree),
        "resourceNames": state["resources"], "root": state["root"],
        "version": version["number"] if version else None,
        "versionCreated": version["created"].isoformat() if version else None,
        "versionAuthor": version["author__username"] if version else None,
        "generation": slot.generation(tree),
        "nodes": [{"name": name, **node} for name, node in state["nodes"].items()],
    }


def tree_document(*, tree: str) -> dict[str, Any]:
    """The tree's active ``QuotaTree`` JSON document (export)."""
    return trees_get().manager.tree_spec(tree).document()


def tree_allocations(*, tree: str) -> list[dict[str, Any]]:
    """The consumers allocated on the tree: ``id, node, groupID, request, priority, type,
    unPreemptable, borrowing, reasons``, in placement order."""
    return [
        {key: value for key, value in placement.items() if key != "stamp"}
        for placement in trees_get().manager.placements(tree)
    ]


def tree_versions(*, tree: str) -> list[dict[str, Any]]:
    return list(TreeVersion.objects.filter(tree=tree).order_by("-number").values(
        "number", "created", "author__username", "comment"
    ))


def consumer_story(*, consumer: str) -> dict[str, Any]:
    """Where a consumer is allocated now (per tree, with why) and everything that happened to
    it, newest first: placed, rejected, preempted (by whom), released, undone."""
    manager = trees_get().manager
    placements = {}
    for name in manager.tree_names():
        placed = manager.placement(name, consumer)
        if placed is not None:
            placements[name] = placed
    events = [
        {"at": row.at, "kind": row.kind, "trees": row.trees, "forest": row.forest,
         "nodes": row.nodes, "message": row.message, "steps": row.steps,
         "preemption": row.preemption}
        for row in TreeEvent.objects.filter(consumer=consumer).order_by("-id")[:200]
    ]
    return {"id": consumer, "placements": placements, "events": events}


def forests_list() -> list[dict[str, Any]]:
    manager = trees_get().manager
    return [
        {"name": name, "trees": manager.forest_trees(name), "mode": manager.forest_mode(name)}
        for name in sorted(manager.forest_names())
    ]


def forest_view(*, forest: str) -> dict[str, Any]:
    manager = trees_get().manager
    trees = manager.forest_trees(forest)
    return {"name": forest, "mode": manager.forest_mode(forest), "trees": trees}


def tree_live(*, tree: str) -> dict[str, Any] | None:
    """What the live ``tree:<name>`` scope starts from: the tree (``tree_view``) and its recent
    feed; None when there is no such tree (any more)."""
    if not trees_get().manager.has_tree(tree):
        return None
    return {"tree": tree_view(tree=tree), "feed": tree_feed(tree=tree)}


def tree_marks(*, trees: list[str]) -> dict[str, tuple[int, int]]:
    """For each tree, (its change number, the feed's last number): what live updates follow."""
    slot = trees_get()
    return {tree: (slot.generation(tree), slot.seq) for tree in trees}


def tree_feed(*, tree: str, after: int = 0) -> list[dict[str, Any]]:
    """The recent decisions and preemptions touching the tree (this process's feed)."""
    return trees_get().events_after(after, tree=tree)[-FEED_SNAPSHOT:]


def tree_metric_series() -> list[tuple[dict[str, str], float]]:
    """``quotaweb_tree_node`` samples: quota, allocated and consumers per tree, node and
    resource (consumers per node, resource ``""``)."""
    if not trees_loaded():
        return []
    manager = trees_get().manager
    samples: list[tuple[dict[str, str], float]] = []
    for tree in manager.tree_names():
        for name, node in manager.state(tree)["nodes"].items():
            for field in ("quota", "allocated"):
                for resource, value in node[field].items():
                    samples.append(({"tree": tree, "node": name, "resource": resource,
                                     "field": field}, float(value)))
            samples.append(({"tree": tree, "node": name, "resource": "",
                             "field": "consumers"}, float(len(node["consumers"]))))
    return samples
