"""Spec 2.9: calls the manager refuses, with the library's messages; nothing changes."""

from __future__ import annotations

import pytest

from tests.trackers.quotatree.support import consumer, example_tree, m3_tree, manager_with
from trackers.quotatree import (
    CONFLICT,
    INVALID,
    NOT_FOUND,
    ConsumerSpec,
    QuotaTreeError,
    TreeRequest,
)
from trackers.quotatree import messages as m
from trackers.quotatree import results as r

T = "ExampleTree"


def refused(code, text, call, *args, **kw):
    with pytest.raises(QuotaTreeError) as caught:
        call(*args, **kw)
    assert caught.value.code == code
    assert str(caught.value) == text


def test_tree_calls():
    manager = manager_with(example_tree())
    refused(CONFLICT, m.TREE_EXISTS.format(tree=T), manager.add_tree, example_tree())
    refused(NOT_FOUND, m.TREE_MISSING.format(tree="x"), manager.state, "x")
    refused(NOT_FOUND, m.TREE_MISSING.format(tree="x"), manager.update_tree,
            example_tree("x"))
    manager.allocate(T, consumer("a", T, "N", 1))
    refused(CONFLICT, m.TREE_BUSY.format(tree=T), manager.delete_tree, T)
    refused(NOT_FOUND, m.CONSUMER_MISSING.format(id="zz"), manager.deallocate, T, "zz")
    manager.deallocate(T, "a")
    manager.delete_tree(T)
    assert manager.tree_names() == []


def test_forest_calls():
    manager = manager_with(example_tree(), m3_tree())
    manager.add_forest("f", [T])
    refused(CONFLICT, m.FOREST_EXISTS.format(forest="f"), manager.add_forest, "f", [T])
    refused(NOT_FOUND, m.UNKNOWN_TREE.format(tree="zz"), manager.add_forest, "g", ["zz"])
    refused(CONFLICT, m.TREE_IN_OTHER_FOREST.format(tree=T, forest="f"),
            manager.add_forest, "g", [T])
    refused(INVALID, m.INVALID_FOREST_NAME.format(forest=""), manager.add_forest, "", [])
    refused(NOT_FOUND, m.FOREST_MISSING.format(forest="g"), manager.forest_trees, "g")
    manager.put_forest("f", ["test-tree", T])
    assert manager.forest_trees("f") == ["test-tree", T]
    manager.delete_tree("test-tree")
    assert manager.forest_trees("f") == [T]
    manager.delete_forest("f")
    assert manager.forest_of(T) is None


def test_allocation_content_problems_are_rejections_that_change_nothing():
    manager = manager_with(example_tree())
    before = manager.state(T)
    cases = [
        (TreeRequest("", {"cpu": 1}), r.NO_DESIGNATION, m.NO_DESIGNATION.format(tree=T)),
        (TreeRequest("N", [1, 2]), r.WRONG_LENGTH,
         m.WRONG_LENGTH.format(expected=1, tree=T, received=2)),
        (TreeRequest("N", {"gpu": 1}), r.BAD_REQUEST,
         m.ERR_REQUEST_RESOURCE.format(resource="gpu", tree=T)),
        (TreeRequest("N", {"cpu": -1}), r.BAD_REQUEST, m.ERR_REQUEST.format(resource="cpu",
                                                                            value=-1)),
        (TreeRequest("H", {"cpu": 1}), r.UNKNOWN_GROUP, m.REJECTED.format(tree=T)),
    ]
    for request, code, message in cases:
        result = manager.allocate(T, ConsumerSpec("x", {T: request}))
        assert (result.allocated, result.code, result.message) == (False, code, message)
        assert manager.state(T) == before


def test_a_forest_consumer_already_allocated():
    manager = manager_with(example_tree(), m3_tree())
    manager.add_forest("f", [T, "test-tree"])
    both = ConsumerSpec("a", {T: TreeRequest("N", {"cpu": 1}),
                              "test-tree": TreeRequest("B", {"cpu": 1})})
    manager.allocate_forest("f", both)
    refused(CONFLICT, m.ALREADY_ON_FOREST.format(id="a", forest="f"),
            manager.allocate_forest, "f", both)
    manager.deallocate("test-tree", "a")
    refused(CONFLICT, m.ALREADY_ON_TREE.format(id="a", tree=T),
            manager.allocate_forest, "f", both)
