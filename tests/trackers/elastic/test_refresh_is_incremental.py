"""refresh() recomputes only what the set_* calls can affect, and says which queues changed."""

from __future__ import annotations

import pytest

from tests.trackers.elastic.support import build, eq

QUEUES = [
    eq("p", 40, 100), eq("p.x", 20, 100), eq("p.y", 20, 100),
    eq("q", 40, 100), eq("q.u", 20, 100), eq("q.v", 20, 100),
]
DEMAND = {"p.x": 80, "p.y": 10, "q.u": 30, "q.v": 30}


@pytest.fixture
def tree():
    return build(*QUEUES, total=100, demand=DEMAND)


def spy(tree, monkeypatch):
    """Record the paths whose figures (up) and whose children's split (down) are recomputed."""
    calls = {"up": [], "down": []}
    aggregate, distribute = tree._aggregate, tree._distribute

    def up(node, changed):
        calls["up"].append(node.path)
        return aggregate(node, changed)

    def down(node, changed):
        calls["down"].append(node.path)
        return distribute(node, changed)

    monkeypatch.setattr(tree, "_aggregate", up)
    monkeypatch.setattr(tree, "_distribute", down)
    return calls


def test_nothing_set_nothing_done(tree, monkeypatch):
    calls = spy(tree, monkeypatch)
    tree.set_demand("root.p.x", {"cpu": 80})  # the same value
    assert tree.refresh() == frozenset()
    assert calls == {"up": [], "down": []}


def test_a_hungry_leaf_asking_more_touches_its_own_branch_only(tree, monkeypatch):
    before = tree.states()
    calls = spy(tree, monkeypatch)
    tree.set_demand("root.p.x", {"cpu": 90})
    changed = tree.refresh()
    # p.x was hungry and stays hungry: only requests move, on its path up.
    assert changed == {"root.p.x", "root.p", "root"}
    assert calls["up"] == ["root.p.x", "root.p", "root"]
    assert "root.q" not in calls["down"]
    after = {s.path: s for s in tree.states()}
    assert [after[s.path].runtime for s in before] == [s.runtime for s in before]


def test_a_change_that_moves_runtimes_redistributes_below_them(tree, monkeypatch):
    calls = spy(tree, monkeypatch)
    tree.set_demand("root.q.u", {"cpu": 0})
    tree.set_demand("root.q.v", {"cpu": 0})
    changed = tree.refresh()
    assert {"root.q", "root.p", "root.p.x"} <= changed
    assert calls["down"] == ["root", "root.p", "root.q"]
    fresh = build(*QUEUES, total=100, demand={**DEMAND, "q.u": 0, "q.v": 0})
    assert tree.states() == fresh.states()


def test_used_change_of_a_leaf_within_its_demand_changes_its_figures(tree):
    tree.set_used("root.q.u", {"cpu": 5})
    changed = tree.refresh()
    assert "root.q.u" in changed
    assert tree.state("root.q").used == {"cpu": 5}


def test_recompute_gives_what_refresh_gave(tree):
    tree.set_total({"cpu": 70})
    tree.set_used("root.p.y", {"cpu": 15})
    tree.refresh()
    states = tree.states()
    tree.recompute()
    assert tree.states() == states
