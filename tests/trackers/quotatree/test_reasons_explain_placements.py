"""A consumer page can say why a consumer is where it is, was rejected, or was preempted."""

from __future__ import annotations

from tests.trackers.quotatree.support import consumer, example_tree, manager_with
from tests.trackers.quotatree.test_m1_example_tree_walk_through import STEPS
from trackers.quotatree import make_tree

T = "ExampleTree"


def run_until(last):
    manager = manager_with(example_tree())
    results = {}
    for step, cid, group, amount, priority, _expected, _preempted in STEPS:
        if cid.startswith("-"):
            manager.deallocate(T, cid[1:])
        else:
            results[cid] = manager.allocate(T, consumer(cid, T, group, amount, priority))
        if step == last:
            break
    return manager, results


def test_a_placed_consumer_keeps_the_steps_of_its_own_allocation():
    manager, _ = run_until("e")
    assert manager.placement(T, "e")["reasons"] == [
        "L full (cpu 0+3 > 2)", "placed at G (cpu 0+3 <= 3)", "b slid up from C to A"]
    assert manager.placement(T, "e")["borrowing"] is True


def test_a_consumer_moved_by_someone_else_says_who_moved_it():
    manager, _ = run_until("d")
    assert manager.placement(T, "b")["reasons"] == ["slid up from H to C to make room for d"]
    assert manager.placement(T, "c")["reasons"] == ["slid up from N to H to make room for d"]


def test_a_rejection_says_what_was_tried():
    manager = manager_with(example_tree())
    manager.allocate(T, consumer("x", T, "I", 1))
    result = manager.allocate(T, consumer("y", T, "I", 11))
    assert result.steps == [
        "I full (cpu 1+11 > 1)", "D full (cpu 1+11 > 2)", "A full (cpu 1+11 > 10)",
        "priority 0: no preemption (only priorities above 0 preempt)",
        "rejected: nothing changed"]


def test_a_charge_failure_says_which_attempt_was_undone():
    manager = manager_with(make_tree("t", ["cpu"], [
        ("R", None, 10, False), ("P", "R", 2, False), ("L", "P", 2, False),
        ("M", "P", 2, False)]))
    manager.allocate("t", consumer("m1", "t", "M", 2))
    result = manager.allocate("t", consumer("w", "t", "L", 2))
    assert result.node == "R"
    assert result.steps == [
        "placed at L (cpu 0+2 <= 2)", "charging P failed (cpu 2+2 > 2): attempt at L undone",
        "placed at R (cpu 2+2 <= 10)"]
