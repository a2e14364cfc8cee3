"""Spec 2.2a: slack = quota minus the children's quotas, per resource (leaves: their quota)."""

from __future__ import annotations

from tests.trackers.quotatree.support import (
    context_tree,
    example_tree,
    manager_with,
    service_tree,
    service_tree_m5,
)


def slack(spec):
    manager = manager_with(spec)
    nodes = manager.state(spec.name)["nodes"]
    return {name: node["slack"] for name, node in nodes.items()}


def test_example_tree_is_fully_tight():
    values = slack(example_tree())
    assert {n: values[n]["cpu"] for n in "ABCDGH"} == dict.fromkeys("ABCDGH", 0)
    assert values["L"] == {"cpu": 2}  # a leaf's slack is its quota


def test_context_tree_root_is_over_committed():
    values = slack(context_tree())
    assert {n: values[n]["cpu"] for n in ("Root", "Org-A", "Org-B", "Org-C")} == {
        "Root": -4, "Org-A": 2, "Org-B": 2, "Org-C": 0}


def test_service_tree_per_resource():
    assert slack(service_tree_m5())["Root"] == {"cpu": 4, "disk": 0}


def test_service_tree_of_m4_has_a_negative_inner_node():
    values = slack(service_tree())
    assert values["root"] == {"count": 2}
    assert values["Y"] == {"count": -1}
