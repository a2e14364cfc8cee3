"""Spec 1.8 (guarantee_usage): used quota is guaranteed; every queue keeps its min."""

from __future__ import annotations

from tests.trackers.elastic.support import build, eq, runtimes

QUEUES = [eq("a", 10, 100, 1), eq("b", 10, 100, 3)]


def test_usage_above_min_is_kept_in_guarantee_mode():
    plain = build(*QUEUES, total=100, used={"a": 60}, demand={"b": 100})
    assert runtimes(plain, "a", "b") == [30, 70]
    assert plain.over_used() == {"root.a": {"cpu": 30}}
    guarded = build(*QUEUES, total=100, used={"a": 60}, demand={"b": 100},
                    guarantee_usage=True)
    assert runtimes(guarded, "a", "b") == [60, 40]
    assert guarded.over_used() == {}


def test_every_queue_is_non_lending_in_guarantee_mode():
    tree = build(*QUEUES, total=100, demand={"b": 100}, guarantee_usage=True)
    assert runtimes(tree, "a", "b") == [10, 90]
    assert tree.state("root.a").request == {"cpu": 10}


def test_parent_guarantee_covers_its_childrens():
    tree = build(
        eq("p", 20, 100, 1), eq("p.x", 10, 100), eq("p.y", 10, 100), eq("q", 10, 100, 9),
        total=100, used={"p.x": 30}, demand={"q": 100}, guarantee_usage=True,
    )
    # p guarantees max(Σ children's guaranteed 30 + 10, min 20) = 40.
    assert runtimes(tree, "p", "p.x", "p.y", "q") == [40, 30, 10, 60]
    assert tree.explain("root.p", "cpu")["guaranteed"] == 40


def test_reported_guarantee_without_the_gate():
    tree = build(*QUEUES, total=100, used={"a": 60}, demand={"b": 100})
    tree.set_guaranteed("root.a", {"cpu": 50})
    assert "root.a" in tree.refresh()
    assert runtimes(tree, "a", "b") == [60, 40]
    explained = tree.explain("root.a", "cpu")
    assert (explained["guaranteed"], explained["effectiveMin"]) == (50, 50)
    tree.set_guaranteed("root.a", {})
    tree.refresh()
    assert runtimes(tree, "a", "b") == [30, 70]
