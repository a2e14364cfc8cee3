"""On PostgreSQL (``DATABASE_URL``, as ``.ci/run`` runs the suite): when the server drops the
pooled connections (a restart, an administrator's ``pg_terminate_backend``, an idle timeout),
the next request and the next query still succeed: the pool checks a connection before handing
it out and replaces a dead one."""

from __future__ import annotations

import os
import time

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from tests.server_process import own_database_connection

pytestmark = [
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL"), reason="PostgreSQL only (set DATABASE_URL)"
    ),
    pytest.mark.django_db(transaction=True),
]

WAIT_SECONDS = 10


def _terminate_other_backends() -> int:
    """From a connection of its own: end every other client backend of the test database (the
    pool's connections, idle between requests). Answers how many it ended."""
    with own_database_connection() as admin:
        others = (
            "FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        )
        ended = admin.execute(f"SELECT count(pg_terminate_backend(pid)) {others}").fetchone()[0]
        deadline = time.monotonic() + WAIT_SECONDS
        while admin.execute(f"SELECT count(*) {others}").fetchone()[0]:
            assert time.monotonic() < deadline, "the backends did not end"
            time.sleep(0.05)
    return ended


def _pool_holds_idle(count: int) -> None:
    """``count`` connections taken from the pool at once and given back idle, as after a busy
    moment: a database restart then finds that many connections to drop."""
    taken = [connection.pool.getconn() for _ in range(count)]
    for held in taken:
        connection.pool.putconn(held)


@pytest.mark.parametrize("idle", [1, 9], ids=["one idle connection", "a full pool"])
def test_a_request_and_a_query_succeed_after_the_servers_dropped_the_pools_connections(
    viewer_client, idle
):
    assert connection.vendor == "postgresql"
    # A pool of this test's own, with exactly ``idle`` connections in it.
    connection.close()
    connection.close_pool()
    assert viewer_client.get("/").status_code == 200
    connection.close()  # hand this thread's connection back to the pool, as a request does
    _pool_holds_idle(idle)

    assert _terminate_other_backends() >= idle

    # psycopg_pool alone backed off 1, 2, 4 s... per dead connection: a full pool outlasted the
    # pool's 10 s timeout. The backend's check replaces them all at the first.
    assert viewer_client.get("/").status_code == 200
    assert get_user_model().objects.filter(username="vera").exists()


def test_the_check_tells_a_dropped_connection_from_a_live_one_by_its_socket():
    # What lets the pool's check skip the round trip for a live connection: an idle live one
    # has nothing to read, and one the server dropped has its goodbye waiting.
    from quotaweb.postgresql.base import has_input

    with own_database_connection() as idle, own_database_connection() as admin:
        idle.execute("SELECT 1")
        assert not has_input(idle.fileno())
        admin.execute("SELECT pg_terminate_backend(%s)", [idle.info.backend_pid])
        deadline = time.monotonic() + WAIT_SECONDS
        while not has_input(idle.fileno()):
            assert time.monotonic() < deadline, "the dropped connection's socket stayed quiet"
            time.sleep(0.01)
        assert not has_input(admin.fileno())
