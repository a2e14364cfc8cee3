"""The library's lenient reading (spec 2.1), kept for edits: problems logged, not fatal."""

from __future__ import annotations

import pytest

from trackers.quotatree import DocumentError, build_tree
from trackers.quotatree import messages as m


def tree(nodes, **extra):
    return {"kind": "QuotaTree", "metadata": {"name": "t"},
            "spec": {"resourceNames": ["cpu"], "nodes": nodes, **extra}}


def test_nodes_under_unknown_parents_are_dropped_and_listed_with_what_hangs_below():
    spec, problems = build_tree(tree({
        "A": {"parent": "nil", "quota": {"cpu": "3"}},
        "B": {"parent": "A", "quota": {"cpu": "1"}},
        "I": {"parent": "D", "quota": {"cpu": "1"}},
        "J": {"parent": "I", "quota": {"cpu": "1"}},
    }))
    assert spec.root == "A"
    assert list(spec.nodes) == ["A", "B"]
    assert spec.dangling == ("I", "J")
    assert not spec.clean
    assert problems == []


def test_a_second_root_is_skipped_the_first_by_name_wins():
    spec, _ = build_tree(tree({
        "Z": {"parent": "", "quota": {"cpu": "1"}},
        "A": {"parent": "nil", "quota": {"cpu": "1"}},
        "Y": {"parent": "Z", "quota": {"cpu": "1"}},
    }))
    assert spec.root == "A"
    assert spec.dangling == ("Y", "Z")


def test_bad_values_become_zero_or_false_and_are_logged():
    spec, problems = build_tree(tree({
        "A": {"parent": "nil", "hard": "yes", "quota": {"cpu": "1000m"}},
    }))
    assert spec.nodes["A"].quota == {"cpu": 0}
    assert not spec.nodes["A"].hard
    assert [p["code"] for p in problems] == [m.CODE_HARD, m.CODE_QUOTA]


def test_defaults_and_an_empty_tree():
    spec, _ = build_tree({"kind": "QuotaTree", "spec": {"nodes": {
        "B": {"parent": "A", "quota": {}}}}})
    assert spec.name == "default"
    assert spec.resources == ("cpu", "memory", "nvidia.com/gpu")
    assert spec.root is None
    assert spec.nodes == {}
    assert spec.dangling == ("B",)


def test_the_kind_is_still_checked():
    with pytest.raises(DocumentError) as caught:
        build_tree({"kind": "Other", "spec": {}})
    assert str(caught.value) == "invalid kind: Other"
