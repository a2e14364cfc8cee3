"""M2: trials on treeA from the same pre-state, each undone back to the exact pre-state."""

from __future__ import annotations

import pytest

from tests.trackers.quotatree.support import compact, consumer, manager_with, tree_a
from trackers.quotatree import messages as m

T = "treeA"


@pytest.fixture
def manager():
    manager = manager_with(tree_a())
    assert manager.allocate(T, consumer("C1", T, "B", 1, resource="count")).node == "B"
    assert manager.allocate(T, consumer("C2", T, "B", 1, resource="count")).node == "A"
    assert compact(manager.state(T)) == {"A": (2, ["C2"]), "B": (1, ["C1"])}
    return manager


CASES = [
    ("invalid consumer wrong group", "X", 1, 0, None, m.SNAPSHOT_FAILED.format(tree=T), [],
     {"A": (2, ["C2"]), "B": (1, ["C1"])}),
    ("insufficient quota", "C", 5, 0, None, m.REJECTED.format(tree=T), [],
     {"A": (2, ["C2"]), "B": (1, ["C1"])}),
    ("consumer no preemption", "C", 1, 0, "C", "", [],
     {"A": (3, ["C2"]), "B": (1, ["C1"]), "C": (1, ["C"])}),
    ("consumer preemption", "B", 1, 0, "A", "", [],
     {"A": (3, ["C2", "C"]), "B": (1, ["C1"])}),
    ("high priority consumer no preemption", "C", 1, 1, "C", "", [],
     {"A": (3, ["C2"]), "B": (1, ["C1"]), "C": (1, ["C"])}),
    ("high priority consumer preemption", "B", 2, 1, "A", "", ["C2"],
     {"A": (3, ["C"]), "B": (1, ["C1"])}),
]


@pytest.mark.parametrize(
    ("case", "group", "amount", "priority", "node", "message", "preempted", "after"),
    CASES, ids=[c[0] for c in CASES],
)
def test_trial_then_undo_restores_the_pre_state_exactly(
    manager, case, group, amount, priority, node, message, preempted, after
):
    before = manager.state(T)
    before_placements = manager.placements(T)
    result = manager.try_allocate(T, consumer("C", T, group, amount, priority,
                                              resource="count"))
    assert result.allocated == (node is not None)
    assert result.node == node
    assert result.message == message
    assert result.preempted == preempted
    assert compact(manager.state(T)) == after
    manager.undo(T, "C")
    assert manager.state(T) == before
    assert manager.placements(T) == before_placements
