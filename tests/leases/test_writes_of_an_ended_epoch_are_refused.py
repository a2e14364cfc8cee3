"""The fence: once another peer has taken a partition's lease, the old owner's writes of that
partition are refused by PostgreSQL (SQLSTATE QWF01), whatever the old owner still believes:
nothing is stored or deleted, the engine change is undone, the caller gets 503 with Retry-After,
and at its next round the old owner drops the partition and names the new one."""

from __future__ import annotations

import asyncio

import pytest

from tests.api.allocation_support import ALLOCATIONS, GiB, body, used
from tests.leases.support import lease_rows, ledger_rows, postgres_only

pytestmark = [postgres_only, pytest.mark.django_db(transaction=True)]

BATCH = "/api/v1/partitions/default/allocations/batch"


def _take_over(taker, unit: str = "default") -> int:
    survey = taker.survey([unit])
    epoch = taker.take(unit, epoch=lease_rows()[unit][1])
    assert epoch is not None, survey
    return epoch


def test_an_owner_writes_at_its_epoch(owner, admin_api):
    assert lease_rows()["default"] == ("p1", 1)
    assert admin_api.post(ALLOCATIONS, body("k1"), format="json").status_code == 201
    assert ledger_rows() == {"k1": 1}


def test_an_allocation_after_a_takeover_is_refused_and_undone(owner, taker, admin_api):
    from quotaweb.engine.owners import ERR_FENCED

    admin_api.post(ALLOCATIONS, body("k1"), format="json")
    _take_over(taker)

    response = admin_api.post(ALLOCATIONS, body("k2"), format="json")
    assert response.status_code == 503
    assert response["Retry-After"]
    assert response.json()["error"] == "not_owner"
    assert response.json()["message"] == ERR_FENCED
    assert ledger_rows() == {"k1": 1}
    assert used("alice") == {"memory": GiB}


def test_a_release_and_a_batch_after_a_takeover_change_nothing(owner, taker, admin_api):
    admin_api.post(ALLOCATIONS, body("k1"), format="json")
    _take_over(taker)

    released = admin_api.delete(f"{ALLOCATIONS}/k1")
    assert released.status_code == 503
    batch = admin_api.post(BATCH, {"operations": [
        {"op": "allocate", **body("k3")}, {"op": "allocate", **body("k4", app="app-2")},
    ]}, format="json")
    assert batch.status_code == 503
    assert ledger_rows() == {"k1": 1}
    assert used("alice") == {"memory": GiB}


def test_the_old_owner_drops_the_partition_at_its_next_round(owner, taker, admin_api):
    from quotaweb.engine.gateway import engines_get

    _take_over(taker)
    owner.round()

    assert "default" not in engines_get().partitions()
    response = admin_api.post(ALLOCATIONS, body("k2"), format="json")
    assert response.status_code == 503
    assert (response.json()["owner"], response.json()["address"]) == (
        "p2", "p2.example:8000"
    )
    assert ledger_rows() == {}


def test_a_write_on_the_event_loop_is_fenced_too(owner, taker):
    from django.db import DatabaseError

    from quotaweb.allocations.ledger import PostgresLoopLedger
    from quotaweb.engine.live import LiveAllocation
    from quotaweb.engine.owners import fence_refused, fenced

    stale = lease_rows()["default"][1]
    _take_over(taker)
    row = LiveAllocation(
        key="loop-1", application_id="app-1", queue_path="root.eng", user="alice",
        groups=("ml",), resource={"memory": GiB}, group="ml",
    )

    async def scenario():
        ledger = PostgresLoopLedger()
        try:
            write = await ledger.write_for("default")
            assert write is not None
            with fenced(stale):
                await write([row])
        finally:
            await ledger.close()

    with pytest.raises(DatabaseError) as refused:
        asyncio.run(scenario())
    assert fence_refused(refused.value)
    assert ledger_rows() == {}


def test_a_write_without_an_epoch_is_refused_once_the_partition_is_leased(owner):
    from django.db import DatabaseError

    from quotaweb.allocations.ledger import _ledger_write
    from quotaweb.engine.live import LiveAllocation
    from quotaweb.engine.owners import fence_refused

    row = LiveAllocation(
        key="tool-1", application_id="app-1", queue_path="root.eng", user="alice",
        groups=("ml",), resource={"memory": GiB}, group="ml",
    )
    with pytest.raises(DatabaseError) as refused:
        _ledger_write("default")([row], [])
    assert fence_refused(refused.value)
    assert ledger_rows() == {}


def test_elastic_writes_after_a_takeover_store_nothing(owner, taker):
    from django.db import DatabaseError

    from quotaweb.elastic.models import ElasticSettings
    from quotaweb.elastic.services import elastic_total_set
    from quotaweb.engine.owners import fence_refused

    elastic_total_set(partition="default", total={"memory": GiB}, author=None)
    _take_over(taker)
    with pytest.raises(DatabaseError) as refused:
        elastic_total_set(partition="default", total={"memory": 2 * GiB}, author=None)
    assert fence_refused(refused.value)
    assert ElasticSettings.objects.get(partition="default").cluster_total == {"memory": GiB}


def test_quota_tree_writes_after_a_takeover_store_nothing(owner, taker):
    from django.db import DatabaseError

    from quotaweb.engine.owners import UNIT_TREES, fence_refused
    from quotaweb.quotatrees.models import Tree
    from quotaweb.quotatrees.services import tree_put
    from tests.quotatrees.support import example_document

    _take_over(taker, UNIT_TREES)
    with pytest.raises(DatabaseError) as refused:
        tree_put(tree="example", document=example_document(), author=None)
    assert fence_refused(refused.value)
    assert not Tree.objects.exists()
