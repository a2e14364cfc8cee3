"""M6: dynamic updates of ExampleTree with C-1 allocated; each edit applied by force."""

from __future__ import annotations

import copy

import pytest

from tests.trackers.quotatree.support import compact, consumer, example_tree, manager_with
from trackers.quotatree import NOT_FOUND, QuotaTreeError, build_tree

T = "ExampleTree"


def test_each_edit_in_turn():
    manager = manager_with(example_tree())
    result = manager.allocate(T, consumer("C-1", T, "K", 4, unpreemptable=True))
    assert result.node == "C"
    assert compact(manager.state(T)) == {"A": 4, "C": (4, ["C-1"])}
    cache = copy.deepcopy(example_tree().document())
    nodes = cache["spec"]["nodes"]

    del nodes["D"]
    update = manager.update_tree(build_tree(cache)[0])
    assert (update.root, update.dangling, update.unplaced) == ("A", ["I", "J"], [])
    assert compact(manager.state(T)) == {"A": 4, "C": (4, ["C-1"])}

    nodes["CC"] = nodes.pop("C")
    for child in ("G", "H"):
        nodes[child]["parent"] = "CC"
    update = manager.update_tree(build_tree(cache)[0], renames={"C": "CC"})
    assert update.unplaced == []
    assert compact(manager.state(T)) == {"A": 4, "CC": (4, ["C-1"])}
    assert [(c.consumer, c.node) for c in update.changes] == [("C-1", "CC")]
    state = manager.state(T)
    assert state["nodes"]["G"]["parent"] == state["nodes"]["H"]["parent"] == "CC"

    nodes["G"]["parent"] = "B"
    nodes["H"]["parent"] = "A"
    nodes["B"]["quota"]["cpu"] = "6"
    manager.update_tree(build_tree(cache)[0])
    state = manager.state(T)
    assert compact(state) == {"A": 4, "B": 4, "G": 4, "K": (4, ["C-1"])}
    assert state["nodes"]["K"]["quota"] == {"cpu": 1}  # over quota after a forced placement
    assert state["nodes"]["G"]["quota"] == {"cpu": 3}
    assert state["nodes"]["B"]["quota"] == {"cpu": 6}

    del nodes["K"]
    manager.update_tree(build_tree(cache)[0])
    assert compact(manager.state(T)) == {"A": (4, ["C-1"])}

    del nodes["A"]
    spec = build_tree(cache)[0]
    update = manager.update_tree(spec)
    assert update.root is None
    assert update.unplaced == ["C-1"]
    assert update.dangling == sorted(nodes)
    assert manager.state(T)["nodes"] == {}
    with pytest.raises(QuotaTreeError) as caught:
        manager.deallocate(T, "C-1")
    assert caught.value.code == NOT_FOUND


def test_an_unplaced_consumer_leaves_every_tree_of_its_forest():
    other = example_tree("Other")
    manager = manager_with(example_tree(), other)
    manager.add_forest("f", [T, "Other"])
    both = consumer("C-1", T, "K", 1)
    both = type(both)("C-1", {**both.trees, "Other": both.trees[T]})
    assert manager.allocate_forest("f", both).allocated
    empty = copy.deepcopy(example_tree().document())
    del empty["spec"]["nodes"]["A"]
    update = manager.update_tree(build_tree(empty)[0])
    assert update.unplaced == ["C-1"]
    assert not manager.is_allocated("Other", "C-1")
    assert {(c.tree, c.consumer, c.node) for c in update.changes} == {
        (T, "C-1", None), ("Other", "C-1", None)}
