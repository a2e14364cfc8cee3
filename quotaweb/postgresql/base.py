"""Django's PostgreSQL backend, with its connection pool's check changed in two ways.

The pool checks a connection before handing it out, so one the server dropped (a restart,
``pg_terminate_backend``, an idle timeout) is replaced instead of failing the request.

- The check is a look at the socket before it is a round trip. A server that drops a connection
  says so first (a FATAL message, then the end of the stream), so a dropped connection's socket
  has something to read while the connection sits idle in the pool; a live one has nothing. Only
  a socket with something to read gets psycopg_pool's round trip (``SELECT`` of nothing), which
  tells a drop from a harmless message such as a changed server setting. The round trip on
  every checkout cost 0.1 ms of a single allocation's 0.7 ms ledger write here.
- psycopg_pool finds one dead connection per try and waits a growing backoff (1 s, 2 s, 4 s...)
  before the next, so after a restart that dropped a pool of ten idle connections the request
  outlasted the pool's timeout. Here the first dead connection sends the pool to test all its
  idle ones at once: the dead are replaced together, and the next try, one backoff step later,
  gets a live connection.

Django passes the pool its own check and takes no other, hence this backend.
"""

from __future__ import annotations

import select
from typing import Any

from django.db.backends.postgresql import base as postgresql
from psycopg_pool import ConnectionPool


def _check_and_sweep(pool: ConnectionPool) -> Any:
    def check(connection: Any) -> None:
        if not connection.closed and not has_input(connection.fileno()):
            return
        try:
            ConnectionPool.check_connection(connection)
        except Exception:
            pool.check()
            raise

    return check


def has_input(fd: int) -> bool:
    """Whether the socket ``fd`` has something to read (on an idle connection: the server's
    goodbye, most likely)."""
    # poll, not select: a busy server's descriptors pass select's limit of 1,024.
    probe = select.poll()
    probe.register(fd, select.POLLIN)
    return bool(probe.poll(0))


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
