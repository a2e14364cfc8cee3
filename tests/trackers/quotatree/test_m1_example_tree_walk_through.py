"""M1: the ExampleTree walk-through of the library's docs, every step with its state table."""

from __future__ import annotations

import pytest

from tests.trackers.quotatree.support import compact, consumer, example_tree, manager_with

T = "ExampleTree"

# (step, consumer or "-id" for a de-allocation, gNode, request, priority,
#  expected compact state, expected preempted)
STEPS = [
    ("a", "a", "N", 1, 0, {"A": 1, "C": 1, "H": 1, "N": (1, ["a"])}, []),
    ("b", "b", "N", 1, 0, {"A": 2, "C": 2, "H": 2, "N": (2, ["a", "b"])}, []),
    ("c", "c", "N", 1, 0, {"A": 3, "C": 3, "H": (3, ["c"]), "N": (2, ["a", "b"])}, []),
    ("-a", "-a", None, 0, 0, {"A": 2, "C": 2, "H": 2, "N": (2, ["b", "c"])}, []),
    ("d", "d", "N", 2, 1,
     {"A": 4, "C": (4, ["b"]), "H": (3, ["c"]), "N": (2, ["d"])}, []),
    ("e", "e", "L", 3, 0,
     {"A": (7, ["b"]), "C": 6, "G": (3, ["e"]), "H": (3, ["c"]), "N": (2, ["d"])}, []),
    ("f", "f", "E", 3, 0,
     {"A": (10, ["b", "f"]), "C": 6, "G": (3, ["e"]), "H": (3, ["c"]), "N": (2, ["d"])}, []),
    ("g", "g", "J", 1, 0,
     {"A": (10, ["f"]), "C": 6, "G": (3, ["e"]), "H": (3, ["c"]), "N": (2, ["d"]),
      "D": 1, "J": (1, ["g"])}, ["b"]),
    ("h", "h", "K", 1, 0,
     {"A": (8, ["e"]), "C": 4, "G": 1, "K": (1, ["h"]), "H": (3, ["c"]), "N": (2, ["d"]),
      "D": 1, "J": (1, ["g"])}, ["f"]),
    ("i", "i", "I", 3, 1,
     {"A": (8, ["i"]), "C": 4, "G": 1, "K": (1, ["h"]), "H": (3, ["c"]), "N": (2, ["d"]),
      "D": 1, "J": (1, ["g"])}, ["e"]),
    ("j", "j", "F", 2, 0,
     {"A": (10, ["i"]), "B": (2, ["j"]), "C": 4, "G": 1, "K": (1, ["h"]), "H": (3, ["c"]),
      "N": (2, ["d"]), "D": 1, "J": (1, ["g"])}, []),
]


def test_every_step_gives_the_documented_state_and_preemptions():
    manager = manager_with(example_tree())
    for step, cid, group, request, priority, expected, preempted in STEPS:
        if cid.startswith("-"):
            manager.deallocate(T, cid[1:])
        else:
            result = manager.allocate(T, consumer(cid, T, group, request, priority))
            assert result.allocated, (step, result.steps)
            assert result.preempted == preempted, step
        assert compact(manager.state(T)) == expected, step


@pytest.mark.parametrize(
    ("upto", "consumer_id", "node"),
    [("c", "c", "H"), ("d", "d", "N"), ("e", "e", "G"), ("f", "f", "A"), ("i", "i", "A"),
     ("j", "j", "B")],
)
def test_result_names_the_allocation_node(upto, consumer_id, node):
    manager = manager_with(example_tree())
    for step, cid, group, request, priority, _expected, _preempted in STEPS:
        if cid.startswith("-"):
            manager.deallocate(T, cid[1:])
            continue
        result = manager.allocate(T, consumer(cid, T, group, request, priority))
        if step == upto:
            assert result.node == node
            assert manager.placement(T, consumer_id)["node"] == node
            break


def test_steps_explain_the_slides_and_the_preemption():
    manager = manager_with(example_tree())
    results = {}
    for _step, cid, group, request, priority, _expected, _preempted in STEPS:
        if cid.startswith("-"):
            manager.deallocate(T, cid[1:])
        else:
            results[cid] = manager.allocate(T, consumer(cid, T, group, request, priority))
    assert results["c"].steps == ["N full (cpu 2+1 > 2)", "placed at H (cpu 2+1 <= 3)"]
    assert "b slid up from N to H" in results["d"].steps
    assert "c slid up from N to H" in results["d"].steps
    assert "b slid up from H to C" in results["d"].steps
    assert "b preempted at root A (priority 0, by g)" in results["g"].steps
    assert "e preempted at root A (priority 0, by i)" in results["i"].steps
    (feed,) = results["i"].preemptions
    assert (feed.consumer, feed.by, feed.node, feed.priority, feed.by_priority) == (
        "e", "i", "A", 0, 1)
