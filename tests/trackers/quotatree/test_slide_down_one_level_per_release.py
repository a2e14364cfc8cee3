"""Spec 2.5: a release lets borrowers slide down, one level per de-allocation (as specified)."""

from __future__ import annotations

from tests.trackers.quotatree.support import compact, consumer, manager_with
from trackers.quotatree import make_tree

T = "t"


def chain():
    return manager_with(make_tree(T, ["cpu"], [
        ("R", None, 10, False), ("C", "R", 3, False), ("H", "C", 2, False),
        ("N", "H", 2, False)]))


def test_a_borrower_moves_down_one_level_even_when_it_would_fit_lower():
    manager = chain()
    manager.allocate(T, consumer("x1", T, "N", 2))
    assert manager.allocate(T, consumer("x2", T, "N", 1)).node == "C"
    release = manager.deallocate(T, "x1")
    # N is empty now, but x2 only comes down from C to H.
    assert compact(manager.state(T)) == {"R": 1, "C": 1, "H": (1, ["x2"])}
    assert release.steps == ["x2 slid down from C to H"]
    assert [(c.consumer, c.node) for c in release.changes] == [("x1", None), ("x2", "H")]
    assert manager.placement(T, "x2")["reasons"] == ["slid down from C to H when x1 left"]


def test_only_consumers_whose_group_is_below_the_freed_node_and_that_fit_come_down():
    manager = manager_with(make_tree(T, ["cpu"], [
        ("R", None, 10, False), ("A", "R", 2, False), ("B", "R", 2, False)]))
    manager.allocate(T, consumer("a", T, "A", 2))
    manager.allocate(T, consumer("big", T, "A", 2))  # at R
    manager.allocate(T, consumer("b", T, "B", 2))
    manager.allocate(T, consumer("small", T, "A", 1))  # at R
    manager.allocate(T, consumer("bb", T, "B", 1))  # at R
    manager.deallocate(T, "a")
    # big (list order first) fits A and comes down; small no longer fits; bb is B's.
    assert compact(manager.state(T)) == {
        "R": (6, ["small", "bb"]), "A": (2, ["big"]), "B": (2, ["b"])}
