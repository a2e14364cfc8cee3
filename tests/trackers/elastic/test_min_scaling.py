"""Spec 1.6: mins that add up to more than the pool are scaled down, and restored later."""

from __future__ import annotations

from tests.trackers.elastic.support import build, eq, runtimes

QUEUES = [eq("a", 60, 100, 1), eq("b", 90, 100, 1)]


def test_mins_scaled_in_proportion_when_oversubscribed():
    tree = build(*QUEUES, total=100, demand={"a": 100, "b": 100})
    assert [tree.state(p).auto_scale_min for p in ("root.a", "root.b")] == [
        {"cpu": 40}, {"cpu": 60},
    ]
    assert runtimes(tree, "a", "b") == [40, 60]


def test_scaled_min_is_what_a_busy_queue_keeps_when_a_sibling_lends():
    tree = build(*QUEUES, total=100, demand={"a": 10, "b": 100})
    assert runtimes(tree, "a", "b") == [10, 90]
    assert tree.state("root.b").lent == {}


def test_floor_leftovers_go_to_the_hungry():
    tree = build(
        eq("a", 50, 100, 1), eq("b", 50, 100, 1), eq("c", 50, 100, 1), total=100,
        demand={"a": 100, "b": 100, "c": 100},
    )
    assert [tree.state(f"root.{q}").auto_scale_min["cpu"] for q in "abc"] == [33, 33, 33]
    assert runtimes(tree, "a", "b", "c") == [34, 33, 33]


def test_original_min_restored_when_the_pool_grows():
    tree = build(*QUEUES, total=100, demand={"a": 100, "b": 100})
    tree.set_total({"cpu": 200})
    changed = tree.refresh()
    assert {"root.a", "root.b"} <= changed
    assert tree.state("root.a").auto_scale_min == {"cpu": 60}
    assert tree.state("root.b").auto_scale_min == {"cpu": 90}
    assert runtimes(tree, "a", "b") == [100, 100]
    tree.set_total({"cpu": 100})
    tree.refresh()
    assert tree.state("root.a").auto_scale_min == {"cpu": 40}


def test_without_scaling_mins_are_kept_beyond_the_pool():
    tree = build(*QUEUES, total=100, demand={"a": 100, "b": 100}, scale_min=False)
    assert tree.state("root.a").auto_scale_min == {"cpu": 60}
    assert runtimes(tree, "a", "b") == [60, 90]
    assert tree.unallocated("root") == {}


def test_only_the_oversubscribed_resource_is_scaled():
    low = {"cpu": 60, "memory": 10}
    high = {"cpu": 100, "memory": 100}
    tree = build(
        eq("a", low, high), eq("b", {"cpu": 90, "memory": 10}, high),
        total={"cpu": 100, "memory": 100}, demand={"a": high, "b": high},
    )
    assert tree.state("root.a").auto_scale_min == {"cpu": 40, "memory": 10}


def test_deeper_levels_scale_against_the_parents_runtime():
    tree = build(
        eq("p", 40, 100), eq("p.x", 30, 100), eq("p.y", 30, 100), eq("q", 60, 100),
        total=100, demand={"p.x": 100, "p.y": 100, "q": 100},
    )
    assert runtimes(tree, "p") == [40]
    assert tree.state("root.p.x").auto_scale_min == {"cpu": 20}
    assert runtimes(tree, "p.x", "p.y") == [20, 20]


def test_a_pool_of_zero_scales_every_min_to_zero():
    tree = build(*QUEUES, total=0, demand={"a": 100, "b": 100})
    assert tree.state("root.a").auto_scale_min == {"cpu": 0}
    assert runtimes(tree, "a", "b") == [0, 0]
