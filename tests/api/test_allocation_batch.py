"""The batch endpoint: up to 10,000 allocate and release operations, run in order (each sees the
ones before it), stored in one transaction, answered one result per operation."""

from __future__ import annotations

import json
from contextlib import contextmanager

import pytest
from django.db import transaction

from quotaweb.allocations import ledger as ledger_writes
from quotaweb.allocations import requests, services
from quotaweb.allocations.models import Allocation
from quotaweb.engine.outcomes import STREAMED_ROWS
from tests.api.allocation_support import ALLOCATIONS, GiB, body, ledger, used

pytestmark = pytest.mark.django_db

BATCH = f"{ALLOCATIONS}/batch"


def _allocate(key: str, **kwargs) -> dict:
    return {"op": "allocate", **body(key, **kwargs)}


def test_operations_run_in_order_and_each_gets_its_result(admin_api, capped_engines):
    response = admin_api.post(BATCH, {"operations": [
        _allocate("a", memory=6 * GiB),
        _allocate("b", memory=6 * GiB),  # alice's cap is 10Gi: denied after "a"
        {"op": "release", "allocationKey": "a"},
        _allocate("c", memory=6 * GiB),  # fits again once "a" is gone
        {"op": "release", "allocationKey": "nope"},
        {"op": "explode"},
        _allocate("c", memory=6 * GiB),  # a retry inside the batch
    ]}, format="json")
    assert response.status_code == 200
    results = response.json()["results"]
    assert [r["status"] for r in results] == [201, 409, 204, 201, 404, 400, 200]
    assert results[1]["reason"] == "userQuota"
    assert results[5]["details"] == [
        {"field": "operations[5].op", "message": requests.ERR_OP}
    ]
    assert ledger() == {"c": {"memory": 6 * GiB}}
    assert used("alice") == {"memory": 6 * GiB}


def test_a_lone_surrogate_refuses_only_its_own_operation(admin_api, capped_engines):
    text = json.dumps({"operations": [
        _allocate("a@"), _allocate("b"), {"op": "release", "allocationKey": "b@"},
    ]}).replace("@", "\\udfff")
    response = admin_api.post(BATCH, text, content_type="application/json")
    assert response.status_code == 200
    results = response.json()["results"]
    assert [r["status"] for r in results] == [400, 201, 400]
    assert [r["details"][0]["field"] for r in (results[0], results[2])] == [
        "operations[0].allocationKey", "operations[2].allocationKey"
    ]
    assert set(ledger()) == {"b"}


@pytest.mark.parametrize(
    "payload", [{}, {"operations": []}, {"operations": "x"}, [1, 2],
                {"operations": [{"op": "release", "allocationKey": "k"}] * 10_001}],
)
def test_a_body_that_is_not_a_batch_is_400(admin_api, capped_engines, payload):
    response = admin_api.post(BATCH, payload, format="json")
    assert response.status_code == 400
    assert response.json()["details"][0]["field"] == "operations"


def test_ten_thousand_operations_are_accepted(admin_api, capped_engines):
    operations = [
        _allocate(f"k{i}", user=f"user{i % 50}", app=f"app{i}", memory=1, groups=[])
        for i in range(10_000)
    ]
    response = admin_api.post(BATCH, {"operations": operations}, format="json")
    assert [r["status"] for r in response.json()["results"]] == [201] * 10_000
    assert len(ledger()) == 10_000


def test_a_failed_ledger_write_undoes_the_whole_batch_in_the_engine(
    admin_api, capped_engines, monkeypatch
):
    admin_api.post(ALLOCATIONS, body("kept", memory=GiB), format="json")
    before = capped_engines.users_usage("default")

    def broken(partition):
        def write(stored, deleted):
            raise RuntimeError("disk full")
        return write

    monkeypatch.setattr(services, "_ledger_write", broken)
    response = admin_api.post(BATCH, {"operations": [
        _allocate("new", memory=GiB), {"op": "release", "allocationKey": "kept"},
        _allocate("other", app="app-9", memory=GiB),
    ]}, format="json")
    assert response.status_code == 500
    assert response.json()["error"] == "internal"
    assert capped_engines.users_usage("default") == before
    assert set(ledger()) == {"kept"}
    assert capped_engines.live_count("default") == 1


