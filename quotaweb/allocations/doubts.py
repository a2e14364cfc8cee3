"""Ledger writes whose outcome is unknown, and how the ledger is made to agree with the engine.

A ledger write that fails is undone in the engine and answered 503, so the caller knows it was
not carried out. Most failures say so for certain: an error the server answers (a statement or
lock timeout cancels the statement, and its implicit transaction is rolled back), or a
connection that could not be had. Two do not: the client gave up on a server that did not
answer in time (``OutcomeUnknown``: a frozen server may still run the statement unread in its
socket once it goes on, and commit it), and a connection lost while the answer was awaited (the
server may have committed just before). Such a write is *in doubt*: its rows may or may not be
in the ledger, while the engine has taken it back.

The engine is the truth for an in-doubt key: the caller was told 503, so an allocation the
engine took back must not be in the ledger, and one it still holds (a release that failed) must
be. Before the next ledger write of the partition, under the partition's lock (so that no other
change of those keys interleaves), ``doubts_settle``:

1. ends the server sessions that may still be running the writes (``pg_terminate_backend``,
   waiting until each is gone): once a session has exited, what it committed is final, so no
   late commit can come after the settling;
2. deletes the rows of every in-doubt key, and stores again those of keys the engine holds
   (unless the write about to run stores or deletes them itself).

Until it has settled (the database back), every write of that partition fails with 503 as the
database is away anyway. A restart settles too: the engines are rebuilt from the ledger
(``ledger_restore``), which then is the truth, as in ``tests/api/test_ledger_rebuilds_the_engine``
(a process killed mid-write). Only PostgreSQL has in-doubt writes: SQLite runs in this process,
and a statement that fails there has not committed.

The one imprecision: a backend id could be taken by a new session once the old one has exited;
the settling would then end that new session (a pooled connection that is replaced, at worst a
request that fails with 503).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from quotaweb.engine.live import LiveAllocation
from quotaweb.postgresql.waits import OutcomeUnknown

# How long the settling waits for an old session to exit.
TERMINATE_WAIT_MS = 1000

ERR_SESSIONS_LEFT = (
    "earlier writes of partition {partition!r} are still running on the database; they are "
    "settled before the next write"
)

_lock = threading.Lock()
# partition -> (keys in doubt, server sessions that may still run their writes)
_doubts: dict[str, tuple[set[str], set[int]]] = {}


def backend_of(connection: Any) -> int | None:
    """The server session of a Django PostgreSQL connection (None on SQLite or when closed)."""
    if connection.vendor != "postgresql" or connection.connection is None:
        return None
    return connection.connection.pgconn.backend_pid or None


def outcome_unknown(driver_connection: Any) -> bool:
    """Whether a failed write may have committed (see the module): its connection (the driver's,
    as the write began) is gone after the failure, closed by the client when it gave up on the
    answer (``OutcomeUnknown`` always closes it) or broken by a loss. A write whose connection
    lives on was answered by the server (an error that rolled it back) or never sent; that
    session must not be ended by the settling either, since it goes on serving requests."""
    if driver_connection is None:
        return False
    return bool(driver_connection.closed or driver_connection.broken)


def doubt_record(*, partition: str, keys: Iterable[str], backend: int | None) -> None:
    with _lock:
        doubted, backends = _doubts.setdefault(partition, (set(), set()))
        doubted.update(keys)
        if backend is not None:
            backends.add(backend)


def pending(partition: str) -> bool:
    """Whether the partition has writes in doubt (read without the lock: one dict lookup)."""
    return partition in _doubts


def doubts_of(partition: str) -> set[str]:
    with _lock:
        entry = _doubts.get(partition)
        return set(entry[0]) if entry else set()


def doubts_reset() -> None:
    """Forget every doubt (tests; a process whose engines were rebuilt from the ledger)."""
    with _lock:
        _doubts.clear()


def doubts_settle(
    *, partition: str, connection: Any, live: Callable[[str], LiveAllocation | None],
    writing: set[str], store: Callable[[list[LiveAllocation]], None],
    delete: Callable[[list[str]], None],
) -> tuple[set[str], set[int]]:
    """Make the ledger agree with the engine for the partition's in-doubt keys (the module's
    steps), in the caller's transaction; ``writing``: keys the write about to run in it stores
    or deletes itself. Called under the partition's lock; raises when the database cannot do it
    yet. Answers what it settled, for ``doubts_settled`` once the transaction has committed."""
    with _lock:
        entry = _doubts.get(partition)
        if entry is None:
            return set(), set()
        keys, backends = set(entry[0]), set(entry[1])
    if backends:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s) "
                "AND pid <> pg_backend_pid() AND NOT pg_terminate_backend(pid, %s)",
                [sorted(backends), TERMINATE_WAIT_MS],
            )
            (left,) = cursor.fetchone()
        if left:
            raise OutcomeUnknown(ERR_SESSIONS_LEFT.format(partition=partition))
    held = [allocation for key in sorted(keys - writing) if (allocation := live(key))]
    delete(sorted(keys))
    store(held)
    return keys, backends


def doubts_settled(partition: str, settled: tuple[set[str], set[int]]) -> None:
    """Forget the doubts a committed settling resolved (new ones may have come meanwhile)."""
    keys, backends = settled
    with _lock:
        entry = _doubts.get(partition)
        if entry is not None:
            entry[0].difference_update(keys)
            entry[1].difference_update(backends)
            if not entry[0] and not entry[1]:
                del _doubts[partition]
