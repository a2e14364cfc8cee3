"""Bounded waits on PostgreSQL: every wait for the server ends within a budget.

The server bounds what it can itself (``session_options``: ``statement_timeout``,
``lock_timeout``, ``idle_in_transaction_session_timeout``); libpq bounds the connection
(``connect_timeout``) and notices a peer gone from the network (TCP keepalives). A server that
is frozen (stopped by a signal, a hung disk, a paused VM) answers nothing and enforces nothing,
and its kernel still acknowledges every packet: only the client can give up on it, which
``DeadlineConnection`` does when an answer is later than the budget.

The budget is one statement's bound (``QUOTAWEB_DB_STATEMENT_TIMEOUT_MS``), or what is left of a
``deadline`` block's: an allocation opens one before it waits for its partition lock, so that
the lock wait and the ledger write together stay within one bound.

A statement given up on this way may or may not have committed: it may sit unread in the frozen
server's socket and run once the server goes on. The connection is closed (never reused) and the
error says so (``OutcomeUnknown``); ``quotaweb.allocations.doubts`` settles such writes.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import psycopg
from psycopg import errors

ERR_NO_ANSWER = "the database did not answer within {seconds:.1f} s"

# The client gives up this much after the server's own statement_timeout would have fired: a
# live server's cancel comes first and says plainly that nothing was committed.
MARGIN_SECONDS = 0.25
FLOOR_SECONDS = 0.25

# TCP keepalives: a server whose host or network is gone is noticed within about 20 s on an idle
# connection (and an unacknowledged send within the same), instead of the kernel's two hours.
KEEPALIVES = {
    "keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 5, "keepalives_count": 3,
    "tcp_user_timeout": 20_000,
}

_deadline: ContextVar[float | None] = ContextVar("quotaweb_database_deadline", default=None)


class OutcomeUnknown(psycopg.OperationalError):
    """The server's answer did not come in time; the connection is closed, and whatever it was
    doing may still commit."""


def session_options(
    *, connect_timeout: int, statement_timeout_ms: int, lock_timeout_ms: int,
    idle_in_transaction_ms: int, options: str = "",
) -> dict[str, Any]:
    """libpq connection options that bound every wait on the server's side (0: no bound), added
    to ``options`` already given (a ``?options=`` of ``DATABASE_URL``)."""
    settings = (
        f"-c statement_timeout={statement_timeout_ms} -c lock_timeout={lock_timeout_ms} "
        f"-c idle_in_transaction_session_timeout={idle_in_transaction_ms}"
    )
    return {
        "connect_timeout": connect_timeout, **KEEPALIVES,
        "options": f"{options} {settings}".strip(),
    }


def statement_seconds() -> float | None:
    """One statement's bound in seconds; None when it is lifted."""
    from django.conf import settings

    milliseconds = settings.QUOTAWEB_DB_STATEMENT_TIMEOUT_MS
    return milliseconds / 1000 if milliseconds else None


@contextmanager
def deadline(at_most: float | None = None) -> Iterator[None]:
    """One statement's bound (or ``at_most`` seconds, if less) for the whole block: every wait
    inside it (database answers, the gateway's partition lock) ends when it runs out. A block
    inside another keeps the outer one's."""
    seconds = statement_seconds()
    if seconds is not None and at_most is not None:
        seconds = min(seconds, at_most)
    if _deadline.get() is not None or seconds is None:
        yield
        return
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


@contextmanager
def unbounded() -> Iterator[None]:
    """No client-side bound for the block: for work that is long by nature (a ``VACUUM`` of a
    large ledger), whose caller lifts the server's ``statement_timeout`` too."""
    token = _deadline.set(math.inf)
    try:
        yield
    finally:
        _deadline.reset(token)


def due() -> float | None:
    """When the current budget ends (``time.monotonic()``): the ``deadline`` block's end, else
    one statement's bound from now; None when the bound is lifted."""
    at = _deadline.get()
    if at is None:
        seconds = statement_seconds()
        return None if seconds is None else time.monotonic() + seconds
    return None if at == math.inf else at


@contextmanager
def until(at: float | None) -> Iterator[None]:
    """The block's budget ends at ``at`` (a ``due()``) or where the current one ends, whichever
    comes first: work done for several callers (a group's write) ends within the earliest's
    budget."""
    current = _deadline.get()
    if at is None or (current is not None and current <= at):
        yield
        return
    token = _deadline.set(at)
    try:
        yield
    finally:
        _deadline.reset(token)


def remaining() -> float | None:
    """Seconds left of the current ``deadline`` block, else one statement's bound; None when the
    bound is lifted."""
    at = _deadline.get()
    if at is None:
        return statement_seconds()
    if at == math.inf:
        return None
    return max(0.0, at - time.monotonic())


class DeadlineConnection(psycopg.Connection):
    """psycopg's connection, giving up on any answer later than ``remaining()`` (plus
    ``MARGIN_SECONDS``): closed, it raises ``OutcomeUnknown``."""

    def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
        bound = remaining()
        if bound is None:
            return super().wait(gen, interval=interval, timeout=timeout)
        # A statement gets at least ``FLOOR_SECONDS`` even when the block's deadline is nearly
        # spent (a long wait for the pool or the partition): given up on at once, a write to a
        # database that answers would only become a write in doubt.
        bound = max(bound, FLOOR_SECONDS) + MARGIN_SECONDS
        if timeout is not None and timeout <= bound:
            # psycopg's own bounded wait (a cancel): its timeout and its error.
            return super().wait(gen, interval=interval, timeout=timeout)
        try:
            return super().wait(gen, interval=interval, timeout=bound)
        except errors._WaitTimeout:
            self.pgconn.finish()
            raise OutcomeUnknown(ERR_NO_ANSWER.format(seconds=bound)) from None


# How long a caller is told to wait before trying again when the database is away.
RETRY_AFTER_SECONDS = 2


def unavailable_reason(exc: BaseException) -> str | None:
    """Why the database could not serve the request when ``exc`` says it is away, slow or busy
    (a lost or refused connection, no pooled connection in time, a statement or lock timeout,
    no answer in time, SQLite's "database is locked"), as one line; None for any other error.
    Django's wrapped errors are judged by the driver's error they carry."""
    import sqlite3

    from django.db import InterfaceError, OperationalError

    cause = exc.__cause__ if isinstance(exc, (OperationalError, InterfaceError)) else None
    error = cause if cause is not None else exc
    if isinstance(error, sqlite3.OperationalError):
        text = str(error)
        return text if "locked" in text or "busy" in text else None
    if isinstance(error, (psycopg.OperationalError, psycopg.InterfaceError)) or (
        cause is None and isinstance(exc, (OperationalError, InterfaceError))
    ):
        return (str(error).strip().splitlines() or [type(error).__name__])[0]
    return None
