"""Spec 2.6: maintenance mode forces allocations at the group; trials are refused there."""

from __future__ import annotations

import pytest

from tests.trackers.quotatree.support import compact, consumer, example_tree, manager_with
from trackers.quotatree import (
    CONFLICT,
    INVALID,
    MAINTENANCE,
    NORMAL,
    ConsumerSpec,
    QuotaManager,
    QuotaTreeError,
    TreeRequest,
)
from trackers.quotatree import messages as m

T = "ExampleTree"


def test_trees_start_normal_unless_told_otherwise():
    assert manager_with(example_tree()).tree_mode(T) == NORMAL
    assert manager_with(example_tree(), mode=MAINTENANCE).tree_mode(T) == MAINTENANCE
    manager = QuotaManager()
    manager.add_tree(example_tree(), mode=MAINTENANCE)
    assert manager.tree_mode(T) == MAINTENANCE


def test_force_allocation_ignores_quotas_and_places_at_the_group():
    manager = manager_with(example_tree(), mode=MAINTENANCE)
    result = manager.allocate(T, consumer("big", T, "N", 50))
    assert result.allocated
    assert result.forced
    assert result.node == "N"
    assert compact(manager.state(T)) == {"A": 50, "C": 50, "H": 50, "N": (50, ["big"])}
    manager.set_tree_mode(T, NORMAL)
    assert not manager.allocate(T, consumer("more", T, "K", 1)).allocated
    manager.deallocate(T, "big")
    assert manager.allocate(T, consumer("more", T, "K", 1)).node == "K"


def test_a_trial_is_refused_in_maintenance():
    manager = manager_with(example_tree(), mode=MAINTENANCE)
    with pytest.raises(QuotaTreeError) as caught:
        manager.try_allocate(T, consumer("x", T, "N", 1))
    assert caught.value.code == CONFLICT
    assert str(caught.value) == m.NOT_NORMAL_MODE
    assert manager.placements(T) == []


def test_a_forest_trial_in_maintenance_is_a_forced_allocation_that_can_be_undone():
    manager = manager_with(example_tree(), example_tree("Two"))
    manager.add_forest("f", [T, "Two"], mode=MAINTENANCE)
    spec = ConsumerSpec("x", {T: TreeRequest("N", {"cpu": 9}), "Two": TreeRequest("K", {"cpu": 9})})
    result = manager.try_allocate_forest("f", spec)
    assert result.forced
    assert result.nodes == {T: "N", "Two": "K"}
    assert manager.tree_mode(T) == NORMAL  # the forest's mode is its own
    manager.undo_forest("f", "x")
    assert manager.placements(T) == manager.placements("Two") == []


def test_an_unknown_mode_is_refused():
    manager = manager_with(example_tree())
    with pytest.raises(QuotaTreeError) as caught:
        manager.set_tree_mode(T, "paused")
    assert caught.value.code == INVALID
