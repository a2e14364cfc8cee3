"""``/metrics`` exports per tree and node: quota, allocated, consumers placed there, and the
allocations and preemptions counted per tree."""

from __future__ import annotations

import pytest

from quotaweb import metrics
from tests.exposition import scrape
from tests.quotatrees.support import TREES, body, example_document, tree_document

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _from_zero():
    metrics.reset()


def test_nodes_allocations_and_preemptions_are_exported(admin_api, active_sample, client):
    admin_api.put(f"{TREES}/example", example_document(), format="json")
    for cid, group, cpu, priority in (("i", "I", 1, 0), ("b", "E", 1, 0), ("j", "J", 1, 0),
                                      ("big", "D", 9, 0), ("x", "I", 3, 1)):
        admin_api.post(f"{TREES}/example/allocations",
                       {**body(cid, group, cpu, priority)}, format="json")
    exposition = scrape(client)

    def value(node, resource, field):
        return exposition.value("quotaweb_tree_node", tree="example", node=node,
                                resource=resource, field=field)

    assert value("A", "cpu", "quota") == 10
    assert value("I", "", "consumers") == 1
    assert exposition.type_of("quotaweb_tree_node") == "gauge"
    assert (value("A", "cpu", "allocated") or 0) > 0
    assert (exposition.value("quotaweb_tree_allocations_total", tree="example",
                             outcome="allocated") or 0) > 0


def test_preemptions_are_counted_per_tree(admin_api, active_sample, client):
    # spec M2: treeA A3 -> {B1, C1}; C2 borrows at A, then a priority-1 consumer preempts it
    admin_api.put(f"{TREES}/treeA", tree_document(
        "treeA", ["count"], [("A", None, 3), ("B", "A", 1), ("C", "A", 1)]), format="json")
    for cid, group, amount, priority in (("C1", "B", 1, 0), ("C2", "B", 1, 0), ("C", "B", 2, 1)):
        answer = admin_api.post(f"{TREES}/treeA/allocations", {
            "id": cid, "groupID": group, "request": {"count": amount}, "priority": priority,
        }, format="json")
    assert answer.json()["preempted"] == ["C2"]
    exposition = scrape(client)
    assert exposition.value("quotaweb_tree_preemptions_total", tree="treeA", node="A") == 1
    assert exposition.type_of("quotaweb_tree_preemptions") == "counter"
