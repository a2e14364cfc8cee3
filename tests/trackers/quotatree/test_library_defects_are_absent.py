"""Spec 2.10: the quota-manager library's defects, reproduced here and shown absent."""

from __future__ import annotations

import threading

import pytest

from tests.trackers.quotatree.support import (
    cm,
    compact,
    consumer,
    example_tree,
    m3_tree,
    manager_with,
    service_tree,
)
from trackers.quotatree import INVALID, ConsumerSpec, QuotaTreeError, TreeRequest, make_tree
from trackers.quotatree import messages as m


def test_1_update_all_with_trees_present_does_not_deadlock():
    manager = manager_with(example_tree(), m3_tree())
    manager.allocate("ExampleTree", consumer("a", "ExampleTree", "N", 1))
    answers = {}

    def run():
        answers.update(manager.update_all())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout=5)
    assert not thread.is_alive(), "update_all deadlocked"
    assert set(answers) == {"ExampleTree", "test-tree"}
    assert answers["ExampleTree"].unplaced == []
    assert compact(manager.state("ExampleTree")) == {"A": 1, "C": 1, "H": 1, "N": (1, ["a"])}
    # The manager still answers afterwards (its lock was released).
    assert manager.tree_names() == ["ExampleTree", "test-tree"]


def test_1_update_forest_too():
    manager = manager_with(example_tree(), m3_tree())
    manager.add_forest("f", ["ExampleTree", "test-tree"])
    done = threading.Event()
    thread = threading.Thread(target=lambda: (manager.update_forest("f"), done.set()),
                              daemon=True)
    thread.start()
    thread.join(timeout=5)
    assert done.is_set()


@pytest.fixture
def forest():
    manager = manager_with(m3_tree(), service_tree(), example_tree())
    manager.add_forest("testForest", ["test-tree", "service-tree"])
    first = ConsumerSpec("F-1", {"test-tree": TreeRequest("B", cm(4, 32)),
                                 "service-tree": TreeRequest("X", {"count": 3})})
    assert manager.allocate_forest("testForest", first).allocated
    return manager


def snapshot(manager):
    return [(manager.state(t), manager.placements(t)) for t in ("test-tree", "service-tree")]


@pytest.mark.parametrize("outside", ["ExampleTree", "no-such-tree"])
def test_2_a_forest_consumer_naming_a_tree_outside_the_forest_is_a_clean_error(forest, outside):
    before = snapshot(forest)
    spec = ConsumerSpec("F-2", {"test-tree": TreeRequest("C", cm(1, 1)),
                                outside: TreeRequest("N", {"cpu": 1})})
    for call in (forest.allocate_forest, forest.try_allocate_forest):
        with pytest.raises(QuotaTreeError) as caught:
            call("testForest", spec)
        assert caught.value.code == INVALID
        assert str(caught.value) == m.NOT_IN_FOREST.format(forest="testForest", tree=outside)
        assert snapshot(forest) == before


def test_3_undo_of_a_forest_trial_whose_snapshot_failed_keeps_the_registry(forest):
    before = snapshot(forest)
    bad = ConsumerSpec("F-6", {"test-tree": TreeRequest("F", cm(4, 32)),
                               "service-tree": TreeRequest("X", {"count": 1})})
    result = forest.try_allocate_forest("testForest", bad)
    assert result.message == m.SNAPSHOT_FAILED.format(tree="test-tree")
    forest.undo_forest("testForest", "F-6")
    assert snapshot(forest) == before
    assert forest.is_allocated_forest("testForest", "F-1")
    assert forest.is_allocated("test-tree", "F-1")
    # F-1 can still be de-allocated normally: the registry and the nodes agree.
    forest.deallocate_forest("testForest", "F-1")
    assert forest.placements("test-tree") == forest.placements("service-tree") == []


def test_4_a_failed_phase_2_retry_puts_every_preempted_consumer_back():
    # R is full: u (unpreemptable) in S and x below the hard H. hi (priority 1) at L: x slides
    # up into H, charging the hard H fails; phase 2 preempts x at L; the retry fits L and H but
    # not R, where nobody can be pushed out; phase 2 again finds nothing: rejected.
    manager = manager_with(make_tree("t", ["cpu"], [
        ("R", None, 6, False), ("S", "R", 4, False), ("H", "R", 4, True),
        ("L", "H", 4, False)]))
    manager.allocate("t", consumer("u", "t", "S", 4, unpreemptable=True))
    manager.allocate("t", consumer("x", "t", "L", 2))
    before = (manager.state("t"), manager.placements("t"))
    result = manager.allocate("t", consumer("hi", "t", "L", 4, priority=1))
    assert not result.allocated
    assert result.preempted == []
    assert "x preempted at L (priority 0 < 1, by hi)" in result.steps  # it happened, then
    assert (manager.state("t"), manager.placements("t")) == before  # was taken back
    assert manager.is_allocated("t", "x")


def test_4_preemptions_before_a_retry_that_fails_a_charge_and_goes_higher_stay_reported():
    # The library clears the whole preempted list when a charge fails in the retry, so a
    # consumer preempted by phase 2 was removed without being reported. Here: phase 2 preempts
    # x (borrowing at the hard H); the retry places hi at L, fails to charge P (full with m1),
    # and places hi at H instead.
    manager = manager_with(make_tree("t", ["cpu"], [
        ("R", None, 100, False), ("H", "R", 4, True), ("P", "H", 2, False),
        ("L", "P", 2, False), ("M", "P", 2, False), ("Q", "H", 1, False)]))
    manager.allocate("t", consumer("m1", "t", "M", 2))
    assert manager.allocate("t", consumer("x", "t", "Q", 2)).node == "H"
    result = manager.allocate("t", consumer("hi", "t", "L", 2, priority=1))
    assert result.allocated
    assert result.node == "H"
    assert result.preempted == ["x"]
    assert not manager.is_allocated("t", "x")
    assert compact(manager.state("t")) == {
        "R": 4, "H": (4, ["hi"]), "P": 2, "M": (2, ["m1"])}
