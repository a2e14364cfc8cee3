"""Changes to quota trees: tree versions, modes, forests, and consumers allocated, tried, undone
and released. Each runs under the quota-tree lock (``quotaweb.engine.quotatrees``): the trees
change in memory, the placements they report are stored in one transaction, and only then is
the change answered. If storing fails, the trees are rebuilt from what is stored (which the
rolled-back transaction left as it was), so memory and storage never part."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.db.models import Max

from quotaweb import metrics
from quotaweb.engine.owners import UNIT_TREES
from quotaweb.engine.quotatrees import TreesSlot, trees_get, trees_load
from quotaweb.leases.services import lease_fence
from quotaweb.quotatrees.explain import placement_text, rejection_text
from quotaweb.quotatrees.models import Forest, Placement, Tree, TreeEvent, TreeVersion
from quotaweb.quotatrees.units import tree_quantity
from trackers.quotatree import (
    INVALID,
    MODES,
    AllocationResult,
    ConsumerSpec,
    DocumentError,
    PlacementChange,
    Preemption,
    QuotaManager,
    QuotaTreeError,
    allocation_consumer,
    parse_consumer,
    parse_tree,
)

logger = logging.getLogger(__name__)


ERR_NAME_MISMATCH = (
    "the document names tree {named!r} but the address is for tree {tree!r}; they must agree"
)
ERR_MODE = "mode must be 'normal' or 'maintenance', not {mode!r}"
ERR_FOREST_TREES = "trees must be a list of tree names"
ERR_CONSUMER_TREE = "the consumer document does not name tree {tree!r}"

Author = AbstractBaseUser | None


class TreeRejected(Exception):
    """A tree or consumer document with problems; ``errors`` lists every one as
    ``{code, path, field, message}``. Nothing was changed."""

    def __init__(self, message: str, errors: list[dict[str, str]]) -> None:
        super().__init__(message)
        self.errors = errors


ERR_DOCUMENT = "the document is not valid ({count} problem(s), listed in details); nothing changed"


def _rejected(errors: list[dict[str, str]]) -> TreeRejected:
    return TreeRejected(ERR_DOCUMENT.format(count=len(errors)), errors)


# -- start-up ----------------------------------------------------------------------------------


def _manager_from_storage() -> QuotaManager:
    # The steps a placement records say amounts as the pages do (bytes, millicores).
    manager = QuotaManager(quantity=tree_quantity)
    documents = {
        (row.tree, row.number): row.document
        for row in TreeVersion.objects.filter(
            tree__in=Tree.objects.values("name")
        ).only("tree", "number", "document")
    }
    placements: dict[str, list[dict[str, Any]]] = {}
    for row in Placement.objects.order_by("tree", "stamp"):
        placements.setdefault(row.tree, []).append({
            "id": row.consumer, "node": row.node, "stamp": row.stamp, "reasons": row.reasons,
            "groupID": row.group, "request": row.request, "priority": row.priority,
            "type": row.type, "unPreemptable": row.unpreemptable,
        })
    for tree in Tree.objects.order_by("name"):
        manager.restore_tree({
            "tree": documents[(tree.name, tree.version)], "mode": tree.mode,
            "placements": placements.get(tree.name, []),
        })
    for forest in Forest.objects.order_by("name"):
        manager.add_forest(forest.name, forest.trees, mode=forest.mode)
    return manager


def trees_restore(*, epoch: int = 0) -> TreesSlot:
    """Rebuild every tree and forest from storage, exactly, and make them this process's (at
    the quota trees' lease ``epoch`` on PostgreSQL peers)."""
    return trees_load(_manager_from_storage(), epoch=epoch)


# -- storing what changed ------------------------------------------------------------------------


def _store_changes(slot: TreesSlot, changes: Iterable[PlacementChange], forest: str = "") -> None:
    for change in changes:
        if change.node is None or change.request is None:
            Placement.objects.filter(tree=change.tree, consumer=change.consumer).delete()
            continue
        placed = slot.manager.placement(change.tree, change.consumer)
        request = change.request
        Placement.objects.update_or_create(
            tree=change.tree, consumer=change.consumer,
            defaults={
                "node": change.node, "stamp": change.stamp, "group": request.group,
                "request": dict(request.request), "priority": request.priority,
                "type": request.type, "unpreemptable": request.unpreemptable,
                "reasons": placed["reasons"] if placed else [],
                **({"forest": forest} if forest else {}),
            },
        )


