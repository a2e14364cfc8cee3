"""A ledger write whose commit is in doubt (the client gave up on a frozen server, or lost the
connection while the commit's answer was due) is settled before the partition's next write: the
ledger rows of its keys are made to agree with the engine, which took the write back. The real
fault is in tests/core/test_database_faults.py; here the doubt is recorded by hand."""

from __future__ import annotations

import os

import pytest

from tests.api.allocation_support import body
from tests.server_process import own_database_connection

pytestmark = [
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL"), reason="PostgreSQL only (set DATABASE_URL)"
    ),
    pytest.mark.django_db(transaction=True),
]


def _keys() -> set[str]:
    with own_database_connection() as database:
        return {key for (key,) in database.execute(
            "SELECT key FROM allocations_allocation").fetchall()}


@pytest.fixture
def doubts():
    from quotaweb.allocations import doubts

    doubts.doubts_reset()
    yield doubts
    doubts.doubts_reset()


def test_the_next_write_settles_the_doubts_of_its_partition(capped_engines, doubts):
    from quotaweb.allocations import services

    def create(key: str) -> None:
        request = services.allocation_request(body(key, memory=2**20))
        assert services.allocation_create(partition="default", request=request).allowed

    create("kept")
    create("released-in-doubt")
    with own_database_connection() as database:
        # A refused allocate that committed late, and a refused release that deleted the row.
        database.execute(
            "INSERT INTO allocations_allocation (partition, key, application_id, queue_path, "
            '"user", groups, resource, "group", created) SELECT partition, %s, application_id, '
            'queue_path, "user", groups, resource, "group", created FROM allocations_allocation '
            "WHERE key = 'kept'", ["refused-but-stored"],
        )
        database.execute("DELETE FROM allocations_allocation WHERE key = 'released-in-doubt'")
    doubts.doubt_record(partition="default", keys=["refused-but-stored", "released-in-doubt"],
                        backend=None)
    assert doubts.pending("default")

    create("next")

    assert _keys() == {"kept", "released-in-doubt", "next"}
    assert not doubts.pending("default")


def test_a_retry_of_a_key_in_doubt_is_stored_once(capped_engines, doubts):
    from quotaweb.allocations import services

    request = services.allocation_request(body("retried", memory=2**20))
    assert services.allocation_create(partition="default", request=request).allowed
    # As if the first try had committed late and its engine change been taken back.
    capped_engines.release("default", "retried", write=lambda stored, deleted: None)
    doubts.doubt_record(partition="default", keys=["retried"], backend=None)

    assert services.allocation_create(partition="default", request=request).allowed

    assert _keys() == {"retried"}
    assert capped_engines.live_count("default") == 1
