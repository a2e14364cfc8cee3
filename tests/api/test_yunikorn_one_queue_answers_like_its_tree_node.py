"""``/ws/v1/partition/{p}/queue/{q}``: one queue as its node of the tree, without its children
unless ``subtree`` is given (YuniKorn's rule); YuniKorn's 400 and 404 texts otherwise."""

from __future__ import annotations

import pytest

from quotaweb.api.views.yunikorn import ERR_QUEUE_NOT_FOUND
from tests.api.allocation_support import ALLOCATIONS, GiB, body
from tests.api.yunikorn_support import HIERARCHY_YAML, WS, nodes_by_path
from tests.configs import store_and_load

pytestmark = pytest.mark.django_db

QUEUE = f"{WS}/partition/default/queue"


@pytest.fixture
def busy(admin_api):
    gateway = store_and_load(HIERARCHY_YAML)
    response = admin_api.post(
        ALLOCATIONS, body("k1", queue="root.org.team.leaf", memory=6 * GiB), format="json"
    )
    assert response.status_code == 201, response.json()
    return gateway


def _tree_nodes(client) -> dict[str, dict]:
    return nodes_by_path(client.get(f"{WS}/partition/default/queues").json())


def test_a_queue_is_its_tree_node_without_children(viewer_token, busy):
    response = viewer_token.get(f"{QUEUE}/root.org")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    node = response.json()
    expected = dict(_tree_nodes(viewer_token)["root.org"])
    del expected["children"]
    assert node == expected
    # The names stay, so a client can walk down one queue at a time.
    assert node["childNames"] == ["root.org.open", "root.org.team"]


def test_subtree_brings_the_children_along(viewer_token, busy):
    node = viewer_token.get(f"{QUEUE}/root.org?subtree=true").json()

    assert node == _tree_nodes(viewer_token)["root.org"]


def test_a_leaf_has_nothing_below_even_with_subtree(viewer_token, busy):
    leaf = viewer_token.get(f"{QUEUE}/root.org.team.leaf?subtree").json()

    assert leaf["isLeaf"] is True
    assert "children" not in leaf
    assert "childNames" not in leaf
    assert leaf["headroom"] == {"memory": 4 * GiB, "vcore": 10_000}


def test_the_path_is_case_insensitive(viewer_token, busy):
    assert viewer_token.get(f"{QUEUE}/ROOT.Org.team").json()["queuename"] == "root.org.team"


def test_a_dynamic_queue_is_found_while_it_has_usage(admin_api, viewer_token, busy):
    admin_api.post(ALLOCATIONS, body("k2", queue="root.org.team.dyn"), format="json")

    node = viewer_token.get(f"{QUEUE}/root.org.team.dyn").json()

    assert node["isManaged"] is False
    assert node["allocatedResource"] == {"memory": GiB}


def _error(response, status: int, message: str | None = None) -> None:
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"status_code", "message", "description"}
    assert body["status_code"] == status
    if message is not None:
        assert body["message"] == message


@pytest.mark.parametrize("path", ["root.nowhere", "root.org.team.leaf.below", "nothing"])
def test_an_unknown_queue_is_yunikorns_404(viewer_token, busy, path):
    _error(viewer_token.get(f"{QUEUE}/{path}"), 404, ERR_QUEUE_NOT_FOUND)


@pytest.mark.parametrize("path", ["root.a%20b", "root..org", "root.org%2B", "root.%Zt"])
def test_a_path_that_is_no_queue_path_is_a_400(viewer_token, busy, path):
    _error(viewer_token.get(f"{QUEUE}/{path}"), 400)


def test_an_unknown_partition_is_yunikorns_404(viewer_token, busy):
    _error(viewer_token.get(f"{WS}/partition/nowhere/queue/root"), 404, "Partition not found")
