"""Once allocations name their node (``nodeId``), YuniKorn's node reads follow them as
yunikorn-core computes them: a node's ``allocated`` is the sum of its live allocations,
``allocations`` those allocations in the ``AllocationDAOInfo`` shape the application reads give,
``available`` capacity minus allocated minus occupied, ``utilized`` allocated over capacity, and
the utilisation buckets follow allocated. While no live allocation names a node, ``occupied``
stands for use, as before."""

from __future__ import annotations

import pytest

from tests.api.allocation_support import ALLOCATIONS, GiB, body
from tests.api.test_yunikorn_reported_nodes_fill_the_node_reads import NODE_A, NODE_B, NODES

pytestmark = pytest.mark.django_db

NODE_LIST = "/ws/v1/partition/default/nodes"


@pytest.fixture
def placed(admin_api, capped_engines):
    assert admin_api.put(NODES, [NODE_A, NODE_B], format="json").status_code == 200
    for key, memory, node in (("k1", 2 * GiB, "node-a"), ("k2", GiB, "node-a"),
                              ("k3", GiB, "node-b"), ("k4", GiB, None)):
        data = body(key, memory=memory) | ({"nodeId": node} if node else {})
        response = admin_api.post(ALLOCATIONS, data, format="json")
        assert response.status_code == 201, response.json()
    return capped_engines


def test_each_node_shows_what_its_allocations_add_up_to(viewer_token, placed):
    node_a, node_b = viewer_token.get(NODE_LIST).json()

    assert node_a["allocated"] == {"memory": 3 * GiB}
    # Capacity minus allocated minus occupied, in the capacity's types.
    assert node_a["available"] == {"memory": (64 - 3 - 16) * GiB, "vcore": 16_000 - 8_000}
    # Allocated over capacity, in integer percent, for the allocated types only.
    assert node_a["utilized"] == {"memory": 4}
    assert node_b["allocated"] == {"memory": GiB}
    assert node_b["available"] == {"memory": 31 * GiB, "vcore": 8_000}
    assert node_b["utilized"] == {"memory": 3}
    assert list(node_a) == [
        "nodeID", "hostName", "rackName", "attributes", "capacity", "allocated", "occupied",
        "available", "utilized", "allocations", "schedulable", "isReserved",
    ]


def test_a_nodes_allocations_are_those_the_application_shows(viewer_token, placed):
    application = viewer_token.get("/ws/v1/partition/default/application/app-1").json()
    by_key = {a["allocationKey"]: a for a in application["allocations"]}
    node_a, node_b = viewer_token.get(NODE_LIST).json()

    assert node_a["allocations"] == [by_key["k1"], by_key["k2"]]
    assert node_b["allocations"] == [by_key["k3"]]
    assert by_key["k1"]["nodeId"] == "node-a"
    assert "nodeId" not in by_key["k4"]
    assert type(by_key["k1"]["allocationTime"]) is int
    # One node reads as its list entry.
    assert viewer_token.get("/ws/v1/partition/default/node/node-b").json() == node_b


def test_utilisation_follows_allocated(viewer_token, placed):
    [partition] = viewer_token.get("/ws/v1/scheduler/node-utilizations").json()
    by_type = {entry["type"]: entry["utilization"] for entry in partition["utilizations"]}

    # memory: node-a at 4%, node-b at 3%; vcore: nothing allocated (occupied no longer counts).
    assert by_type["memory"][0]["nodeNames"] == ["node-a", "node-b"]
    assert by_type["vcore"][0]["nodeNames"] == ["node-a", "node-b"]
    assert viewer_token.get("/ws/v1/scheduler/node-utilization").json()["type"] == "memory"


def test_with_no_allocation_naming_a_node_occupied_stands_for_use(
    admin_api, viewer_token, placed
):
    for key in ("k1", "k2", "k3"):
        assert admin_api.delete(f"{ALLOCATIONS}/{key}").status_code == 204

    node_a, node_b = viewer_token.get(NODE_LIST).json()

    assert not {"allocated", "allocations"} & set(node_a)
    assert node_a["available"] == {"memory": 48 * GiB, "vcore": 8_000}
    assert node_a["utilized"] == {"memory": 25, "vcore": 50}
    assert "utilized" not in node_b


def test_a_node_without_allocations_among_placed_ones_shows_none(
    admin_api, viewer_token, placed
):
    assert admin_api.delete(f"{ALLOCATIONS}/k3").status_code == 204

    node_b = viewer_token.get("/ws/v1/partition/default/node/node-b").json()

    assert not {"allocated", "allocations", "utilized"} & set(node_b)
    assert node_b["available"] == {"memory": 32 * GiB, "vcore": 8_000}
