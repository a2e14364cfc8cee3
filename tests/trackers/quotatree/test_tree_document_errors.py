"""Spec 2.1, strictly: every problem of a tree document with its code, path and field."""

from __future__ import annotations

import copy

import pytest

from trackers.config.report import Report
from trackers.quotatree import DocumentError, check_tree, parse_tree
from trackers.quotatree import messages as m


def doc():
    return {
        "kind": "QuotaTree",
        "metadata": {"name": "t"},
        "spec": {
            "resourceNames": ["memory", "cpu"],
            "nodes": {
                "A": {"parent": "nil", "hard": "false", "quota": {"cpu": "10", "memory": 64}},
                "B": {"parent": "A", "hard": True, "quota": {"cpu": "4"}},
                "C": {"parent": "A", "quota": {"cpu": 6, "memory": "32"}},
            },
        },
    }


def one(code, path, field, message):
    report = Report()
    report.add(code, path, field, message)
    return report.errors


def edit(change):
    document = copy.deepcopy(doc())
    change(document)
    return document


def nodes(document):
    return document["spec"]["nodes"]


CASES = [
    ("wrong kind", lambda d: d.update(kind="Tree"),
     one(m.CODE_KIND, "", "kind", "invalid kind: Tree")),
    ("missing name", lambda d: d.update(metadata={}),
     one(m.CODE_TREE_NAME, "", "metadata.name", m.ERR_TREE_NAME)),
    ("invalid name", lambda d: d["metadata"].update(name="a tree/x"),
     one(m.CODE_TREE_NAME, "a tree/x", "metadata.name", m.ERR_TREE_NAME)),
    ("no root", lambda d: nodes(d)["A"].update(parent="C"),
     one(m.CODE_NO_ROOT, "t", "spec.nodes", m.ERR_NO_ROOT)
     + one(m.CODE_CYCLE, "A", "spec.nodes.A.parent",
           m.ERR_CYCLE.format(node="A", cycle="A -> C -> A"))
     + one(m.CODE_CYCLE, "C", "spec.nodes.C.parent",
           m.ERR_CYCLE.format(node="C", cycle="A -> C -> A"))),
    ("two roots", lambda d: nodes(d)["C"].update(parent=""),
     one(m.CODE_TWO_ROOTS, "C", "spec.nodes.C.parent", m.ERR_TWO_ROOTS.format(node="C",
                                                                               root="A"))),
    ("dangling", lambda d: nodes(d)["C"].update(parent="Z"),
     one(m.CODE_DANGLING, "C", "spec.nodes.C.parent", m.ERR_DANGLING.format(node="C",
                                                                             parent="Z"))),
    ("cycle below the root",
     lambda d: (nodes(d).update(D={"parent": "E", "quota": {}}, E={"parent": "D", "quota": {}})),
     one(m.CODE_CYCLE, "D", "spec.nodes.D.parent",
         m.ERR_CYCLE.format(node="D", cycle="D -> E -> D"))
     + one(m.CODE_CYCLE, "E", "spec.nodes.E.parent",
           m.ERR_CYCLE.format(node="E", cycle="D -> E -> D"))),
    ("millicores", lambda d: nodes(d)["B"]["quota"].update(cpu="1000m"),
     one(m.CODE_QUOTA, "B", "spec.nodes.B.quota.cpu",
         m.ERR_QUOTA.format(resource="cpu", node="B", value="1000m"))),
    ("negative", lambda d: nodes(d)["B"]["quota"].update(cpu=-1),
     one(m.CODE_QUOTA, "B", "spec.nodes.B.quota.cpu",
         m.ERR_QUOTA.format(resource="cpu", node="B", value=-1))),
    ("negative string", lambda d: nodes(d)["B"]["quota"].update(cpu="-1"),
     one(m.CODE_QUOTA, "B", "spec.nodes.B.quota.cpu",
         m.ERR_QUOTA.format(resource="cpu", node="B", value="-1"))),
    ("past 64 bits", lambda d: nodes(d)["B"]["quota"].update(cpu=str(2**63)),
     one(m.CODE_QUOTA, "B", "spec.nodes.B.quota.cpu",
         m.ERR_QUOTA.format(resource="cpu", node="B", value=str(2**63)))),
    ("fraction", lambda d: nodes(d)["B"]["quota"].update(cpu=1.5),
     one(m.CODE_QUOTA, "B", "spec.nodes.B.quota.cpu",
         m.ERR_QUOTA.format(resource="cpu", node="B", value=1.5))),
    ("quota resource not named", lambda d: nodes(d)["B"]["quota"].update(gpu="1"),
     one(m.CODE_UNKNOWN_RESOURCE, "B", "spec.nodes.B.quota.gpu",
         m.ERR_QUOTA_RESOURCE.format(resource="gpu", node="B"))),
    ("empty resource name", lambda d: d["spec"]["resourceNames"].append(""),
     one(m.CODE_RESOURCE_NAME, "t", "spec.resourceNames[2]", m.ERR_RESOURCE_NAME.format(
         value=""))),
    ("duplicate resource name", lambda d: d["spec"]["resourceNames"].append("cpu"),
     one(m.CODE_DUPLICATE_RESOURCE, "t", "spec.resourceNames[2]",
         m.ERR_DUPLICATE_RESOURCE.format(name="cpu"))),
    ("hard not a boolean", lambda d: nodes(d)["C"].update(hard="yes"),
     one(m.CODE_HARD, "C", "spec.nodes.C.hard", m.ERR_HARD.format(node="C", value="yes"))),
    ("hard a number", lambda d: nodes(d)["C"].update(hard=1),
     one(m.CODE_HARD, "C", "spec.nodes.C.hard", m.ERR_HARD.format(node="C", value=1))),
    ("node named nil", lambda d: nodes(d).update(nil={"parent": "A", "quota": {}}),
     one(m.CODE_NODE, "nil", "spec.nodes.nil", m.ERR_NODE_NAME)),
    ("quota missing", lambda d: nodes(d)["C"].pop("quota"),
     one(m.CODE_NODE, "C", "spec.nodes.C.quota",
         m.ERR_NOT_OBJECT.format(what="quota of node C"))),
]


@pytest.mark.parametrize(("case", "change", "errors"), CASES, ids=[c[0] for c in CASES])
def test_each_problem_is_reported_with_code_path_and_field(case, change, errors):
    document = edit(change)
    assert check_tree(document) == errors
    with pytest.raises(DocumentError) as caught:
        parse_tree(document)
    assert caught.value.errors == errors


def test_every_problem_at_once():
    def many(d):
        nodes(d)["B"]["quota"].update(cpu="1000m", gpu=2)
        nodes(d)["C"].update(hard="maybe", parent="Q")
    codes = [e["code"] for e in check_tree(edit(many))]
    assert codes == [m.CODE_QUOTA, m.CODE_UNKNOWN_RESOURCE, m.CODE_HARD, m.CODE_DANGLING]


def test_a_valid_document_reads_sorted_resources_and_round_trips():
    spec = parse_tree(doc())
    assert check_tree(doc()) == []
    assert spec.resources == ("cpu", "memory")
    assert spec.root == "A"
    assert spec.clean
    assert dict(spec.nodes["B"].quota) == {"cpu": 4, "memory": 0}
    assert spec.nodes["B"].hard
    assert not spec.nodes["A"].hard
    assert not spec.nodes["C"].hard
    assert parse_tree(spec.document()) == spec


@pytest.mark.parametrize("value", [None, [], "x", {"kind": "QuotaTree"}])
def test_a_document_of_the_wrong_shape_is_refused_not_crashed(value):
    assert check_tree(value)
