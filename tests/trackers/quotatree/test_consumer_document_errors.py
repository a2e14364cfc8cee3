"""Spec 2.1 consumers, strictly: every problem with its code, path (the consumer id) and field."""

from __future__ import annotations

import copy

import pytest

from tests.trackers.quotatree.support import example_tree
from trackers.quotatree import (
    ConsumerSpec,
    DocumentError,
    TreeRequest,
    allocation_consumer,
    check_consumer,
    make_tree,
    parse_consumer,
)
from trackers.quotatree import messages as m

TREES = {
    "ExampleTree": example_tree(),
    "two": make_tree("two", ["memory", "cpu"], [("R", None, [4, 8], False),
                                                ("L", "R", [2, 4], False)]),
}


def doc():
    return {
        "kind": "Consumer",
        "spec": {
            "id": "job-1",
            "trees": [
                {"treeName": "ExampleTree", "groupID": "N", "request": {"cpu": 2},
                 "priority": 1, "type": 0, "unPreemptable": False},
                {"treeName": "two", "groupID": "L", "request": [1, 3]},
            ],
        },
    }


def edit(change):
    document = copy.deepcopy(doc())
    change(document)
    return document


def entry(d, index=0):
    return d["spec"]["trees"][index]


def err(code, path, field, message):
    return [{"code": code, "path": path, "field": field, "message": message}]


CASES = [
    ("wrong kind", lambda d: d.update(kind="AppWrapper"),
     err(m.CODE_KIND, "", "kind", "invalid kind: AppWrapper")),
    ("missing id", lambda d: d["spec"].pop("id"),
     err(m.CODE_CONSUMER_ID, "", "spec.id", m.ERR_CONSUMER_ID)),
    ("unknown tree", lambda d: entry(d).update(treeName="nope"),
     err(m.CODE_UNKNOWN_TREE, "job-1", "spec.trees[0].treeName",
         m.ERR_UNKNOWN_TREE.format(id="job-1", tree="nope"))),
    ("unknown group", lambda d: entry(d).update(groupID="Z"),
     err(m.CODE_GROUP, "job-1", "spec.trees[0].groupID",
         m.ERR_UNKNOWN_GROUP.format(group="Z", tree="ExampleTree"))),
    ("group not a leaf", lambda d: entry(d).update(groupID="H"),
     err(m.CODE_GROUP, "job-1", "spec.trees[0].groupID",
         m.ERR_GROUP_NOT_LEAF.format(group="H", tree="ExampleTree"))),
    ("no group", lambda d: entry(d).update(groupID=""),
     err(m.CODE_GROUP, "job-1", "spec.trees[0].groupID",
         m.NO_DESIGNATION.format(tree="ExampleTree"))),
    ("request resource not in the tree", lambda d: entry(d)["request"].update(gpu=1),
     err(m.CODE_UNKNOWN_RESOURCE, "job-1", "spec.trees[0].request.gpu",
         m.ERR_REQUEST_RESOURCE.format(resource="gpu", tree="ExampleTree"))),
    ("non-integer request", lambda d: entry(d)["request"].update(cpu="500m"),
     err(m.CODE_REQUEST, "job-1", "spec.trees[0].request.cpu",
         m.ERR_REQUEST.format(resource="cpu", value="500m"))),
    ("negative request", lambda d: entry(d)["request"].update(cpu=-2),
     err(m.CODE_REQUEST, "job-1", "spec.trees[0].request.cpu",
         m.ERR_REQUEST.format(resource="cpu", value=-2))),
    ("request past 64 bits", lambda d: entry(d)["request"].update(cpu=2**63),
     err(m.CODE_REQUEST, "job-1", "spec.trees[0].request.cpu",
         m.ERR_REQUEST.format(resource="cpu", value=2**63))),
    ("request list too short", lambda d: entry(d, 1).update(request=[1]),
     err(m.CODE_REQUEST_LENGTH, "job-1", "spec.trees[1].request",
         "Expected 2 resources for quota designations 'two', received 1")),
    ("priority not an integer", lambda d: entry(d).update(priority="high"),
     err(m.CODE_FIELD, "job-1", "spec.trees[0].priority",
         m.ERR_INTEGER_FIELD.format(field="priority", value="high"))),
    ("unPreemptable not a boolean", lambda d: entry(d).update(unPreemptable="no"),
     err(m.CODE_FIELD, "job-1", "spec.trees[0].unPreemptable",
         m.ERR_BOOLEAN_FIELD.format(field="unPreemptable", value="no"))),
    ("tree named twice", lambda d: d["spec"]["trees"].append(copy.deepcopy(entry(d))),
     err(m.CODE_DUPLICATE_TREE, "job-1", "spec.trees[2].treeName",
         m.ERR_DUPLICATE_TREE.format(id="job-1", tree="ExampleTree"))),
    ("no trees", lambda d: d["spec"].update(trees=[]),
     err(m.CODE_DOCUMENT, "job-1", "spec.trees", m.ERR_NO_TREES.format(id="job-1"))),
]


@pytest.mark.parametrize(("case", "change", "errors"), CASES, ids=[c[0] for c in CASES])
def test_each_problem_is_reported(case, change, errors):
    document = edit(change)
    assert check_consumer(document, TREES) == errors
    with pytest.raises(DocumentError):
        parse_consumer(document, TREES)


def test_a_valid_consumer_reads_lists_in_sorted_resource_order():
    spec = parse_consumer(doc(), TREES)
    assert spec == ConsumerSpec("job-1", {
        "ExampleTree": TreeRequest("N", {"cpu": 2}, 1, 0, False),
        "two": TreeRequest("L", {"cpu": 1, "memory": 3}),
    })
    assert parse_consumer(spec.document(), TREES) == spec


def test_a_zero_amount_of_a_resource_the_tree_lacks_is_ignored():
    spec = parse_consumer(edit(lambda d: entry(d)["request"].update(gpu=0)), TREES)
    assert spec.trees["ExampleTree"].request == {"cpu": 2}


def test_without_trees_only_the_document_itself_is_checked():
    # An unknown group passes, but a request list cannot be read without the tree's order.
    errors = check_consumer(edit(lambda d: entry(d).update(groupID="Z")), None)
    assert [(e["code"], e["field"]) for e in errors] == [
        (m.CODE_REQUEST, "spec.trees[1].request")]


def test_an_allocation_body_reads_as_a_consumer_of_that_tree():
    body = {"id": "x", "groupID": "N", "request": {"cpu": 1}, "priority": 2}
    spec = allocation_consumer(body, "ExampleTree", TREES)
    assert spec == ConsumerSpec("x", {"ExampleTree": TreeRequest("N", {"cpu": 1}, 2)})
    with pytest.raises(DocumentError) as caught:
        allocation_consumer({"groupID": "N"}, "ExampleTree", TREES)
    assert caught.value.errors[0]["field"] == "spec.id"
