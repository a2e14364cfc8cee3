"""Spec 2.4 phase 2: lower priorities are preempted on the consumer's own path only."""

from __future__ import annotations

from tests.trackers.quotatree.support import compact, consumer, manager_with
from trackers.quotatree import make_tree

T = "t"


def tree(*rows):
    return manager_with(make_tree(T, ["cpu"], list(rows)))


def alloc(manager, cid, group, amount, priority=0, **kw):
    return manager.allocate(T, consumer(cid, T, group, amount, priority, **kw))


def test_a_sibling_subtree_using_the_parents_quota_is_untouchable():
    manager = tree(("R", None, 10, False), ("P", "R", 4, True), ("X", "P", 2, False),
                   ("Y", "P", 4, False))
    alloc(manager, "y1", "Y", 4)  # Y's own quota, all of the hard P's
    before = manager.state(T)
    result = alloc(manager, "x1", "X", 2, priority=9)
    assert not result.allocated
    assert manager.state(T) == before
    assert "phase 2: preempting lower priorities on the path cannot make room at P" in (
        result.steps)


def test_phase_2_preempts_from_the_stopping_node_down_in_list_order_until_it_fits():
    manager = tree(("R", None, 10, False), ("H", "R", 4, True), ("L", "H", 2, False),
                   ("M", "H", 2, False))
    alloc(manager, "l1", "L", 1)
    alloc(manager, "l2", "L", 1)
    alloc(manager, "b1", "L", 1)  # borrows at the hard H
    alloc(manager, "b2", "L", 1)  # H: 4/4
    result = alloc(manager, "hi", "L", 2, priority=1)
    # At L, l1 and l2 slide up... H is hard and full: phase 2 from H down: b1 then b2 at H
    # make room at H.
    assert result.allocated
    assert result.preempted == ["b1", "b2"]
    assert [p.how for p in result.preemptions] == ["priority", "priority"]
    assert [p.node for p in result.preemptions] == ["H", "H"]
    assert compact(manager.state(T)) == {"R": 4, "H": (4, ["l1", "l2"]), "L": (2, ["hi"])}


def test_no_preemption_at_priority_zero():
    manager = tree(("R", None, 2, True), ("L", "R", 2, True))
    alloc(manager, "a", "L", 2, priority=-1)
    result = alloc(manager, "b", "L", 1, priority=0)
    assert not result.allocated
    assert result.steps[-2:] == [
        "priority 0: no preemption (only priorities above 0 preempt)",
        "rejected: nothing changed"]


def test_unpreemptable_and_other_types_are_spared():
    manager = tree(("R", None, 3, True), ("L", "R", 3, True))
    alloc(manager, "locked", "L", 1, unpreemptable=True)
    alloc(manager, "typed", "L", 1, type=2)
    alloc(manager, "plain", "L", 1)
    result = alloc(manager, "hi", "L", 1, priority=3)
    assert result.preempted == ["plain"]
    assert not alloc(manager, "hi2", "L", 1, priority=3).allocated


def test_the_retry_runs_phase_one_again_and_may_slide_others():
    manager = tree(("R", None, 4, False), ("P", "R", 4, True), ("L", "P", 2, False),
                   ("M", "P", 2, False))
    alloc(manager, "m1", "M", 2)
    alloc(manager, "m2", "M", 2)  # at P
    result = alloc(manager, "l", "L", 2, priority=1)
    # L fits; charging the hard P fails (no slide up at a hard node); phase 2 from P down the
    # path to L preempts m2 at P; the retry places l at L.
    assert result.node == "L"
    assert result.preempted == ["m2"]
    assert compact(manager.state(T)) == {"R": 4, "P": 4, "L": (2, ["l"]), "M": (2, ["m1"])}
