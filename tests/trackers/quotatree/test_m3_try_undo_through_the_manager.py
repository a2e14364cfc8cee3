"""M3: trials through the manager on test-tree (cpu, memory)."""

from __future__ import annotations

import pytest

from tests.trackers.quotatree.support import cm, compact, consumer, m3_tree, manager_with
from trackers.quotatree import CONFLICT, INVALID, QuotaTreeError, tree_consumer
from trackers.quotatree import messages as m

T = "test-tree"


@pytest.fixture
def manager():
    manager = manager_with(m3_tree())
    for cid, group in (("J-1", "B"), ("J-2", "C"), ("J-3", "C")):
        assert manager.allocate(T, consumer(cid, T, group, cm(4, 32))).allocated
    assert compact(manager.state(T)) == {
        "A": ([12, 96], ["J-3"]), "B": ([4, 32], ["J-1"]), "C": ([4, 32], ["J-2"])}
    return manager


def test_equal_priority_cannot_displace_and_priority_0_preempts_nothing(manager):
    before = manager.state(T)
    result = manager.try_allocate(T, consumer("J-4", T, "C", cm(2, 16)))
    assert not result.allocated
    assert result.message == m.REJECTED.format(tree=T)
    assert manager.state(T) == before
    manager.undo(T, "J-4")
    assert manager.state(T) == before


def test_higher_priority_slides_a_borrower_up_and_preempts_the_first_at_the_root(manager):
    before = manager.state(T)
    result = manager.try_allocate(T, consumer("J-5", T, "C", cm(4, 32), 1))
    assert result.allocated
    assert result.node == "C"
    assert result.preempted == ["J-3"]
    assert compact(manager.state(T)) == {
        "A": ([12, 96], ["J-2"]), "B": ([4, 32], ["J-1"]), "C": ([4, 32], ["J-5"])}
    assert not manager.is_allocated(T, "J-3")
    manager.undo(T, "J-5")
    assert manager.state(T) == before
    assert manager.is_allocated(T, "J-3")


def test_a_consumer_without_a_request_for_the_tree_is_an_error(manager):
    before = manager.state(T)
    with pytest.raises(QuotaTreeError) as caught:
        manager.try_allocate(T, tree_consumer("J-6", "other-tree", "C", cm(1, 1)))
    assert caught.value.code == INVALID
    assert str(caught.value) == m.NO_SPEC_FOR_TREE.format(id="J-6", tree=T)
    assert manager.state(T) == before
    with pytest.raises(QuotaTreeError) as undo:
        manager.undo(T, "J-6")
    assert undo.value.code == CONFLICT