def _commit(slot: TreesSlot, *, trees: Iterable[str], store) -> None:
    """Run ``store`` (database writes) in one transaction; if it fails, rebuild the trees from
    storage and let the error through: nothing unstored is ever answered."""
    try:
        with transaction.atomic():
            lease_fence(unit=UNIT_TREES, epoch=slot.epoch)
            store()
    except BaseException:
        logger.exception("storing a quota tree change failed; rebuilding the trees from storage")
        slot.manager = _manager_from_storage()
        slot.touched(slot.manager.tree_names())
        raise
    slot.touched(trees)


def _preemption_event(preemption: Preemption, forest: str) -> dict[str, Any]:
    return {
        "kind": "preempted", "consumer": preemption.consumer, "trees": [preemption.tree],
        "forest": forest, "nodes": {preemption.tree: preemption.node},
        "message": (f"preempted at {preemption.node} of {preemption.tree} by "
                    f"{preemption.by} (priority {preemption.by_priority} over "
                    f"{preemption.priority}; {preemption.how})"),
        "steps": [],
        "preemption": {"by": preemption.by, "byPriority": preemption.by_priority,
                       "priority": preemption.priority, "tree": preemption.tree,
                       "node": preemption.node, "how": preemption.how},
    }


def _record(slot: TreesSlot, events: list[dict[str, Any]]) -> None:
    """Store the events (inside the caller's transaction) and add them to the live feed."""
    TreeEvent.objects.bulk_create([
        TreeEvent(consumer=e["consumer"], kind=e["kind"], trees=e["trees"],
                  forest=e.get("forest", ""), nodes=e.get("nodes", {}),
                  message=e.get("message", ""), steps=e.get("steps", []),
                  preemption=e.get("preemption"))
        for e in events
    ])


def _publish(slot: TreesSlot, events: list[dict[str, Any]]) -> None:
    for event in events:
        slot.record(event)


# -- trees -------------------------------------------------------------------------------------


def tree_put(
    *, tree: str, document: Any, author: Author, comment: str = ""
) -> dict[str, Any]:
    """Create the tree, or make ``document`` its new version (consumers re-placed by force,
    spec 2.8). Answers ``{root, dangling, unplaced, version, created}``."""
    try:
        spec = parse_tree(document)
    except DocumentError as error:
        raise _rejected(error.errors) from None
    if spec.name != tree:
        raise _rejected([{"code": "nameMismatch", "path": tree, "field": "metadata.name",
                          "message": ERR_NAME_MISMATCH.format(named=spec.name, tree=tree)}])
    slot = trees_get()
    with slot.lock:
        update = slot.manager.put_tree(spec)
        events = [
            {"kind": "unplaced", "consumer": consumer, "trees": [tree], "nodes": {},
             "message": f"not placed again after version update of {tree}", "steps": []}
            for consumer in update.unplaced
        ]
        number = 0

        def store() -> None:
            nonlocal number
            last = TreeVersion.objects.filter(tree=tree).aggregate(Max("number"))["number__max"]
            number = (last or 0) + 1
            TreeVersion.objects.create(tree=tree, number=number, document=spec.document(),
                                       author=author, comment=comment)
            Tree.objects.update_or_create(
                name=tree, defaults={"version": number, "mode": slot.manager.tree_mode(tree)}
            )
            _store_changes(slot, update.changes)
            _record(slot, events)

        _commit(slot, trees={change.tree for change in update.changes} | {tree}, store=store)
        _publish(slot, events)
    return {"root": update.root, "dangling": list(update.dangling),
            "unplaced": list(update.unplaced), "version": number, "created": update.created}


