"""The demo gives a fresh database something for every quota model: a cluster total per
partition (elastic quota stays off), the lab tree and a forest of two trees; a second start
keeps what an admin changed. The tree simulator adds and releases consumers on them, placed
where the trees say, and adopts what a previous run left; the demand simulator reports pending
work on leaf queues, in the types of their max."""

from __future__ import annotations

import pytest

from quotaweb.core.demand_simulator import DemandSimulator
from quotaweb.core.demo_seed import FOREST, FOREST_TREES, LAB_TREE, demo_seed
from quotaweb.core.services import engines_start
from quotaweb.core.tree_simulator import TREE_SIM_PREFIX, TreeSimulator
from quotaweb.elastic.models import ElasticDemand, ElasticSettings
from quotaweb.elastic.services import elastic_total_set
from quotaweb.engine.gateway import engines_get
from quotaweb.quotatrees import selectors
from quotaweb.quotatrees.models import Forest, Placement, Tree
from tests.configs import SAMPLE_CONFIG

pytestmark = pytest.mark.django_db

GIB = 2**30


@pytest.fixture
def started():
    return engines_start(config_path=SAMPLE_CONFIG)


def test_a_fresh_demo_has_a_total_a_tree_and_a_forest(started):
    lines: list[str] = []
    demo_seed(write=lines.append)
    totals = {row.partition: row for row in ElasticSettings.objects.all()}
    assert set(totals) == {"default", "gpu"}
    assert all(row.cluster_total and not row.enabled for row in totals.values())
    # default: the departments' guaranteed resources, so their mins just fit
    assert totals["default"].cluster_total["memory"] > 0
    assert set(Tree.objects.values_list("name", flat=True)) == {LAB_TREE, *FOREST_TREES}
    assert Forest.objects.get(name=FOREST).trees == list(FOREST_TREES)
    lab = {node["name"]: node for node in selectors.tree_view(tree=LAB_TREE)["nodes"]}
    assert lab["lab"]["quota"] == {"cpu": 32_000, "memory": 128 * GIB}
    assert lab["ops"]["hard"]
    # Two elastic totals and the trees, after a line per partition for its seeded history.
    assert [line.startswith("Made ") for line in lines] == [True, True, False, False, False]


def test_a_second_start_keeps_what_an_admin_changed(started):
    demo_seed()
    elastic_total_set(partition="default", total={"memory": 10 * GIB}, author=None)
    Tree.objects.filter(name="cluster-gpus").delete()
    demo_seed()
    assert ElasticSettings.objects.get(partition="default").cluster_total == {
        "memory": 10 * GIB}
    assert not Tree.objects.filter(name="cluster-gpus").exists()


def test_the_tree_simulator_adds_and_releases_consumers(started):
    demo_seed()
    simulator = TreeSimulator(rate=10.0, seed=7)
    for tick in range(60):
        simulator.step(tick * 0.1)
    assert simulator.added > 0
    assert simulator.released > 0
    placed = Placement.objects.filter(consumer__startswith=TREE_SIM_PREFIX)
    assert {row.tree for row in placed} <= {LAB_TREE, *FOREST_TREES}
    # a forest consumer is on both its trees or neither
    for row in placed.filter(forest=FOREST):
        assert placed.filter(consumer=row.consumer).count() == len(FOREST_TREES)
    # a new run adopts what this one left and releases it in turn
    again = TreeSimulator(rate=10.0, seed=8)
    again.adopt()
    assert {consumer for consumer, _, _ in again.live} == {row.consumer for row in placed}


def test_the_demand_simulator_reports_pending_work_on_leaf_queues(started):
    simulator = DemandSimulator(rate=10.0, seed=3)
    for tick in range(30):
        simulator.step(tick * 0.1)
    assert simulator.reports > 0
    rows = list(ElasticDemand.objects.all())
    assert rows, "some demand is left reported"
    for row in rows:
        with engines_get().engine(row.partition) as engine:
            queue = next(q for q in engine.config.root.walk() if q.path == row.queue_path)
        assert not queue.children
        assert set(row.resource) <= set(queue.max)
