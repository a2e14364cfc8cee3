"""Nodes a scheduler reports (``PUT /api/v1/partitions/{p}/nodes``) are what YuniKorn's web UI
reads of the cluster: the node list and one node (``NodeDAOInfo``), ``totalNodes`` and the
partition's capacity, used capacity and utilisation (``PartitionInfo``, with usage from
allocations made through the API), and the utilisation buckets of
``/ws/v1/scheduler/node-utilizations`` (``PartitionNodesUtilDAOInfo``), with yunikorn-core's
field names and JSON types. A second report replaces the first, and the nodes are stored."""

from __future__ import annotations

import pytest

from quotaweb.allocations.models import Node
from tests.api.allocation_support import ALLOCATIONS, GiB, body

pytestmark = pytest.mark.django_db

NODES = "/api/v1/partitions/default/nodes"
NODE_A = {
    "nodeID": "node-a", "hostName": "host-a", "rackName": "rack-1",
    "attributes": {"kubernetes.io/arch": "amd64"},
    "capacity": {"memory": 64 * GiB, "vcore": 16_000},
    "occupied": {"memory": 16 * GiB, "vcore": 8_000},
}
NODE_B = {"nodeID": "node-b", "capacity": {"memory": 32 * GiB, "vcore": 8_000}}


@pytest.fixture
def reported(admin_api, capped_engines):
    response = admin_api.put(NODES, [NODE_A, NODE_B], format="json")
    assert response.status_code == 200, response.json()
    assert response.json() == {"nodes": 2}
    for key in ("k1", "k2"):
        response = admin_api.post(ALLOCATIONS, body(key, memory=3 * GiB), format="json")
        assert response.status_code == 201, response.json()
    return capped_engines


def test_the_node_list_has_yunikorns_fields(viewer_token, reported):
    response = viewer_token.get("/ws/v1/partition/default/nodes")

    assert response.status_code == 200
    node_a, node_b = response.json()
    assert node_a == {
        "nodeID": "node-a", "hostName": "host-a", "rackName": "rack-1",
        "attributes": {"kubernetes.io/arch": "amd64"},
        "capacity": {"memory": 64 * GiB, "vcore": 16_000},
        "occupied": {"memory": 16 * GiB, "vcore": 8_000},
        "available": {"memory": 48 * GiB, "vcore": 8_000},
        "utilized": {"memory": 25, "vcore": 50},
        "schedulable": True, "isReserved": False,
    }
    # Empty names and maps are left out (omitempty); the flags never are.
    assert node_b == {
        "nodeID": "node-b", "capacity": {"memory": 32 * GiB, "vcore": 8_000},
        "available": {"memory": 32 * GiB, "vcore": 8_000},
        "schedulable": True, "isReserved": False,
    }
    for value in (*node_a["capacity"].values(), *node_a["utilized"].values()):
        assert type(value) is int
    assert type(node_a["schedulable"]) is bool


def test_one_node_answers_like_its_list_entry(viewer_token, reported):
    listed = viewer_token.get("/ws/v1/partition/default/nodes").json()[0]
    one = viewer_token.get("/ws/v1/partition/default/node/node-a")

    assert one.status_code == 200
    assert one.json() == listed


def test_the_partition_counts_its_nodes_and_their_capacity(viewer_token, reported):
    default = viewer_token.get("/ws/v1/partitions").json()[0]

    assert default["totalNodes"] == 2
    assert type(default["totalNodes"]) is int
    assert default["capacity"] == {
        "capacity": {"memory": 96 * GiB, "vcore": 24_000},
        # The two allocations made through the API.
        "usedCapacity": {"memory": 6 * GiB},
        "utilization": {"memory": 6},
    }


def test_utilisation_buckets_count_nodes_per_type(viewer_token, reported):
    response = viewer_token.get("/ws/v1/scheduler/node-utilizations")

    assert response.status_code == 200
    [partition] = response.json()
    assert partition["clusterId"] == "quotaweb"
    assert partition["partition"] == "default"
    by_type = {entry["type"]: entry["utilization"] for entry in partition["utilizations"]}
    assert sorted(by_type) == ["memory", "vcore"]
    for buckets in by_type.values():
        assert [bucket["bucketName"] for bucket in buckets] == [
            f"{low}-{low + 10}%" for low in range(0, 100, 10)
        ]
    # memory: node-b idle (first bucket), node-a at 25% (20-30%); vcore: node-a at 50% (40-50%).
    assert by_type["memory"][0] == {"bucketName": "0-10%", "numOfNodes": 1,
                                    "nodeNames": ["node-b"]}
    assert by_type["memory"][2] == {"bucketName": "20-30%", "numOfNodes": 1,
                                    "nodeNames": ["node-a"]}
    assert by_type["vcore"][4]["nodeNames"] == ["node-a"]
    # An empty bucket has only its name (numOfNodes and nodeNames are omitempty).
    assert by_type["memory"][5] == {"bucketName": "50-60%"}


def test_a_new_report_replaces_the_set_and_is_stored(admin_api, viewer_token, reported):
    response = admin_api.put(NODES, [NODE_B], format="json")

    assert response.json() == {"nodes": 1}
    assert list(Node.objects.values_list("node_id", flat=True)) == ["node-b"]
    assert viewer_token.get("/ws/v1/partitions").json()[0]["totalNodes"] == 1
    assert viewer_token.get("/ws/v1/partition/default/node/node-a").status_code == 404

    admin_api.put(NODES, [], format="json")
    default = viewer_token.get("/ws/v1/partitions").json()[0]
    assert default["totalNodes"] == 0
    assert "capacity" not in default["capacity"]


def test_the_single_type_form_shows_the_type_used_most(viewer_token, reported):
    # vcore: 8,000 of 24,000 occupied (a third); memory: 16 GiB of 96 (a sixth).
    response = viewer_token.get("/ws/v1/scheduler/node-utilization")

    assert response.status_code == 200
    answer = response.json()
    assert answer["type"] == "vcore"
    assert answer["utilization"][4] == {"bucketName": "40-50%", "numOfNodes": 1,
                                        "nodeNames": ["node-a"]}


def test_reported_nodes_survive_a_restart(viewer_token, reported):
    from quotaweb.core.services import engines_start

    before = viewer_token.get("/ws/v1/partition/default/nodes").json()

    engines_start()

    assert viewer_token.get("/ws/v1/partition/default/nodes").json() == before
    assert viewer_token.get("/ws/v1/partitions").json()[0]["totalNodes"] == 2
