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

Django passes the pool its own check and takes no other, hence this backend. Its ``getconn``
also waits no longer than the caller's deadline leaves (``quotaweb.postgresql.waits``).

- psycopg_pool retries a failed connection after 1 s, then 2, 4, 8...: a database back after a
  minute's outage was first reached several seconds later. ``QuickRetry`` retries every quarter
  of a second instead (an attempt on a server that is down is refused at once, and one on a
  frozen server ends at ``connect_timeout``), so the pool has a connection again within about
  that of the database's return.
"""

from __future__ import annotations

import select
from typing import Any

import psycopg_pool.pool
from django.db.backends.postgresql import base as postgresql
from psycopg_pool import ConnectionPool
from psycopg_pool.base import AttemptWithBackoff

from quotaweb.postgresql.waits import remaining


class QuickRetry(AttemptWithBackoff):
    """Connection attempts every ``RETRY_SECONDS`` (with psycopg_pool's jitter), for as long as
    the pool's ``reconnect_timeout``."""

    RETRY_SECONDS = 0.25
    INITIAL_DELAY = RETRY_SECONDS
    DELAY_BACKOFF = 1.0


# The pool makes its attempts from this name (psycopg_pool, pinned in constraints.txt).
psycopg_pool.pool.AttemptWithBackoff = QuickRetry  # type: ignore[misc]


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


def _within_deadline(pool: ConnectionPool) -> Any:
    """The pool's ``getconn``, waiting no longer than the current deadline leaves
    (``quotaweb.postgresql.waits``) when that is shorter than the pool's own timeout: Django
    takes its connections without a timeout of their own."""
    getconn = pool.getconn

    def bounded(timeout: float | None = None) -> Any:
        if timeout is None:
            left = remaining()
            if left is not None and left < pool.timeout:
                timeout = max(left, 0.01)
        return getconn(timeout)

    return bounded


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
        if pool is not None and not getattr(pool, "_sweeps", False):
            if pool._check is not None:
                pool._check = _check_and_sweep(pool)
            pool.getconn = _within_deadline(pool)  # type: ignore[method-assign]
            pool._sweeps = True
        return pool
