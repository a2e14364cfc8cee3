"""Eight clients allocating and releasing at once: afterwards the engine and the ledger agree,
user by user and queue by queue, and no cap was ever exceeded."""

from __future__ import annotations

import random
import threading
from collections import defaultdict

import pytest
from django.db import connection

from quotaweb.allocations.models import Allocation
from tests.api.allocation_support import ALLOCATIONS, GiB, body, used

pytestmark = pytest.mark.django_db(transaction=True)

USERS = ["alice", "bob", "carol", "dave", "erin", "frank"]
CLIENTS = 8
OPERATIONS = 120


def _client_run(admin, number: int, failures: list) -> None:
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(admin)
    rng = random.Random(number)
    mine: list[str] = []
    try:
        for step in range(OPERATIONS):
            if mine and rng.random() < 0.4:
                key = mine.pop(rng.randrange(len(mine)))
                response = client.delete(f"{ALLOCATIONS}/{key}")
                if response.status_code != 204:
                    failures.append(("release", key, response.status_code))
                continue
            key = f"c{number}-{step}"
            user = rng.choice(USERS)
            payload = body(key, user=user, app=f"{user}-app{rng.randrange(3)}",
                           memory=rng.randrange(1, 4) * GiB)
            response = client.post(ALLOCATIONS, payload, format="json")
            if response.status_code == 201:
                mine.append(key)
            elif response.status_code != 409:
                failures.append(("allocate", key, response.status_code))
    finally:
        connection.close()


def test_engine_and_ledger_agree_after_concurrent_clients(admin, capped_engines):
    failures: list = []
    threads = [
        threading.Thread(target=_client_run, args=(admin, number, failures))
        for number in range(CLIENTS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []

    stored: dict[str, int] = defaultdict(int)
    group_ml = 0
    for row in Allocation.objects.all():
        stored[row.user] += row.resource["memory"]
        group_ml += row.resource["memory"] if row.group == "ml" else 0
    assert Allocation.objects.count() == capped_engines.live_count("default")
    for user in USERS:
        assert used(user).get("memory", 0) == stored[user]
    # The caps of the config: alice 10Gi, the ml group 16Gi, root.eng 100Gi.
    assert stored["alice"] <= 10 * GiB
    assert group_ml <= 16 * GiB
    assert sum(stored.values()) <= 100 * GiB
    queue = capped_engines.queues_usage("default")
    eng = next(c for c in queue.get("children", []) if c["queuename"] == "root.eng")
    assert eng.get("allocatedResource", {}).get("memory", 0) == sum(stored.values())
