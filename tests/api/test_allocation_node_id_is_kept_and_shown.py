"""An allocation's ``nodeId`` (optional: the node the scheduler placed it on) is checked like the
other names, stored in the ledger and shown as YuniKorn's ``AllocationDAOInfo.nodeId`` (left out
when none was sent), after a restart too, on every path that takes an allocation (single, batch,
and the lean path, which parses with the same check); a bad one is a 400 naming ``nodeId`` that
changes nothing, and a retry naming another node is another request (409)."""

from __future__ import annotations

import pytest

from quotaweb.allocations.models import Allocation
from quotaweb.allocations.requests import ERR_TEXT, MAX_TEXT
from quotaweb.core.services import engines_start
from tests.api.allocation_support import ALLOCATIONS, body

pytestmark = pytest.mark.django_db

APP = "/ws/v1/partition/default/application/app-1"
MESSAGE = ERR_TEXT.format(limit=MAX_TEXT)


def _nodes(client) -> dict[str, str | None]:
    app = client.get(APP).json()
    return {a["allocationKey"]: a.get("nodeId") for a in app["allocations"]}


def test_node_id_is_shown_as_sent_and_left_out_without_one(
    admin_api, viewer_token, capped_engines
):
    for key, node in (("k1", "node-a"), ("k2", "n" * MAX_TEXT), ("k3", "nœud-é")):
        response = admin_api.post(ALLOCATIONS, {**body(key), "nodeId": node}, format="json")
        assert response.status_code == 201, response.json()
    admin_api.post(ALLOCATIONS, body("k4"), format="json")

    assert _nodes(viewer_token) == {
        "k1": "node-a", "k2": "n" * MAX_TEXT, "k3": "nœud-é", "k4": None,
    }
    assert dict(Allocation.objects.values_list("key", "node_id")) == {
        "k1": "node-a", "k2": "n" * MAX_TEXT, "k3": "nœud-é", "k4": "",
    }


def test_node_id_survives_a_restart(admin_api, viewer_token, capped_engines):
    admin_api.post(ALLOCATIONS, {**body("k1"), "nodeId": "node-a"}, format="json")
    admin_api.post(ALLOCATIONS, body("k2"), format="json")

    engines_start()

    assert _nodes(viewer_token) == {"k1": "node-a", "k2": None}
    # The restored allocation still knows its node: a retry naming it is the same request.
    again = admin_api.post(ALLOCATIONS, {**body("k1"), "nodeId": "node-a"}, format="json")
    assert again.status_code == 200


def test_a_batch_stores_node_ids_too(admin_api, viewer_token, capped_engines):
    operations = [{"op": "allocate", **body("k1"), "nodeId": "node-b"},
                  {"op": "allocate", **body("k2")}]
    response = admin_api.post(f"{ALLOCATIONS}/batch", {"operations": operations}, format="json")
    assert response.status_code == 200

    assert _nodes(viewer_token) == {"k1": "node-b", "k2": None}


@pytest.mark.parametrize("node", [
    "", "n" * (MAX_TEXT + 1), "node\x00a", 7, True, None, ["node-a"], {"id": "node-a"},
])
def test_anything_but_a_name_is_refused(admin_api, capped_engines, node):
    response = admin_api.post(ALLOCATIONS, {**body("k1"), "nodeId": node}, format="json")

    assert response.status_code == 400
    assert response.json()["details"] == [{"field": "nodeId", "message": MESSAGE}]
    assert not Allocation.objects.exists()


def test_a_lone_surrogate_is_refused_on_the_raw_body(admin_api, capped_engines):
    # JSON's escape reads as a lone surrogate no database can store.
    raw = (b'{"allocationKey": "k1", "applicationId": "app-1", "queuePath": "root.eng", '
           b'"user": "alice", "resource": {"memory": 1}, "nodeId": "n\\ud800"}')
    response = admin_api.generic("POST", ALLOCATIONS, raw, content_type="application/json")

    assert response.status_code == 400
    assert response.json()["details"] == [{"field": "nodeId", "message": MESSAGE}]
    assert not Allocation.objects.exists()


def test_a_bad_node_id_in_a_batch_refuses_that_operation_only(admin_api, capped_engines):
    operations = [{"op": "allocate", **body("k1"), "nodeId": ""},
                  {"op": "allocate", **body("k2"), "nodeId": "node-a"}]
    response = admin_api.post(f"{ALLOCATIONS}/batch", {"operations": operations}, format="json")

    refused, made = response.json()["results"]
    assert refused["status"] == 400
    assert refused["details"] == [{"field": "operations[0].nodeId", "message": MESSAGE}]
    assert made["status"] == 201
    assert list(Allocation.objects.values_list("key", flat=True)) == ["k2"]


def test_a_retry_naming_another_node_is_another_request(admin_api, capped_engines):
    assert admin_api.post(ALLOCATIONS, {**body("k1"), "nodeId": "node-a"},
                          format="json").status_code == 201

    again = admin_api.post(ALLOCATIONS, {**body("k1"), "nodeId": "node-a"}, format="json")
    other = admin_api.post(ALLOCATIONS, {**body("k1"), "nodeId": "node-b"}, format="json")
    without = admin_api.post(ALLOCATIONS, body("k1"), format="json")

    assert again.status_code == 200
    assert other.status_code == 409
    assert other.json()["error"] == "allocation_key_conflict"
    assert without.status_code == 409
    assert list(Allocation.objects.values_list("node_id", flat=True)) == ["node-a"]


@pytest.mark.django_db(transaction=True)
def test_the_lean_path_stores_and_checks_it_as_the_views_do(admin, capped_engines):
    import asyncio

    from quotaweb.api.lean import LeanAllocations
    from quotaweb.asgi import django_asgi_app
    from tests.api.allocation_support import asgi_exchange, token_of
    from tests.api.test_lean_path_answers_like_the_views import Recording

    behind = Recording()
    lean = LeanAllocations(behind, executor=django_asgi_app.pool)
    token = token_of(admin)

    def post(data: dict) -> int:
        return asyncio.run(asgi_exchange(lean, "POST", ALLOCATIONS, token=token, data=data,
                                         query=b"", content_type=b"application/json"))[0]

    assert post({**body("k1"), "nodeId": "node-a"}) == 201
    # A bad one is an error of the contract: handed to the views, which answer the 400.
    assert post({**body("k2"), "nodeId": 5}) == 418
    assert behind.paths == [ALLOCATIONS]
    assert list(Allocation.objects.values_list("key", "node_id")) == [("k1", "node-a")]
