"""An allocation's ``priority`` (optional, YuniKorn's int32) is stored as the scheduler sent it
and shown as a string in YuniKorn's ``AllocationDAOInfo`` ("0" when none was sent), after a
restart too; anything but an integer in int32's range is a 400 naming ``priority`` (in a batch,
that operation alone), and a retry with another priority is another request."""

from __future__ import annotations

import pytest

from quotaweb.allocations.models import Allocation
from quotaweb.allocations.requests import ERR_PRIORITY, MAX_PRIORITY, MIN_PRIORITY
from quotaweb.core.services import engines_start
from tests.api.allocation_support import ALLOCATIONS, body

pytestmark = pytest.mark.django_db

APP = "/ws/v1/partition/default/application/app-1"
MESSAGE = ERR_PRIORITY.format(min=MIN_PRIORITY, max=MAX_PRIORITY)


def _priorities(client) -> dict[str, str]:
    app = client.get(APP).json()
    return {a["allocationKey"]: a["priority"] for a in app["allocations"]}


def test_priority_is_shown_as_sent_and_zero_without_one(admin_api, viewer_token, capped_engines):
    for key, priority in (("k1", 5), ("k2", MIN_PRIORITY), ("k3", MAX_PRIORITY)):
        response = admin_api.post(ALLOCATIONS, {**body(key), "priority": priority}, format="json")
        assert response.status_code == 201, response.json()
    admin_api.post(ALLOCATIONS, body("k4"), format="json")

    assert _priorities(viewer_token) == {
        "k1": "5", "k2": str(MIN_PRIORITY), "k3": str(MAX_PRIORITY), "k4": "0",
    }
    assert dict(Allocation.objects.values_list("key", "priority")) == {
        "k1": 5, "k2": MIN_PRIORITY, "k3": MAX_PRIORITY, "k4": 0,
    }


def test_priority_survives_a_restart(admin_api, viewer_token, capped_engines):
    admin_api.post(ALLOCATIONS, {**body("k1"), "priority": -7}, format="json")

    engines_start()

    assert _priorities(viewer_token) == {"k1": "-7"}


def test_a_batch_stores_priorities_too(admin_api, viewer_token, capped_engines):
    operations = [{"op": "allocate", **body("k1"), "priority": 3},
                  {"op": "allocate", **body("k2")}]
    response = admin_api.post(f"{ALLOCATIONS}/batch", {"operations": operations}, format="json")
    assert response.status_code == 200

    assert _priorities(viewer_token) == {"k1": "3", "k2": "0"}


@pytest.mark.parametrize("priority", [
    MAX_PRIORITY + 1, MIN_PRIORITY - 1, "5", 1.5, 2.0, True, None, [1],
])
def test_anything_but_an_int32_is_refused(admin_api, capped_engines, priority):
    response = admin_api.post(ALLOCATIONS, {**body("k1"), "priority": priority}, format="json")

    assert response.status_code == 400
    assert response.json()["details"] == [{"field": "priority", "message": MESSAGE}]
    assert not Allocation.objects.exists()


def test_a_bad_priority_in_a_batch_refuses_that_operation_only(admin_api, capped_engines):
    operations = [{"op": "allocate", **body("k1"), "priority": "high"},
                  {"op": "allocate", **body("k2"), "priority": 1}]
    response = admin_api.post(f"{ALLOCATIONS}/batch", {"operations": operations}, format="json")

    refused, made = response.json()["results"]
    assert refused["status"] == 400
    assert refused["details"] == [{"field": "operations[0].priority", "message": MESSAGE}]
    assert made["status"] == 201
    assert list(Allocation.objects.values_list("key", flat=True)) == ["k2"]


def test_a_retry_with_another_priority_is_another_request(admin_api, capped_engines):
    assert admin_api.post(ALLOCATIONS, {**body("k1"), "priority": 1},
                          format="json").status_code == 201

    again = admin_api.post(ALLOCATIONS, {**body("k1"), "priority": 1}, format="json")
    other = admin_api.post(ALLOCATIONS, {**body("k1"), "priority": 2}, format="json")

    assert again.status_code == 200
    assert other.status_code == 409
    assert other.json()["error"] == "allocation_key_conflict"
