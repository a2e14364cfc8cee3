"""M5: the forest demo, ContextTree + ServiceTree, jobs 1-5 (job-5 rejected, nothing changed)."""

from __future__ import annotations

import pytest

from tests.trackers.quotatree.support import (
    compact,
    context_tree,
    manager_with,
    service_tree_m5,
)
from trackers.quotatree import ConsumerSpec, TreeRequest
from trackers.quotatree import messages as m

F = "demo"
CT, ST = "ContextTree", "ServiceTree"

JOBS = {
    "job-1": (0, "Context-4", 2, "Srvc-X", (2, 1)),
    "job-2": (0, "Context-2", 3, "Srvc-Y", (1, 1)),
    "job-3": (0, "Context-3", 4, "Srvc-Z", (4, 2)),
    "job-4": (1, "Context-2", 4, "Srvc-X", (3, 4)),
    "job-5": (1, "Context-4", 4, "Srvc-Z", (2, 8)),
}


def job(cid: str) -> ConsumerSpec:
    priority, context, cpu, service, (scpu, disk) = JOBS[cid]
    return ConsumerSpec(cid, {
        CT: TreeRequest(context, {"cpu": cpu}, priority),
        ST: TreeRequest(service, {"cpu": scpu, "disk": disk}, priority),
    })


def run(order):
    manager = manager_with(context_tree(), service_tree_m5())
    manager.add_forest(F, order)
    results = {cid: manager.allocate_forest(F, job(cid)) for cid in ("job-1", "job-2", "job-3")}
    results["job-4"] = manager.allocate_forest(F, job("job-4"))
    return manager, results


def test_jobs_1_to_3_land_where_the_demo_says():
    _manager, results = run([CT, ST])
    assert results["job-1"].nodes == {CT: "Context-4", ST: "Srvc-X"}
    assert results["job-2"].nodes == {CT: "Org-A", ST: "Srvc-Y"}
    assert results["job-3"].nodes == {CT: "Org-B", ST: "Srvc-Z"}


@pytest.mark.parametrize("order", [[CT, ST], [ST, CT]], ids=["context-first", "service-first"])
def test_job_4_preempts_jobs_1_and_2_from_both_trees_whatever_the_order(order):
    manager, results = run(order)
    four = results["job-4"]
    assert four.allocated
    assert four.nodes == {CT: "Org-A", ST: "Srvc-X"}
    assert sorted(four.preempted) == ["job-1", "job-2"]
    assert compact(manager.state(CT)) == {
        "Root": 8, "Org-A": (4, ["job-4"]), "Org-B": (4, ["job-3"])}
    assert compact(manager.state(ST)) == {
        "Root": [7, 6], "Srvc-X": ([3, 4], ["job-4"]), "Srvc-Z": ([4, 2], ["job-3"])}
    for gone in ("job-1", "job-2"):
        assert not manager.is_allocated(CT, gone)
        assert not manager.is_allocated(ST, gone)


@pytest.mark.parametrize("order", [[CT, ST], [ST, CT]], ids=["context-first", "service-first"])
def test_job_5_is_rejected_and_changes_nothing(order):
    manager, _results = run(order)
    before = (manager.state(CT), manager.state(ST), manager.placements(CT),
              manager.placements(ST))
    five = manager.allocate_forest(F, job("job-5"))
    assert not five.allocated
    assert five.message == m.REJECTED.format(tree=CT)
    assert five.changes == []
    assert (manager.state(CT), manager.state(ST), manager.placements(CT),
            manager.placements(ST)) == before


def test_the_preemption_feed_says_who_where_and_how():
    _manager, results = run([CT, ST])
    feed = {(p.consumer, p.tree, p.how) for p in results["job-4"].preemptions}
    assert ("job-2", CT, "root") in feed  # slid up to Root, then pushed out
    assert ("job-1", ST, "priority") in feed  # phase 2 at the hard Srvc-X
    assert ("job-2", ST, "forest") in feed  # removed from the other tree
    assert ("job-1", CT, "forest") in feed
    by_priority = next(p for p in results["job-4"].preemptions if p.how == "priority")
    assert (by_priority.node, by_priority.priority, by_priority.by,
            by_priority.by_priority) == ("Srvc-X", 0, "job-4", 1)
