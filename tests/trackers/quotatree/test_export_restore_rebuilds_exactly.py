"""Persistence: changes reported by every operation, replayed into a store, rebuild the trees."""

from __future__ import annotations

import json

import pytest

from tests.trackers.quotatree.support import (
    context_tree,
    example_tree,
    manager_with,
    service_tree_m5,
)
from tests.trackers.quotatree.test_m1_example_tree_walk_through import STEPS
from tests.trackers.quotatree.test_m5_forest_of_two_trees import job
from trackers.quotatree import CONFLICT, INVALID, QuotaManager, QuotaTreeError, tree_consumer

T = "ExampleTree"


class Store:
    """What the Django side keeps: one row per (tree, consumer), written from ``changes``."""

    def __init__(self):
        self.rows = {}

    def apply(self, changes):
        for change in changes:
            key = (change.tree, change.consumer)
            if change.node is None:
                self.rows.pop(key, None)
            else:
                self.rows[key] = (change.node, change.stamp, change.request)

    def export(self, manager, tree):
        """An export built from the stored rows and the tree's document only."""
        placements = [
            {"id": cid, "node": node, "stamp": stamp, **request.as_dict()}
            for (name, cid), (node, stamp, request) in self.rows.items() if name == tree
        ]
        return {"tree": manager.tree_spec(tree).document(), "mode": manager.tree_mode(tree),
                "placements": placements}


def m1_run(store):
    manager = manager_with(example_tree())
    for _step, cid, group, amount, priority, _expected, _preempted in STEPS:
        if cid.startswith("-"):
            store.apply(manager.deallocate(T, cid[1:]).changes)
        else:
            result = manager.allocate(T, tree_consumer(cid, T, group, {"cpu": amount},
                                                       priority=priority))
            store.apply(result.changes)
    return manager


def test_export_then_restore_in_a_fresh_manager_gives_the_same_state():
    manager = m1_run(Store())
    data = json.loads(json.dumps(manager.export(T)))  # it is plain JSON
    fresh = QuotaManager()
    fresh.restore_tree(data)
    assert fresh.state(T) == manager.state(T)
    assert fresh.placements(T) == manager.placements(T)


def test_the_stored_changes_alone_rebuild_the_state_after_every_step():
    store = Store()
    manager = manager_with(example_tree())
    for _step, cid, group, amount, priority, _expected, _preempted in STEPS:
        if cid.startswith("-"):
            store.apply(manager.deallocate(T, cid[1:]).changes)
        else:
            store.apply(manager.allocate(T, tree_consumer(
                cid, T, group, {"cpu": amount}, priority=priority)).changes)
        rebuilt = QuotaManager()
        rebuilt.restore_tree(store.export(manager, T))
        assert rebuilt.state(T) == manager.state(T)


def test_a_restored_tree_behaves_like_the_original_afterwards():
    manager = m1_run(Store())
    twin = QuotaManager()
    twin.restore_tree(manager.export(T))
    for each in (manager, twin):
        each.deallocate(T, "d")
        each.allocate(T, tree_consumer("k", T, "M", {"cpu": 1}, priority=1))
        each.deallocate(T, "h")
    assert twin.state(T) == manager.state(T)


def test_forest_changes_cover_every_tree_and_trials_and_undos_too():
    store = Store()
    manager = manager_with(context_tree(), service_tree_m5())
    manager.add_forest("demo", ["ContextTree", "ServiceTree"])
    for cid in ("job-1", "job-2", "job-3"):
        store.apply(manager.allocate_forest("demo", job(cid)).changes)
    store.apply(manager.try_allocate_forest("demo", job("job-4")).changes)
    for tree in ("ContextTree", "ServiceTree"):
        rebuilt = QuotaManager()
        rebuilt.restore_tree(store.export(manager, tree))
        assert rebuilt.state(tree) == manager.state(tree)
    store.apply(manager.undo_forest("demo", "job-4").changes)
    for tree in ("ContextTree", "ServiceTree"):
        rebuilt = QuotaManager()
        rebuilt.restore_tree(store.export(manager, tree))
        assert rebuilt.state(tree) == manager.state(tree)


def test_restore_refuses_an_existing_name_and_inconsistent_data():
    manager = m1_run(Store())
    data = manager.export(T)
    with pytest.raises(QuotaTreeError) as exists:
        manager.restore_tree(data)
    assert exists.value.code == CONFLICT
    data["placements"][0]["node"] = "B"  # not above its group
    with pytest.raises(QuotaTreeError) as bad:
        QuotaManager().restore_tree(data)
    assert bad.value.code == INVALID
