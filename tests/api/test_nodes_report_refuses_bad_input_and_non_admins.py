"""``PUT /api/v1/partitions/{p}/nodes`` refuses a bad body with one ``{field, message}`` per
problem, naming where it was, and changes nothing; only quota admins may report nodes (a viewer
is 403, a caller without a login 401); an unknown partition is 404."""

from __future__ import annotations

import pytest

from quotaweb.allocations import nodes
from quotaweb.allocations.models import Node
from quotaweb.allocations.requests import ERR_REQUIRED, MAX_QUANTITY
from tests.api.allocation_support import GiB

pytestmark = pytest.mark.django_db

NODES = "/api/v1/partitions/default/nodes"
GOOD = {"nodeID": "node-a", "capacity": {"memory": 8 * GiB}}


@pytest.fixture
def stored(admin_api, capped_engines):
    assert admin_api.put(NODES, [GOOD], format="json").status_code == 200
    return capped_engines


def _refused(client, data) -> list[dict]:
    response = client.put(NODES, data, format="json")
    assert response.status_code == 400, response.json()
    assert response.json()["error"] == "bad_request"
    # Nothing changed: the node stored before is still the only one.
    assert list(Node.objects.values_list("node_id", flat=True)) == ["node-a"]
    return response.json()["details"]


@pytest.mark.parametrize("data", [{"nodes": []}, "node-a", [GOOD] * (nodes.MAX_NODES + 1)])
def test_a_body_that_is_no_list_of_nodes(admin_api, stored, data):
    assert _refused(admin_api, data) == [
        {"field": "body", "message": nodes.ERR_NODES.format(limit=nodes.MAX_NODES)},
    ]


def test_every_bad_field_is_named(admin_api, stored):
    details = _refused(admin_api, [
        GOOD,
        {"hostName": 7, "capacity": {"memory": -1}, "occupied": {"memory": "1Gi"},
         "attributes": {"zone": 3}, "cpus": 4},
    ])

    fields = {detail["field"]: detail["message"] for detail in details}
    assert fields["nodes[1].nodeID"] == ERR_REQUIRED
    assert fields["nodes[1].hostName"] == nodes.ERR_NAME.format(limit=nodes.MAX_TEXT)
    assert fields["nodes[1].attributes"].startswith("must be an object of at most 100")
    assert fields["nodes[1].capacity"] == fields["nodes[1].occupied"]
    assert str(MAX_QUANTITY) in fields["nodes[1].capacity"]
    assert "is not a field of this request" in fields["nodes[1].cpus"]
    assert not any(field.startswith("nodes[0]") for field in fields)


def test_capacity_is_required_and_a_node_not_an_object(admin_api, stored):
    details = _refused(admin_api, [{"nodeID": "node-b"}, "node-c"])

    assert details == [
        {"field": "nodes[0].capacity", "message": ERR_REQUIRED},
        {"field": "nodes[1]", "message": nodes.ERR_NOT_A_NODE},
    ]


def test_a_node_given_twice(admin_api, stored):
    details = _refused(admin_api, [GOOD, {"nodeID": "node-b", "capacity": {}}, GOOD])

    assert details == [{"field": "nodes[2].nodeID",
                        "message": nodes.ERR_DUPLICATE.format(node="node-a")}]


def test_a_viewer_may_not_report_nodes(viewer_api, stored):
    response = viewer_api.put(NODES, [], format="json")

    assert response.status_code == 403
    assert Node.objects.count() == 1


def test_a_caller_without_login_may_not_report_nodes(client, stored):
    response = client.put(NODES, "[]", content_type="application/json")

    assert response.status_code == 401
    assert Node.objects.count() == 1


def test_an_unknown_partition(admin_api, stored):
    response = admin_api.put("/api/v1/partitions/nowhere/nodes", [GOOD], format="json")

    assert response.status_code == 404
    assert Node.objects.filter(partition="nowhere").count() == 0
