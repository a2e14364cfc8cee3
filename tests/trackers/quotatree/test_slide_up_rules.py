"""Spec 2.3 slideUp: who may be pushed up, and how many."""

from __future__ import annotations

from tests.trackers.quotatree.support import compact, consumer, manager_with
from trackers.quotatree import make_tree

T = "t"


def tree(*rows):
    return manager_with(make_tree(T, ["cpu"], list(rows)))


def alloc(manager, cid, group, amount, priority=0, **kw):
    return manager.allocate(T, consumer(cid, T, group, amount, priority, **kw))


def test_only_strictly_lower_priority_borrowers_are_pushed_when_choosing_the_anode():
    manager = tree(("R", None, 10, False), ("P", "R", 4, False), ("X", "P", 2, False),
                   ("Y", "P", 2, False))
    alloc(manager, "x1", "X", 2, priority=5)
    # X is full and x1 has the same priority: b cannot push it up, it borrows at P.
    assert alloc(manager, "b", "X", 2, priority=5).node == "P"
    # y (priority 0) fits at Y; charging P, any borrower there goes up, whatever its priority.
    result = alloc(manager, "y", "Y", 2, priority=0)
    assert result.node == "Y"
    assert compact(manager.state(T)) == {"R": (6, ["b"]), "P": 4, "X": (2, ["x1"]),
                                         "Y": (2, ["y"])}
    assert "b slid up from P to R" in result.steps
    # A lower priority from X, by contrast, cannot push x1 when choosing its aNode.
    assert alloc(manager, "low", "X", 1, priority=4).node == "R"


def test_a_higher_priority_pushes_a_lower_one_up_when_choosing_its_anode():
    manager = tree(("R", None, 10, False), ("P", "R", 4, False), ("X", "P", 2, False),
                   ("Y", "P", 2, False))
    alloc(manager, "x1", "X", 2, priority=0)
    result = alloc(manager, "x2", "X", 2, priority=1)
    assert result.node == "X"
    assert compact(manager.state(T)) == {"R": 4, "P": (4, ["x1"]), "X": (2, ["x2"])}


def test_equal_priority_does_not_displace_at_the_anode():
    manager = tree(("R", None, 2, False), ("L", "R", 1, False), ("M", "R", 1, False))
    alloc(manager, "a", "L", 1, priority=1)
    alloc(manager, "borrower", "L", 1, priority=1)  # at R
    assert not alloc(manager, "same", "M", 2, priority=1).allocated
    assert alloc(manager, "higher", "M", 1, priority=2).node == "M"


def test_at_the_root_only_preemptable_consumers_of_the_same_type_are_pushed_out():
    manager = tree(("R", None, 3, False), ("L", "R", 1, False), ("M", "R", 1, False),
                   ("N", "R", 1, False))
    alloc(manager, "l", "L", 1)
    alloc(manager, "locked", "L", 1, unpreemptable=True)  # at R
    alloc(manager, "other-type", "L", 1, type=7)  # at R
    before = manager.state(T)
    result = alloc(manager, "m", "M", 1)
    assert not result.allocated  # both borrowers at the root are out of reach
    assert manager.state(T) == before
    alloc2 = manager.allocate(T, consumer("typed", T, "M", 1, type=7))
    assert alloc2.allocated
    assert alloc2.preempted == ["other-type"]


def test_the_greedy_prefix_takes_list_order_and_may_push_more_than_needed():
    manager = tree(("R", None, 10, False), ("P", "R", 3, False), ("L", "P", 1, False),
                   ("K", "P", 2, False), ("Q", "P", 2, False))
    alloc(manager, "l", "L", 1)
    alloc(manager, "one", "L", 1)  # at P
    alloc(manager, "k", "K", 2)  # P full: 1 + 1 + ... K fits; P 2+2 > 3 pushes "one" up
    state = compact(manager.state(T))
    assert state["R"] == (4, ["one"])
    manager = tree(("R", None, 10, False), ("P", "R", 4, False), ("L", "P", 1, False),
                   ("K", "P", 2, False), ("Q", "P", 1, False))
    alloc(manager, "l", "L", 1)
    alloc(manager, "s", "L", 1)  # at P
    alloc(manager, "b", "L", 2)  # at P: P 4/4, list [s, b]
    # q (2) fits at Q? Q quota 1: no. At P: 4+2 > 4 -> pushing s (1) is not enough, s and b go.
    # Pushing b alone would have done: the greedy prefix moves more than strictly needed.
    result = alloc(manager, "q", "Q", 2, priority=1)
    assert result.node == "P"
    assert compact(manager.state(T))["R"] == (6, ["s", "b"])
    assert compact(manager.state(T))["P"] == (3, ["q"])


def test_a_hard_node_slides_nobody_up_and_nothing_changes_when_room_cannot_be_made():
    manager = tree(("R", None, 10, False), ("H", "R", 2, True), ("L", "H", 1, False),
                   ("M", "H", 1, False))
    alloc(manager, "l", "L", 1)
    alloc(manager, "borrower", "L", 1)  # at the hard H
    before = manager.state(T)
    result = alloc(manager, "m", "M", 1)  # M fits; charging H: full, hard: no slide up
    assert not result.allocated
    assert manager.state(T) == before
