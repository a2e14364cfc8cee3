"""Which resources a queue takes part in: the keys of max, and what its parent distributes."""

from __future__ import annotations

from tests.trackers.elastic.support import build, eq


def test_key_the_parent_does_not_distribute_gets_zero():
    tree = build(
        eq("p", {"cpu": 10}, {"cpu": 100}),
        eq("p.x", {"cpu": 10}, {"cpu": 100, "gpu": 4}),
        total={"cpu": 100, "gpu": 8}, demand={"p.x": {"cpu": 50, "gpu": 2}},
    )
    assert tree.runtime("root.p.x") == {"cpu": 50, "gpu": 0}


def test_key_the_cluster_does_not_have_gets_zero():
    tree = build(eq("a", {"cpu": 1, "gpu": 1}, {"cpu": 10, "gpu": 4}), total={"cpu": 10},
                 demand={"a": {"cpu": 5, "gpu": 2}})
    assert tree.runtime("root.a") == {"cpu": 5, "gpu": 0}
    assert tree.pool == {"cpu": 10, "gpu": 0}


def test_queue_without_max_takes_no_part_and_shares_nothing():
    tree = build(eq("p", None, None), eq("p.x", 5, 100), eq("q", 5, 100), total=100,
                 demand={"p.x": 50, "q": 200})
    assert tree.runtime("root.p") == {}
    assert tree.state("root.p").request == {}
    assert tree.runtime("root.p.x") == {"cpu": 0}
    assert tree.runtime("root.q") == {"cpu": 100}


def test_request_is_masked_to_max_keys_used_is_not():
    tree = build(eq("a", 1, {"cpu": 10}), total={"cpu": 10},
                 used={"a": {"cpu": 2, "memory": 7}}, demand={"a": {"gpu": 1}})
    state = tree.state("root.a")
    assert state.request == {"cpu": 2}
    assert state.used == {"cpu": 2, "memory": 7}
    assert tree.state("root").used == {"cpu": 2, "memory": 7}


def test_root_distributes_every_max_key_of_the_tree():
    tree = build(eq("a", None, {"cpu": 10}), eq("b", None, {"memory": 10}),
                 eq("b.c", None, {"memory": 10, "gpu": 1}), total={"cpu": 5, "memory": 5})
    assert sorted(tree.state("root").runtime) == ["cpu", "gpu", "memory"]
