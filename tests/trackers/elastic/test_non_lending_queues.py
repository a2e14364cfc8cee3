"""elastic.allow-lent false: the queue asks for at least its min and keeps all of it."""

from __future__ import annotations

from tests.trackers.elastic.support import build, eq, runtimes


def test_idle_non_lending_queue_keeps_its_whole_min():
    tree = build(eq("a", 30, 100, lent=False), eq("b", 10, 100), total=100, demand={"b": 100})
    assert runtimes(tree, "a", "b") == [30, 70]
    state = tree.state("root.a")
    assert state.request == {"cpu": 30}
    assert state.lent == {}
    assert tree.state("root").request == {"cpu": 130}


def test_lending_queue_lends_what_it_does_not_ask_for():
    tree = build(eq("a", 30, 100), eq("b", 10, 100), total=100, demand={"a": 5, "b": 100})
    assert runtimes(tree, "a", "b") == [5, 95]
    assert tree.state("root.a").lent == {"cpu": 25}
    assert tree.state("root.b").borrowed == {"cpu": 85}


def test_hungry_non_lending_queue_shares_like_any_other():
    tree = build(
        eq("a", 30, 100, 1, lent=False), eq("b", 10, 100, 1), total=100,
        demand={"a": 100, "b": 100},
    )
    assert runtimes(tree, "a", "b") == [60, 40]


def test_non_lending_parent_asks_for_its_min_upward():
    tree = build(
        eq("p", 50, 100, lent=False), eq("p.x", 10, 100), eq("q", 10, 100), total=100,
        demand={"p.x": 20, "q": 100},
    )
    assert tree.state("root.p").request == {"cpu": 50}
    assert runtimes(tree, "p", "p.x", "q") == [50, 20, 50]
    assert tree.unallocated("root.p") == {"cpu": 30}
