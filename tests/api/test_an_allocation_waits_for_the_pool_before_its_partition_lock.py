"""A request thread takes its database connection before the partition lock: one that held the
lock while it waited for a pooled connection stalled behind requests that held connections and
waited for that lock, until the pool's timeout gave up on it (seen with eight concurrent clients
against a pool of ten, four of whose connections other threads held)."""

from __future__ import annotations

import os
import threading
import time

import pytest

from tests.api.allocation_support import body

pytestmark = [
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL"), reason="PostgreSQL only (the connection pool)"
    ),
    pytest.mark.django_db(transaction=True),
]


def test_an_allocation_short_of_a_connection_does_not_hold_the_partition_back(capped_engines):
    from django.db import connection

    from quotaweb.allocations.services import allocation_create, allocation_request

    pool = connection.pool
    outcomes: dict[str, str] = {}
    later_may_allocate = threading.Event()

    def client(key: str, *, connected: threading.Event | None = None) -> None:
        try:
            if connected is not None:
                # A request that has already queried: it holds its connection.
                connection.ensure_connection()
                connected.set()
                later_may_allocate.wait(30)
            allocation_create(partition="default", request=allocation_request(body(key)))
            outcomes[key] = "stored"
        except Exception as error:
            outcomes[key] = type(error).__name__
        finally:
            connection.close()  # the request ends: its connection goes back to the pool

    stats = pool.get_stats()
    in_use = stats["pool_size"] - stats["pool_available"]
    held = [pool.getconn() for _ in range(pool.max_size - in_use - 1)]
    try:
        connected = threading.Event()
        later = threading.Thread(target=client, args=("later",), kwargs={"connected": connected})
        later.start()
        assert connected.wait(10)  # it holds the pool's last connection
        first = threading.Thread(target=client, args=("first",))
        first.start()
        deadline = time.monotonic() + 10
        while pool.get_stats().get("requests_waiting", 0) < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        # ``first`` waits for a connection; ``later``, holding one, now allocates in the same
        # partition. Had ``first`` taken the partition lock before its connection, ``later``
        # would wait for that lock until ``first`` gave up on the pool.
        later_may_allocate.set()
        later.join(30)
        first.join(30)
    finally:
        for spare in held:
            pool.putconn(spare)
    assert outcomes == {"later": "stored", "first": "stored"}
