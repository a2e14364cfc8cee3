"""A config change builds a new tree from the new queues; usage and demand carry over."""

from __future__ import annotations

from tests.trackers.elastic.support import build, eq, runtimes

DEMAND = {"a": 100, "b": 100}


def test_raising_a_min_moves_runtime_to_that_queue():
    before = build(eq("a", 10, 100, 1), eq("b", 10, 100, 1), total=100, demand=DEMAND)
    after = build(eq("a", 70, 100, 1), eq("b", 10, 100, 1), total=100, demand=DEMAND)
    assert runtimes(before, "a", "b") == [50, 50]
    assert runtimes(after, "a", "b") == [80, 20]


def test_lowering_a_max_caps_its_request_and_frees_the_rest():
    after = build(eq("a", 10, 30, 1), eq("b", 10, 100, 1), total=100, demand=DEMAND)
    assert after.state("root.a").limited_request == {"cpu": 30}
    assert runtimes(after, "a", "b") == [30, 70]


def test_changing_a_weight_changes_the_split():
    after = build(eq("a", 10, 100, 3), eq("b", 10, 100, 1), total=100, demand=DEMAND)
    assert runtimes(after, "a", "b") == [70, 30]


def test_moving_a_subtree_moves_its_usage_and_demand():
    inputs = {"demand": {"a.x": 60, "b.y": 10}}
    before = build(
        eq("a", 20, 100), eq("a.x", 20, 100), eq("b", 20, 100), eq("b.y", 10, 100),
        total=100, used={"a.x": 40}, **inputs,
    )
    assert before.state("root.a").used == {"cpu": 40}
    assert runtimes(before, "a", "a.x", "b", "b.y") == [90, 90, 10, 10]
    # root.a.x moved below root.b (now root.b.x): its usage and demand go with it.
    after = build(
        eq("a", 20, 100), eq("b", 20, 100), eq("b.y", 10, 100), eq("b.x", 10, 100),
        total=100, used={"b.x": 40}, demand={"b.x": 60, "b.y": 10},
    )
    assert after.state("root.a").used == {"cpu": 0}
    assert after.state("root.b").used == {"cpu": 40}
    assert after.state("root.b").request == {"cpu": 110}
    assert runtimes(after, "a", "b", "b.y", "b.x") == [0, 100, 10, 90]
