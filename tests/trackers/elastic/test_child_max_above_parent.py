"""A child's max may exceed its parent's (spec 1.11 T6): the parent's max still bounds it."""

from __future__ import annotations

from tests.trackers.elastic.support import build, eq, runtimes


def test_children_share_what_the_parents_max_lets_through():
    tree = build(
        eq("p", 10, 50), eq("p.x", 5, 400), eq("p.y", 5, 400), total=1000,
        demand={"p.x": 300, "p.y": 300},
    )
    assert tree.state("root.p").request == {"cpu": 600}
    assert tree.state("root.p").limited_request == {"cpu": 50}
    assert runtimes(tree, "p", "p.x", "p.y") == [50, 25, 25]


def test_child_limited_by_its_own_max_before_the_parents():
    tree = build(eq("p", 10, 500), eq("p.x", 5, 400), total=1000, demand={"p.x": 450})
    assert tree.state("root.p.x").limited_request == {"cpu": 400}
    assert runtimes(tree, "p", "p.x") == [400, 400]
