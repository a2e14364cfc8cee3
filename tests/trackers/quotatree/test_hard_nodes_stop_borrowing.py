"""A hard node's quota is a ceiling for its subtree: nothing below it borrows above it."""

from __future__ import annotations

from tests.trackers.quotatree.support import compact, consumer, manager_with
from trackers.quotatree import make_tree

T = "t"


def test_a_full_hard_parent_rejects_even_with_room_at_the_root():
    manager = manager_with(make_tree(T, ["cpu"], [
        ("R", None, 10, False), ("H", "R", 2, True), ("L", "H", 1, False)]))
    assert manager.allocate(T, consumer("a", T, "L", 1)).node == "L"
    assert manager.allocate(T, consumer("b", T, "L", 1)).node == "H"
    result = manager.allocate(T, consumer("c", T, "L", 1))
    assert not result.allocated
    assert "H is hard: cannot borrow above it" in result.steps
    assert compact(manager.state(T)) == {"R": 2, "H": (2, ["b"]), "L": (1, ["a"])}


def test_a_hard_leaf_cannot_borrow_at_all():
    manager = manager_with(make_tree(T, ["cpu"], [
        ("R", None, 10, False), ("L", "R", 1, True)]))
    assert not manager.allocate(T, consumer("a", T, "L", 2)).allocated


def test_a_soft_node_below_a_hard_one_borrows_up_to_it():
    manager = manager_with(make_tree(T, ["cpu"], [
        ("R", None, 10, False), ("H", "R", 4, True), ("S", "H", 1, False),
        ("L", "S", 1, False)]))
    assert manager.allocate(T, consumer("a", T, "L", 3)).node == "H"
    assert not manager.allocate(T, consumer("b", T, "L", 2)).allocated
