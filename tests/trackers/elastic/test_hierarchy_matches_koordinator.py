"""Spec K5 and K10-K13: requests go up limited by each max, runtimes come down."""

from __future__ import annotations

import pytest

from tests.trackers.elastic.support import GI, build, eq, runtimes


def test_k5_doc_hierarchy():
    tree = build(
        eq("pa", 20, 100), eq("pa.a1", 10, 10), eq("pa.a2", 10, 10),
        eq("pb", 80, 100), eq("pb.b1", 20, 40), eq("pb.b2", 40, 70),
        total=100, demand={"pa.a1": 100, "pa.a2": 100, "pb.b1": 100, "pb.b2": 100},
    )
    assert tree.state("root.pa").request == {"cpu": 20}
    assert tree.state("root.pb").request == {"cpu": 110}
    assert tree.state("root.pb").limited_request == {"cpu": 100}
    assert runtimes(tree, "pa", "pb", "pa.a1", "pa.a2", "pb.b1", "pb.b2") == [
        20, 80, 10, 10, 27, 53,
    ]


# (root lends, child1 lends, child2 lends) -> root/child1/child2 runtimes with 0, 40, 60 used.
K10 = {
    "_2": ((False, False, False), [[60, 20, 20], [60, 40, 20], [80, 60, 20]]),
    "_3": ((True, False, True), [[20, 20, 0], [40, 40, 0], [60, 60, 0]]),
    "_4": ((True, False, False), [[40, 20, 20], [60, 40, 20], [80, 60, 20]]),
}


@pytest.mark.parametrize("variant", sorted(K10))
def test_k10_non_lending_in_a_hierarchy(variant):
    (root_lends, c1_lends, c2_lends), expected = K10[variant]
    tree = build(
        eq("test-root", 60, 96, lent=root_lends),
        eq("test-root.test-child1", 20, 96, lent=c1_lends),
        eq("test-root.test-child2", 20, 96, lent=c2_lends),
        total=100,
    )
    paths = ("test-root", "test-root.test-child1", "test-root.test-child2")
    for used, want in zip((0, 40, 60), expected, strict=True):
        tree.set_used("root.test-root.test-child1", {"cpu": used})
        tree.refresh()
        assert runtimes(tree, *paths) == want, used


def two(cpu: int, mem_gi: int) -> dict[str, int]:
    return {"cpu": cpu, "memory": mem_gi * GI}


def test_k11_three_level_chain():
    tree = build(
        eq("test1", two(80, 80), two(96, 160)),
        eq("test1.test1-a", two(50, 80), two(60, 80)),
        eq("test1.test1-a.a-123", two(20, 40), two(30, 60)),
        total=two(96, 160),
    )
    chain = ("root.test1", "root.test1.test1-a", "root.test1.test1-a.a-123")
    leaf = chain[-1]
    tree.set_demand(leaf, two(10, 30))
    tree.refresh()
    assert [tree.runtime(path) for path in chain] == [two(10, 30)] * 3
    tree.set_demand(leaf, two(25, 45))
    tree.refresh()
    assert tree.runtime(leaf) == two(25, 45)
    assert [tree.state(path).request for path in chain[:2]] == [two(25, 45)] * 2
    tree.set_demand(leaf, two(55, 75))
    tree.refresh()
    assert tree.runtime(leaf) == two(30, 60)
    assert [tree.state(path).request for path in chain[:2]] == [two(30, 60)] * 2


def test_k12_child_max_above_parent_max():
    tree = build(
        eq("test1", two(176, 756), two(300, 1024)),
        eq("test1.sub1", two(100, 512), two(500, 2048)),
        total=two(350, 1800),
    )
    tree.set_demand("root.test1.sub1", two(400, 1500))
    tree.refresh()
    test1 = tree.state("root.test1")
    assert test1.request == two(400, 1500)
    assert test1.limited_request == two(300, 1024)
    assert tree.runtime("root.test1.sub1") == two(300, 1024)
    tree.set_demand("root.test1.sub1", two(800, 3000))
    tree.refresh()
    assert tree.runtime("root.test1.sub1") == two(300, 1024)


def test_k13_child_max_above_parent_max_above_cluster():
    def small(cpu: int, mem: int) -> dict[str, int]:
        return {"cpu": cpu, "memory": mem}

    tree = build(
        eq("test1", small(100, 100), small(600, 4096)),
        eq("test1.sub1", small(100, 100), small(500, 2048)),
        total=small(300, 8000),
    )
    sub1 = "root.test1.sub1"
    tree.set_demand(sub1, small(500, 4096))
    tree.refresh()
    assert tree.runtime(sub1) == small(300, 2048)
    tree.set_demand(sub1, small(1050, 8192))
    tree.refresh()
    state = tree.state(sub1)
    assert state.request == small(1050, 8192)
    assert state.limited_request == small(500, 2048)
    assert tree.state("root.test1").request == small(500, 2048)
    assert tree.runtime(sub1) == small(300, 2048)
