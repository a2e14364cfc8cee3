"""The root queue's max, which a configuration never sets, is the size of the cluster: the elastic
cluster total when an admin set one, else the capacity of the nodes a scheduler reported; its
headroom and ``absUsedCapacity`` follow from it and the allocations made through the API. With
neither, the root has no max, as before. The partition's capacity is the nodes' when reported,
else the cluster total."""

from __future__ import annotations

import pytest

from tests.api.allocation_support import ALLOCATIONS, GiB, body

pytestmark = pytest.mark.django_db

TOTAL = "/api/v1/partitions/default/elastic/cluster-total"
NODES = "/api/v1/partitions/default/nodes"


@pytest.fixture
def used(admin_api, capped_engines):
    response = admin_api.post(ALLOCATIONS, body("k1", memory=4 * GiB), format="json")
    assert response.status_code == 201, response.json()
    return capped_engines


def _root(client) -> dict:
    return client.get("/ws/v1/partition/default/queues").json()


def test_without_a_cluster_size_the_root_has_no_max(viewer_token, used):
    root = _root(viewer_token)

    for field in ("maxResource", "headroom", "absUsedCapacity"):
        assert field not in root, field


def test_the_root_max_is_the_cluster_total(admin_api, viewer_token, used):
    response = admin_api.put(TOTAL, {"memory": 16 * GiB, "vcore": 8000}, format="json")
    assert response.status_code == 200, response.json()

    root = _root(viewer_token)

    assert root["maxResource"] == {"memory": 16 * GiB, "vcore": 8000}
    assert root["allocatedResource"] == {"memory": 4 * GiB}
    assert root["headroom"] == {"memory": 12 * GiB, "vcore": 8000}
    # Only the types with usage (YuniKorn's CalculateAbsUsedCapacity).
    assert root["absUsedCapacity"] == {"memory": 25}
    assert all(type(value) is int for value in root["absUsedCapacity"].values())
    # The one-queue read agrees with the tree.
    one = viewer_token.get("/ws/v1/partition/default/queue/root").json()
    assert one["maxResource"] == root["maxResource"]
    assert one["absUsedCapacity"] == root["absUsedCapacity"]
    # And the partition's capacity is that total while no node is reported.
    capacity = viewer_token.get("/ws/v1/partitions").json()[0]["capacity"]
    assert capacity == {"capacity": {"memory": 16 * GiB, "vcore": 8000},
                        "usedCapacity": {"memory": 4 * GiB}, "utilization": {"memory": 25}}


def test_without_a_total_the_nodes_size_the_root(admin_api, viewer_token, used):
    nodes = [{"nodeID": f"n{i}", "capacity": {"memory": 8 * GiB}} for i in range(4)]
    assert admin_api.put(NODES, nodes, format="json").status_code == 200

    root = _root(viewer_token)

    assert root["maxResource"] == {"memory": 32 * GiB}
    assert root["absUsedCapacity"] == {"memory": 12}


def test_the_total_wins_for_the_root_and_the_nodes_for_the_partition(
    admin_api, viewer_token, used
):
    admin_api.put(TOTAL, {"memory": 16 * GiB}, format="json")
    admin_api.put(NODES, [{"nodeID": "n1", "capacity": {"memory": 64 * GiB}}], format="json")

    assert _root(viewer_token)["maxResource"] == {"memory": 16 * GiB}
    capacity = viewer_token.get("/ws/v1/partitions").json()[0]["capacity"]
    assert capacity["capacity"] == {"memory": 64 * GiB}
    assert capacity["utilization"] == {"memory": 6}
