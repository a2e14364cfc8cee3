"""elastic.system: usage comes off the parent's pool, no part in the split (spec 1.7's fix)."""

from __future__ import annotations

from tests.trackers.elastic.support import build, eq, runtimes

SYSTEM = eq("sys", 0, 1000, system=True)


def test_system_usage_comes_off_the_root_pool():
    tree = build(
        SYSTEM, eq("a", 10, 100, 1), eq("b", 10, 100, 1), total=100,
        used={"sys": 30}, demand={"a": 100, "b": 100, "sys": 500},
    )
    assert tree.pool == {"cpu": 70}
    assert tree.runtime("root") == {"cpu": 70}
    assert runtimes(tree, "a", "b") == [35, 35]
    assert tree.runtime("root.sys") == {"cpu": 1000}
    root = tree.state("root")
    assert root.used == {"cpu": 30}
    assert root.request == {"cpu": 230}  # 100 + 100 + the system queue's 30 used


def test_system_queue_never_counts_as_over_its_runtime():
    tree = build(SYSTEM, eq("a", 10, 100), total=100, used={"sys": 2000, "a": 50})
    assert tree.pool == {"cpu": 0}
    assert tree.over_used() == {"root.a": {"cpu": 50}}


def test_system_queue_deeper_down_uses_its_parents_runtime():
    tree = build(
        eq("p", 50, 100), eq("p.sys", 0, 100, system=True), eq("p.x", 10, 100),
        eq("p.y", 10, 100), eq("q", 50, 100), total=100,
        used={"p.sys": 20}, demand={"p.x": 100, "p.y": 100, "q": 100},
    )
    p = tree.state("root.p")
    assert p.request == {"cpu": 220}  # 100 + 100 + the system child's 20 used
    assert p.limited_request == {"cpu": 100}
    assert runtimes(tree, "p", "q") == [50, 50]
    assert runtimes(tree, "p.x", "p.y") == [15, 15]
    assert tree.unallocated("root.p") == {}


def test_system_queue_max_keys_are_not_distributed_by_root():
    tree = build(eq("sys", 0, {"gpu": 8}, system=True), eq("a", 1, 10), total={"cpu": 10})
    assert tree.state("root").runtime == {"cpu": 10}
    assert tree.runtime("root.sys") == {"gpu": 8}


def test_system_queue_state_lends_and_borrows_nothing():
    tree = build(eq("sys", 5, 100, system=True), eq("a", 1, 10), total=100, used={"sys": 50})
    state = tree.state("root.sys")
    assert state.system
    assert (state.lent, state.borrowed) == ({}, {})
    assert state.runtime == {"cpu": 100}
