"""With elastic quota on, the allocation API also enforces ``used + request <= runtime`` of the
leaf queue (reason ``elasticQuota``), in the same atomic step as the other checks; off, it does
not. Admission judges live usage against the runtime last computed."""

from __future__ import annotations

import pytest

from quotaweb.allocations.models import Allocation
from tests.elastic.support import (
    ALLOCATIONS,
    DEMAND,
    ELASTIC,
    SETTINGS,
    allocation,
    gpus,
    k1,
    row,
)
from trackers.resources import format_resource

pytestmark = pytest.mark.django_db


@pytest.fixture
def k1_on(admin_api, active_elastic):
    k1(admin_api)
    assert admin_api.put(SETTINGS, {"enabled": True}, format="json").status_code == 200
    return admin_api


def test_a_request_above_the_runtime_is_denied_and_nothing_is_stored(k1_on):
    # a's runtime is 5 GPUs (K1): 6 does not fit
    answer = k1_on.post(ALLOCATIONS, allocation("k1", queue="root.a", count=6), format="json")
    assert answer.status_code == 409
    denied = answer.json()
    assert denied["allowed"] is False
    assert denied["reason"] == "elasticQuota"
    message = denied["message"]
    assert "root.a" in message
    assert f"runtime {format_resource(gpus(5))}" in message
    assert f"request for {format_resource(gpus(6))}" in message
    assert message.endswith("in gpu")
    assert denied["headroom"] == gpus(5)
    assert not Allocation.objects.exists()
    assert row(k1_on.get(ELASTIC).json(), "root.a")["used"] == gpus(0)


def test_a_request_within_the_runtime_is_admitted(k1_on):
    answer = k1_on.post(ALLOCATIONS, allocation("k1", queue="root.d", count=40), format="json")
    assert answer.status_code == 201
    assert Allocation.objects.filter(key="k1").exists()
    # d now uses its whole runtime: one byte more is refused
    more = k1_on.post(ALLOCATIONS, {**allocation("k2", queue="root.d", count=0, app="app-2"),
                                    "resource": {"gpu": 1}}, format="json")
    assert more.json()["reason"] == "elasticQuota"


def test_the_runtime_follows_demand_reported_after_admission(k1_on):
    assert k1_on.post(ALLOCATIONS, allocation("k1", queue="root.a", count=5),
                      format="json").status_code == 201
    # a asks for 5 more: its request (used 5 + demand 10) is above its min, and it borrows
    k1_on.put(DEMAND, {"queuePath": "root.a", "resource": gpus(10)}, format="json")
    view = k1_on.get(ELASTIC).json()
    assert row(view, "root.a")["request"] == gpus(15)
    assert row(view, "root.a")["runtime"]["gpu"] > 5
    answer = k1_on.post(ALLOCATIONS, allocation("k2", queue="root.a", count=5, app="app-2"),
                        format="json")
    assert answer.status_code == 201, answer.json()


def test_off_the_runtime_is_not_enforced(admin_api, active_elastic):
    k1(admin_api)
    answer = admin_api.post(ALLOCATIONS, allocation("k1", queue="root.a", count=6), format="json")
    assert answer.status_code == 201
    admin_api.put(SETTINGS, {"enabled": True}, format="json")
    denied = admin_api.post(ALLOCATIONS, allocation("k2", queue="root.a", count=30, app="app-2"),
                            format="json")
    assert denied.json()["reason"] == "elasticQuota"
    admin_api.put(SETTINGS, {"enabled": False}, format="json")
    again = admin_api.post(ALLOCATIONS, allocation("k2", queue="root.a", count=30, app="app-2"),
                           format="json")
    assert again.status_code == 201


def test_headroom_says_what_the_runtime_leaves(k1_on):
    answer = k1_on.get("/api/v1/partitions/default/headroom", {
        "queuePath": "root.c", "user": "alice", "applicationId": "app-1",
    })
    assert answer.json()["headroom"] == gpus(35)


def test_batch_operations_are_judged_by_the_same_rule(k1_on):
    answer = k1_on.post(f"{ALLOCATIONS}/batch", {"operations": [
        {"op": "allocate", **allocation("k1", queue="root.b", count=15)},
        {"op": "allocate", **allocation("k2", queue="root.b", count=10, app="app-2")},
    ]}, format="json")
    first, second = answer.json()["results"]
    assert first["status"] == 201
    assert second["status"] == 409
    assert second["reason"] == "elasticQuota"
    assert list(Allocation.objects.values_list("key", flat=True)) == ["k1"]