def test_a_batch_of_allocates_stores_exactly_what_was_admitted(admin_api, capped_engines):
    # Past STREAMED_ROWS, so that on PostgreSQL the rows go to the ledger in parts while the
    # engine admits the rest.
    operations = [_allocate(f"k{n}", memory=1) for n in range(2 * STREAMED_ROWS + 50)]
    operations[7] = _allocate("k7", memory=20 * GiB)  # over alice's cap: denied
    operations[150] = _allocate("k3", memory=1)  # a retry of k3: answered, stored once
    operations[151] = {"op": "allocate", "allocationKey": "k151"}  # refused as it is
    response = admin_api.post(BATCH, {"operations": operations}, format="json")
    statuses = [r["status"] for r in response.json()["results"]]
    assert (statuses[7], statuses[150], statuses[151]) == (409, 200, 400)
    assert statuses.count(201) == len(operations) - 3
    admitted = {f"k{n}" for n in range(len(operations))} - {"k7", "k150", "k151"}
    assert ledger() == {key: {"memory": 1} for key in admitted}
    assert capped_engines.live_count("default") == len(admitted)


def test_keys_with_tabs_newlines_and_backslashes_are_stored_as_sent(admin_api, capped_engines):
    # PostgreSQL's ledger takes a batch in COPY's text format, where these four are escaped.
    keys = ["tab\there", "new\nline", "back\\slash\\N", "cr\rlf\r\n", "plain"]
    response = admin_api.post(BATCH, {"operations": [
        _allocate(key, app="app\t1\\", memory=n + 1) for n, key in enumerate(keys)
    ]}, format="json")
    assert [r["status"] for r in response.json()["results"]] == [201] * len(keys)
    assert ledger() == {key: {"memory": n + 1} for n, key in enumerate(keys)}
    stored = Allocation.objects.values_list("key", "application_id", "groups")
    assert sorted(stored) == sorted((key, "app\t1\\", ["ml"]) for key in keys)


def test_a_batch_of_allocates_failing_midway_stores_nothing_and_undoes_the_engine(
    admin_api, capped_engines, monkeypatch
):
    admin_api.post(ALLOCATIONS, body("kept", memory=GiB), format="json")
    before = capped_engines.users_usage("default")
    real = services._ledger_stream
    sent = []

    def failing_on_the_second_part(partition):
        # SQLite stores a batch at its end: the same rows by INSERT then, to fail the same way.
        stream = real(partition) or _stored_by_insert(partition)

        @contextmanager
        def failing():
            with stream() as send:
                def send_once(allocations):
                    if sent:
                        raise RuntimeError("connection lost")
                    sent.append(len(allocations))
                    send(allocations)
                yield send_once

        return failing

    monkeypatch.setattr(services, "_ledger_stream", failing_on_the_second_part)
    operations = [_allocate(f"k{n}", memory=1) for n in range(2 * STREAMED_ROWS)]
    response = admin_api.post(BATCH, {"operations": operations}, format="json")
    assert sent == [STREAMED_ROWS]
    assert response.status_code == 500
    assert capped_engines.users_usage("default") == before
    assert set(ledger()) == {"kept"}
    assert capped_engines.live_count("default") == 1


def test_a_batch_that_stores_nothing_opens_no_ledger_transaction(
    admin_api, capped_engines, monkeypatch
):
    real = services._ledger_stream
    opened = []

    def counted(partition):
        stream = real(partition) or _stored_by_insert(partition)

        def opening():
            opened.append(partition)
            return stream()

        return opening

    monkeypatch.setattr(services, "_ledger_stream", counted)
    batch = {"operations": [_allocate(f"k{n}", memory=1) for n in range(STREAMED_ROWS + 1)]}
    assert admin_api.post(BATCH, batch, format="json").status_code == 200
    assert opened == ["default"]
    # The same batch again (a scheduler's retry: every one answered as already stored), and one
    # that is all denied.
    retried = admin_api.post(BATCH, batch, format="json").json()["results"]
    assert {r["status"] for r in retried} == {200}
    denied = admin_api.post(BATCH, {"operations": [_allocate("big", memory=20 * GiB)]},
                            format="json").json()["results"]
    assert [r["status"] for r in denied] == [409]
    assert opened == ["default"]
    assert len(ledger()) == STREAMED_ROWS + 1


def _stored_by_insert(partition):
    @contextmanager
    def stream():
        with transaction.atomic():
            yield lambda allocations: ledger_writes._ledger_insert(
                partition, allocations, transaction.get_connection()
            )
    return stream


def test_a_body_over_the_size_cap_is_413_and_changes_nothing(admin_api, capped_engines):
    from quotaweb.api.parsers import json_max_bytes

    key = "k" * 200
    operation = '{"op":"release","allocationKey":"' + key + '"}'
    count = json_max_bytes() // len(operation) + 1
    response = admin_api.post(
        BATCH, '{"operations": [' + ",".join([operation] * count) + "]}",
        content_type="application/json",
    )
    assert response.status_code == 413
    assert response.json()["error"] == "too_large"
    assert ledger() == {}
