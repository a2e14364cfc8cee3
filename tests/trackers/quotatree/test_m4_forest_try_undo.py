"""M4: trials on the forest testForest = test-tree + service-tree."""

from __future__ import annotations

import pytest

from tests.trackers.quotatree.support import cm, compact, m3_tree, manager_with, service_tree
from trackers.quotatree import ConsumerSpec, TreeRequest
from trackers.quotatree import messages as m

F = "testForest"


def f_consumer(cid: str) -> ConsumerSpec:
    return ConsumerSpec(cid, {
        "test-tree": TreeRequest("B", cm(4, 32)),
        "service-tree": TreeRequest("X", {"count": 3}),
    })


@pytest.fixture
def manager():
    manager = manager_with(m3_tree(), service_tree())
    manager.add_forest(F, ["test-tree", "service-tree"])
    result = manager.allocate_forest(F, f_consumer("F-1"))
    assert result.nodes == {"test-tree": "B", "service-tree": "X"}
    return manager


def states(manager):
    return manager.state("test-tree"), manager.state("service-tree")


def test_both_trees_borrow_and_undo_restores_both(manager):
    before = states(manager)
    result = manager.try_allocate_forest(F, f_consumer("F-5"))
    assert result.allocated
    assert result.nodes == {"test-tree": "A", "service-tree": "root"}
    assert result.preempted == []
    assert compact(manager.state("test-tree")) == {"A": ([8, 64], ["F-5"]),
                                                   "B": ([4, 32], ["F-1"])}
    assert compact(manager.state("service-tree")) == {"root": (6, ["F-5"]), "X": (3, ["F-1"])}
    manager.undo_forest(F, "F-5")
    assert states(manager) == before
    assert manager.is_allocated_forest(F, "F-1")
    assert not manager.is_allocated_forest(F, "F-5")


def test_an_unknown_group_fails_the_snapshot_and_changes_nothing(manager):
    before = states(manager)
    bad = ConsumerSpec("F-6", {
        "test-tree": TreeRequest("F", cm(4, 32)),
        "unknown-tree": TreeRequest("X", {"count": 1}),
    })
    result = manager.try_allocate_forest(F, bad)
    assert not result.allocated
    assert result.message == m.SNAPSHOT_FAILED.format(tree="test-tree")
    assert states(manager) == before
    manager.undo_forest(F, "F-6")
    assert states(manager) == before
    assert manager.is_allocated_forest(F, "F-1")
