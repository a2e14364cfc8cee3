"""A sibling with weight 0 keeps its min and never gets a share of what is left (spec 1.12)."""

from __future__ import annotations

from tests.trackers.elastic.support import build, eq, runtimes


def test_weight_zero_keeps_its_min_while_others_share():
    tree = build(
        eq("a", 10, 100, 0), eq("b", 10, 100, 1), eq("c", 10, 100, 1),
        total=100, demand={"a": 100, "b": 100, "c": 100},
    )
    assert runtimes(tree, "a", "b", "c") == [10, 45, 45]


def test_only_weight_zero_siblings_hungry_leaves_the_rest_unallocated():
    tree = build(
        eq("a", 10, 100, 0), eq("b", 10, 100, 0), eq("c", 10, 100, 5),
        total=100, demand={"a": 100, "b": 100, "c": 30},
    )
    assert runtimes(tree, "a", "b", "c") == [10, 10, 30]
    assert tree.unallocated("root") == {"cpu": 50}


def test_weight_zero_in_one_resource_only():
    both = {"cpu": 100, "memory": 100}
    tree = build(
        eq("a", {"cpu": 10, "memory": 10}, both, {"cpu": 0, "memory": 1}),
        eq("b", {"cpu": 10, "memory": 10}, both, {"cpu": 1, "memory": 1}),
        total=both, demand={"a": both, "b": both},
    )
    assert tree.runtime("root.a") == {"cpu": 10, "memory": 50}
    assert tree.runtime("root.b") == {"cpu": 90, "memory": 50}


def test_weight_zero_queue_below_its_min_still_gets_its_request():
    tree = build(eq("a", 10, 100, 0), eq("b", 10, 100, 1), total=100, demand={"a": 4, "b": 100})
    assert runtimes(tree, "a", "b") == [4, 96]
