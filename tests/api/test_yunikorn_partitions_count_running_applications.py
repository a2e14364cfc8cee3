"""``/ws/v1/partitions`` carries YuniKorn's ``PartitionInfo``: ``clusterId``, ``name``,
``capacity`` (empty without nodes or a cluster total, as YuniKorn shows a cluster without
nodes), ``totalNodes`` (0 until a scheduler reports nodes), ``nodeSortingPolicy`` (as
configured, YuniKorn's defaults otherwise), ``applications`` (running applications, those with
live allocations, and completed ones, by state and in ``total``), ``totalContainers`` (live
allocations, left out at 0), ``state`` and when the partition became active; and
``/ws/v1/clusters`` its ``ClusterDAOInfo``."""

from __future__ import annotations

import pytest

from tests.api.allocation_support import ALLOCATIONS, GiB, body
from tests.api.yunikorn_support import HIERARCHY_YAML
from tests.configs import store_and_load

pytestmark = pytest.mark.django_db


def _partitions(client) -> dict[str, dict]:
    response = client.get("/ws/v1/partitions")
    assert response.status_code == 200
    return {partition["name"]: partition for partition in response.json()}


def test_running_applications_and_live_allocations_are_counted(
    admin_api, viewer_token, capped_engines
):
    for key, app in (("k1", "app-1"), ("k2", "app-1"), ("k3", "app-2")):
        response = admin_api.post(ALLOCATIONS, body(key, app=app, memory=GiB), format="json")
        assert response.status_code == 201, response.json()

    default = _partitions(viewer_token)["default"]

    assert default["applications"] == {"Running": 2, "total": 2}
    assert default["totalContainers"] == 3
    assert default["state"] == "Active"
    assert default["clusterId"] == "quotaweb"


def test_a_released_application_counts_as_completed(admin_api, viewer_token, capped_engines):
    admin_api.post(ALLOCATIONS, body("k1", app="app-1"), format="json")
    admin_api.post(ALLOCATIONS, body("k2", app="app-2"), format="json")
    admin_api.delete("/api/v1/partitions/default/applications/app-1")

    default = _partitions(viewer_token)["default"]

    # As YuniKorn counts them: completed applications are in the total too.
    assert default["applications"] == {"Running": 1, "Completed": 1, "total": 2}
    assert default["totalContainers"] == 1


def test_an_empty_partition_keeps_its_total(viewer_token, capped_engines):
    default = _partitions(viewer_token)["default"]

    # The total stays at 0; totalContainers (omitempty) is left out.
    assert default["applications"] == {"total": 0}
    assert "totalContainers" not in default


def test_capacity_is_empty_without_nodes(viewer_token, capped_engines):
    default = _partitions(viewer_token)["default"]

    assert default["capacity"] == {}
    assert default["totalNodes"] == 0


def test_the_partition_is_active_since_its_engine_started(viewer_token, capped_engines):
    default = _partitions(viewer_token)["default"]

    assert default["lastStateTransitionTime"] == capped_engines.active_since_ns("default")
    assert type(default["lastStateTransitionTime"]) is int


def test_node_sorting_policy_defaults_as_yunikorn_reports_it(viewer_token, capped_engines):
    assert _partitions(viewer_token)["default"]["nodeSortingPolicy"] == {
        "type": "fair", "resourceWeights": {"memory": 1.0, "vcore": 1.0},
    }


def test_node_sorting_policy_as_configured(viewer_token, db):
    store_and_load(HIERARCHY_YAML)

    partitions = _partitions(viewer_token)

    assert partitions["default"]["nodeSortingPolicy"] == {
        "type": "binpacking", "resourceWeights": {"memory": 1.5, "vcore": 4.0},
    }
    assert partitions["gpu"]["nodeSortingPolicy"]["type"] == "fair"


def test_types_are_yunikorns(viewer_token, capped_engines):
    default = _partitions(viewer_token)["default"]

    assert type(default["clusterId"]) is str
    assert type(default["applications"]["total"]) is int
    assert all(type(w) is float for w in default["nodeSortingPolicy"]["resourceWeights"].values())


def test_clusters_name_each_partition_and_when_the_engines_started(viewer_token, capped_engines):
    response = viewer_token.get("/ws/v1/clusters")

    assert response.status_code == 200
    [cluster] = response.json()
    assert {key: value for key, value in cluster.items() if key != "rmBuildInformation"} == {
        "startTime": capped_engines.started_ns, "partition": "default", "clusterName": "quotaweb",
    }
    assert type(capped_engines.started_ns) is int
