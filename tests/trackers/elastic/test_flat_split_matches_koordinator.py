"""Spec K1-K4 and K7-K9: one parent sharing one resource, with Koordinator's numbers."""

from __future__ import annotations

from tests.trackers.elastic.support import ROOT, build, eq, runtimes
from trackers.elastic import ElasticTree

K1 = [eq("a", 10, 40), eq("b", 15, 60), eq("c", 20, 50), eq("d", 15, 80)]
K1_DEMAND = {"a": 5, "b": 20, "c": 40, "d": 70}


def test_k1_seed_example():
    tree = build(*K1, total=100, demand=K1_DEMAND)
    assert runtimes(tree, "a", "b", "c", "d") == [5, 20, 35, 40]
    assert tree.unallocated("root") == {}


def test_k1_with_c_asking_30():
    tree = build(*K1, total=100, demand={**K1_DEMAND, "c": 30})
    assert runtimes(tree, "a", "b", "c", "d") == [5, 20, 30, 45]


def test_k2_weight_zero_gets_nothing_beyond_its_min():
    queues = [*K1[:3], eq("d", 15, 80, weight=0)]
    tree = build(*queues, total=100, demand=K1_DEMAND)
    assert runtimes(tree, "a", "b", "c", "d") == [5, 20, 40, 15]
    assert tree.unallocated("root") == {"cpu": 20}


def test_k3_guarantee_above_min():
    queues = [*K1[:3], eq("d", 15, 80, weight=0)]
    tree = build(*queues, total=100, demand=K1_DEMAND)
    tree.set_guaranteed("root.d", {"cpu": 45})
    tree.refresh()
    assert runtimes(tree, "a", "b", "c", "d") == [5, 20, 30, 45]


def test_k4_integer_gpus_largest_remainder():
    mins = [8, 8, 8, 8, 8, 8, 8, 8, 7, 7]
    borrowers = [eq(f"borrower-{n:02d}", low, 100, 1) for n, low in enumerate(mins)]
    tree = build(
        eq("donor", 3, 100, 1), *borrowers, total=81,
        demand={f"borrower-{n:02d}": 100 for n in range(10)},
    )
    got = runtimes(tree, *(f"borrower-{n:02d}" for n in range(10)))
    assert got == [9, 9, 9, 8, 8, 8, 8, 8, 7, 7]
    assert runtimes(tree, "donor") == [0]
    assert sum(got) == 81
    assert all(rt >= low for rt, low in zip(got, mins, strict=True))


def test_k7_no_scaling_mins_may_exceed_the_pool():
    queues = [eq("test1", 60, 80, 1), eq("test2", 50, 100, 1)]
    tree = build(*queues, total=100, demand={"test2": 90}, scale_min=False)
    assert runtimes(tree, "test1", "test2") == [0, 90]
    for test1, expected in ((30, [30, 70]), (60, [60, 50])):
        tree.set_demand("root.test1", {"cpu": test1})
        tree.refresh()
        assert runtimes(tree, "test1", "test2") == expected
    # Step 4, test1 deleted: the tree without it, the same demand.
    alone = build(queues[1], total=100, demand={"test2": 90}, scale_min=False)
    assert runtimes(alone, "test2") == [90]


def test_k7_memory_behaves_the_same():
    queues = [
        eq("test1", 600, 800, 1, kind="memory"), eq("test2", 500, 1000, 1, kind="memory"),
    ]
    tree = build(
        *queues, total=1000, demand={"test1": 600, "test2": 900}, scale_min=False, kind="memory"
    )
    assert runtimes(tree, "test1", "test2", kind="memory") == [600, 500]


def test_k8_request_limited_by_max():
    test1 = eq("test1", 50, 80, 1)
    tree = build(test1, total=120, demand={"test1": 100})
    assert runtimes(tree, "test1") == [80]
    assert tree.state("root.test1").limited_request == {"cpu": 80}
    both = build(test1, eq("test2", 50, 100, 1), total=120, demand={"test1": 100, "test2": 150})
    assert runtimes(both, "test1", "test2") == [60, 60]


def test_k9_non_lending_sibling_keeps_its_min():
    tree = build(
        eq("test1", 60, 96), eq("test2", 40, 96, lent=False), total=100,
        demand={"test1": 120},
    )
    assert runtimes(tree, "test1", "test2") == [60, 40]
    assert tree.state("root.test2").request == {"cpu": 40}


def test_root_alone_is_the_pool():
    tree = ElasticTree([ROOT], total={"cpu": 5})
    assert tree.pool == {}
    assert tree.states()[0].runtime == {}