def tree_delete(*, tree: str) -> None:
    """Delete a tree (refused while consumers are allocated on it); its versions are kept."""
    slot = trees_get()
    with slot.lock:
        forest = slot.manager.forest_of(tree)
        slot.manager.delete_tree(tree)

        def store() -> None:
            Tree.objects.filter(name=tree).delete()
            if forest is not None:
                Forest.objects.filter(name=forest).update(
                    trees=slot.manager.forest_trees(forest)
                )

        _commit(slot, trees=[tree], store=store)


def _mode(mode: Any) -> str:
    if mode not in MODES:
        raise QuotaTreeError(INVALID, ERR_MODE.format(mode=mode))
    return str(mode)


def tree_mode_set(*, tree: str, mode: Any) -> None:
    slot = trees_get()
    with slot.lock:
        slot.manager.set_tree_mode(tree, _mode(mode))
        _commit(slot, trees=[tree],
                store=lambda: Tree.objects.filter(name=tree).update(mode=mode))


# -- forests -----------------------------------------------------------------------------------


def forest_put(*, forest: str, trees: Any) -> None:
    """Create the forest, or replace its list of trees (allocation order)."""
    if not isinstance(trees, list) or not all(isinstance(name, str) for name in trees):
        raise QuotaTreeError(INVALID, ERR_FOREST_TREES)
    slot = trees_get()
    with slot.lock:
        slot.manager.put_forest(forest, trees)

        def store() -> None:
            Forest.objects.update_or_create(
                name=forest, defaults={"trees": trees, "mode": slot.manager.forest_mode(forest)}
            )

        _commit(slot, trees=trees, store=store)


def forest_delete(*, forest: str) -> None:
    slot = trees_get()
    with slot.lock:
        members = slot.manager.forest_trees(forest)
        slot.manager.delete_forest(forest)
        _commit(slot, trees=members,
                store=lambda: Forest.objects.filter(name=forest).delete())


def forest_mode_set(*, forest: str, mode: Any) -> None:
    slot = trees_get()
    with slot.lock:
        slot.manager.set_forest_mode(forest, _mode(mode))
        _commit(slot, trees=slot.manager.forest_trees(forest),
                store=lambda: Forest.objects.filter(name=forest).update(mode=mode))


# -- consumers ---------------------------------------------------------------------------------


def _consumer_for_tree(slot: TreesSlot, tree: str, body: Any) -> ConsumerSpec:
    try:
        if isinstance(body, Mapping) and body.get("kind") == "Consumer":
            consumer = parse_consumer(body, slot.manager.tree_specs())
            if tree not in consumer.trees:
                raise _rejected([{"code": "unknownTree", "path": consumer.id,
                                  "field": "spec.trees",
                                  "message": ERR_CONSUMER_TREE.format(tree=tree)}])
            return consumer
        slot.manager.tree_spec(tree)  # NOT_FOUND for an unknown tree, before the body
        return allocation_consumer(body, tree, slot.manager.tree_specs())
    except DocumentError as error:
        raise _rejected(error.errors) from None


def _allocation_events(result: AllocationResult, forest: str) -> list[dict[str, Any]]:
    kind = ("trial" if result.trial else result.code) if result.allocated else "rejected"
    events = [{
        "kind": kind, "consumer": result.consumer, "trees": sorted(result.nodes) or [],
        "forest": forest, "nodes": dict(result.nodes),
        # quotaweb's words first; the library's (kept for MCAD's clients) after them
        "message": " ".join(text for text in (result.explanation, result.message) if text),
        "steps": list(result.steps),
    }]
    events.extend(_preemption_event(p, forest) for p in result.preemptions)
    return events


def _allocated(
    slot: TreesSlot, result: AllocationResult, *, trees: list[str], forest: str = ""
) -> AllocationResult:
    events = _allocation_events(result, forest)
    if not events[0]["trees"]:
        events[0]["trees"] = trees

    def store() -> None:
        _store_changes(slot, result.changes, forest)
        _record(slot, events)

    _commit(slot, trees={change.tree for change in result.changes} | set(trees), store=store)
    _publish(slot, events)
    for tree in trees:
        metrics.inc("quotaweb_tree_allocations_total", tree=tree,
                    outcome=result.code if result.allocated else "rejected")
    for preemption in result.preemptions:
        metrics.inc("quotaweb_tree_preemptions_total", tree=preemption.tree,
                    node=preemption.node)
    return result


