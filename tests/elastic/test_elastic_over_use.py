"""Queues above their runtime are listed with since when, by how much, and which allocations
revocation would pick (elastic-quota.md 1.10): reported, never executed."""

from __future__ import annotations

import time

import pytest

from quotaweb.allocations.models import Allocation
from tests.elastic.support import (
    ALLOCATIONS,
    DEMAND,
    ELASTIC,
    OVER_USE,
    TOTAL,
    allocation,
    gpus,
    row,
)

pytestmark = pytest.mark.django_db


def test_a_queue_squeezed_by_its_siblings_demand_is_listed_with_what_would_go(
    admin_api, active_elastic
):
    admin_api.put(TOTAL, gpus(100), format="json")
    # elastic quota is off: a takes its whole max, one allocation of 10 after the other
    for number in range(4):
        assert admin_api.post(ALLOCATIONS, allocation(f"a{number}", queue="root.a", count=10,
                                                      app=f"app-{number}"),
                              format="json").status_code == 201
        time.sleep(0.01)  # distinct start times: the newest is picked first
    assert admin_api.get(OVER_USE).json() == {"queues": []}
    for path, count in (("root.b", 60), ("root.c", 50), ("root.d", 80)):
        admin_api.put(DEMAND, {"queuePath": path, "resource": gpus(count)}, format="json")

    runtime = row(admin_api.get(ELASTIC).json(), "root.a")["runtime"]["gpu"]
    assert 10 <= runtime < 40
    listed = admin_api.get(OVER_USE).json()["queues"]
    assert [queue["queuePath"] for queue in listed] == ["root.a"]
    over = listed[0]
    assert over["over"] == {"gpu": 40 - runtime}
    assert over["since"]
    assert over["revokeAt"] > over["since"]
    # newest first, until what is left fits the runtime
    newest_first = ["a3", "a2", "a1", "a0"]
    needed = next(n for n in range(1, 5) if 40 - n * 10 <= runtime)
    assert [pick["allocationKey"] for pick in over["picks"]] == newest_first[:needed]
    # reported, not executed
    assert Allocation.objects.count() == 4
    assert row(admin_api.get(ELASTIC).json(), "root.a")["overUsed"] == over["over"]


def test_since_stays_while_the_queue_stays_over(admin_api, active_elastic):
    admin_api.put(TOTAL, gpus(20), format="json")
    admin_api.post(ALLOCATIONS, allocation("a0", queue="root.a", count=30), format="json")
    first = admin_api.get(OVER_USE).json()["queues"][0]["since"]
    admin_api.put(DEMAND, {"queuePath": "root.b", "resource": gpus(15)}, format="json")
    assert admin_api.get(OVER_USE).json()["queues"][0]["since"] == first
    admin_api.put(TOTAL, gpus(100), format="json")
    assert admin_api.get(OVER_USE).json() == {"queues": []}
