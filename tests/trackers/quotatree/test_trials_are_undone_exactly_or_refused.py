"""Trials: undo restores the exact prior state, and only while nothing changed since."""

from __future__ import annotations

import pytest

from tests.trackers.quotatree.support import compact, consumer, example_tree, manager_with
from trackers.quotatree import CONFLICT, NOT_FOUND, QuotaTreeError
from trackers.quotatree import messages as m

T = "ExampleTree"
M1_PREFIX = [("a", "N", 1, 0), ("b", "N", 1, 0), ("c", "N", 1, 0)]


@pytest.fixture
def manager():
    manager = manager_with(example_tree())
    for cid, group, amount, priority in M1_PREFIX:
        manager.allocate(T, consumer(cid, T, group, amount, priority))
    return manager


def test_undo_puts_slid_consumers_back_in_their_old_order(manager):
    manager.deallocate(T, "a")  # N = {b, c}
    before = manager.state(T)
    trial = manager.try_allocate(T, consumer("d", T, "N", 2, 1))  # b, c slide up; b again
    assert compact(manager.state(T))["H"] == (3, ["c"])
    undone = manager.undo(T, "d")
    assert manager.state(T) == before
    assert manager.state(T)["nodes"]["N"]["consumers"] == ["b", "c"]
    assert {(c.consumer, c.node) for c in undone.changes} == {("d", None), ("b", "N"),
                                                              ("c", "N")}
    assert trial.changes  # what the trial changed, for storage, and what the undo changed back


def test_undo_restores_preempted_consumers_at_their_position(manager):
    for cid, group, amount, priority in [("x", "E", 3, 0), ("y", "E", 3, 0), ("z", "F", 3, 0)]:
        manager.allocate(T, consumer(cid, T, group, amount, priority))
    before = manager.state(T)
    assert before["nodes"]["A"]["consumers"] == ["x", "y"]  # z did not fit
    result = manager.try_allocate(T, consumer("hi", T, "I", 3, 2))
    assert result.preempted == ["x"]
    manager.undo(T, "hi")
    assert manager.state(T) == before


def test_a_later_change_on_the_tree_makes_the_trial_final(manager):
    manager.try_allocate(T, consumer("d", T, "K", 1))
    manager.allocate(T, consumer("e", T, "J", 1))
    with pytest.raises(QuotaTreeError) as caught:
        manager.undo(T, "d")
    assert caught.value.code == CONFLICT
    assert str(caught.value) == m.UNDO_FAILED.format(tree=T)
    assert manager.is_allocated(T, "d")


def test_a_later_rejection_changes_nothing_so_the_trial_can_still_be_undone(manager):
    before = manager.state(T)
    manager.try_allocate(T, consumer("d", T, "K", 1))
    assert not manager.allocate(T, consumer("huge", T, "J", 99)).allocated
    manager.undo(T, "d")
    assert manager.state(T) == before


def test_an_undo_happens_once(manager):
    manager.try_allocate(T, consumer("d", T, "K", 1))
    manager.undo(T, "d")
    with pytest.raises(QuotaTreeError):
        manager.undo(T, "d")


def test_undo_without_a_trial_or_on_an_unknown_tree(manager):
    with pytest.raises(QuotaTreeError) as caught:
        manager.undo(T, "a")
    assert caught.value.code == CONFLICT
    with pytest.raises(QuotaTreeError) as unknown:
        manager.undo("nope", "a")
    assert unknown.value.code == NOT_FOUND


def test_a_trial_of_a_consumer_already_allocated_is_refused(manager):
    with pytest.raises(QuotaTreeError) as caught:
        manager.try_allocate(T, consumer("a", T, "N", 1))
    assert caught.value.code == CONFLICT
    assert str(caught.value) == m.ALREADY_ON_TREE.format(id="a", tree=T)