def _explained(slot: TreesSlot, consumer: ConsumerSpec, result: AllocationResult) -> str:
    """The answer in quotaweb's words (``quotaweb.quotatrees.explain``), one sentence per tree."""
    texts = []
    for tree, asked in consumer.trees.items():
        state = slot.manager.state(tree)
        request = asked.request
        if not isinstance(request, Mapping):
            request = dict(zip(state["resources"], request, strict=False))
        if result.allocated and tree in result.nodes:
            texts.append(placement_text(
                tree=tree, consumer=consumer.id, node=result.nodes[tree], group=asked.group,
                forced=result.forced,
            ))
        elif not result.allocated:
            view = {"nodes": [{"name": name, **node} for name, node in state["nodes"].items()]}
            texts.append(rejection_text(
                view, tree=tree, consumer=consumer.id, group=asked.group, request=request,
                priority=asked.priority,
            ))
    return " ".join(texts)


def tree_allocate(*, tree: str, body: Any, trial: bool = False) -> AllocationResult:
    """Allocate a consumer on one tree (a trial with ``trial``); every change is stored before
    the answer. A rejection changes nothing (its reasons are recorded for the consumer page).
    ``explanation`` says the outcome in quotaweb's words."""
    slot = trees_get()
    with slot.lock:
        consumer = _consumer_for_tree(slot, tree, body)
        result = slot.manager.allocate(tree, consumer, trial=trial)
        result = replace(result, explanation=_explained(slot, consumer, result))
        return _allocated(slot, result, trees=[tree])


def tree_undo(*, tree: str, consumer: str) -> None:
    """Take back the last trial allocation of ``consumer`` on ``tree`` exactly."""
    slot = trees_get()
    with slot.lock:
        undone = slot.manager.undo(tree, consumer)
        _undone(slot, undone.changes, consumer=consumer, trees=[tree])


def _undone(slot: TreesSlot, changes, *, consumer: str, trees: list[str], forest: str = ""):
    events = [{"kind": "undone", "consumer": consumer, "trees": trees, "forest": forest,
               "message": "trial allocation undone", "steps": []}]

    def store() -> None:
        _store_changes(slot, changes)
        _record(slot, events)

    _commit(slot, trees={change.tree for change in changes} | set(trees), store=store)
    _publish(slot, events)


def _released(slot: TreesSlot, release, *, forest: str = "") -> None:
    events = [{"kind": "released", "consumer": release.consumer, "trees": list(release.trees),
               "forest": forest, "message": "", "steps": list(release.steps)}]

    def store() -> None:
        _store_changes(slot, release.changes)
        _record(slot, events)

    _commit(slot, trees={change.tree for change in release.changes} | set(release.trees),
            store=store)
    _publish(slot, events)


def tree_release(*, tree: str, consumer: str) -> None:
    """De-allocate a consumer from one tree (borrowers may slide down)."""
    slot = trees_get()
    with slot.lock:
        _released(slot, slot.manager.deallocate(tree, consumer))


def forest_allocate(*, forest: str, body: Any, trial: bool = False) -> AllocationResult:
    """Allocate a ``Consumer`` document jointly on the forest's trees: all or nothing."""
    slot = trees_get()
    with slot.lock:
        trees = slot.manager.forest_trees(forest)
        try:
            consumer = parse_consumer(body, slot.manager.tree_specs())
        except DocumentError as error:
            raise _rejected(error.errors) from None
        result = slot.manager.allocate_forest(forest, consumer, trial=trial)
        result = replace(result, explanation=_explained(slot, consumer, result))
        return _allocated(slot, result, trees=trees, forest=forest)


def forest_undo(*, forest: str, consumer: str) -> None:
    slot = trees_get()
    with slot.lock:
        trees = slot.manager.forest_trees(forest)
        undone = slot.manager.undo_forest(forest, consumer)
        _undone(slot, undone.changes, consumer=consumer, trees=trees, forest=forest)


def forest_release(*, forest: str, consumer: str) -> None:
    slot = trees_get()
    with slot.lock:
        _released(slot, slot.manager.deallocate_forest(forest, consumer), forest=forest)

