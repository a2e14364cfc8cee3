"""Until a scheduler reports nodes, the node routes YuniKorn's web UI calls answer as a cluster
without nodes: lists are empty, the utilisation has no types, one node is YuniKorn's 404, an
unknown partition too."""

from __future__ import annotations

import pytest

from quotaweb.api.views.yunikorn import ERR_NODE_NOT_FOUND

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("url", "answer"), [
    ("/ws/v1/partition/default/nodes", []),
    ("/ws/v1/scheduler/node-utilizations", [{"clusterId": "quotaweb", "partition": "default"}]),
    # YuniKorn's deprecated one-resource form: an empty object without nodes.
    ("/ws/v1/scheduler/node-utilization", {}),
])
def test_node_lists_are_empty(viewer_token, capped_engines, url, answer):
    response = viewer_token.get(url)

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response.json() == answer


def test_one_node_is_not_found(viewer_token, capped_engines):
    response = viewer_token.get("/ws/v1/partition/default/node/node-1")

    assert response.status_code == 404
    assert response.json() == {
        "status_code": 404, "message": ERR_NODE_NOT_FOUND, "description": ERR_NODE_NOT_FOUND,
    }


@pytest.mark.parametrize("url", [
    "/ws/v1/partition/nowhere/nodes", "/ws/v1/partition/nowhere/node/node-1",
])
def test_an_unknown_partition_is_not_found(viewer_token, capped_engines, url):
    response = viewer_token.get(url)

    assert response.status_code == 404
    assert response.json()["message"] == "Partition not found"
