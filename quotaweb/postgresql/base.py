"""Django's PostgreSQL backend, with one change to its connection pool's check.

The pool checks a connection before handing it out, so one the server dropped (a restart,
``pg_terminate_backend``, an idle timeout) is replaced instead of failing the request. But
psycopg_pool finds one dead connection per try and waits a growing backoff (1 s, 2 s, 4 s...)
before the next, so after a restart that dropped a pool of ten idle connections the request
outlasted the pool's timeout. Here the first dead connection sends the pool to test all its idle
ones at once: the dead are replaced together, and the next try, one backoff step later, gets a
live connection. Django passes the pool its own check and takes no other, hence this backend.
"""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql import base as postgresql
from psycopg_pool import ConnectionPool


def _check_and_sweep(pool: ConnectionPool) -> Any:
    def check(connection: Any) -> None:
        try:
            ConnectionPool.check_connection(connection)
        except Exception:
            pool.check()
            raise

    return check


class DatabaseWrapper(postgresql.DatabaseWrapper):
    @property
    def pool(self) -> ConnectionPool | None:
        pool = super().pool
        # The pool keeps its check in ``_check`` (psycopg_pool, pinned in constraints.txt);
        # tests/core/test_dropped_database_connections_are_replaced.py fails if that changes.
        if pool is not None and pool._check is not None and not getattr(pool, "_sweeps", False):
            pool._check = _check_and_sweep(pool)
            pool._sweeps = True
        return pool
