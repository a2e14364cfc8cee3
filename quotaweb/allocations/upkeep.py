"""The ledger's upkeep on PostgreSQL, run by the process that owns the engines.

Every allocation is a row inserted and, once released, deleted: under a busy scheduler the
ledger turns over its whole content many times a minute. PostgreSQL keeps a deleted row's space
and index entries until ``VACUUM``, and plans queries from the statistics ``ANALYZE`` gathers.
Both are autovacuum's work, which a server may have switched off and which by default comes only
once a fifth of a table has changed. Without statistics the planner takes the ledger for empty:
a batch releasing 1,000 keys then read every row of the partition through the index instead of
looking each key up (76 ms among 10,000 live rows, not 2.3 ms; measured on this project's
machine) and grew slower with every dead row, as nothing reclaimed them.

So every ``QUOTAWEB_LEDGER_UPKEEP_SECONDS`` the owner reads the table's counters (one query) and,
once enough rows have changed since the last time, runs ``VACUUM (ANALYZE, SKIP_LOCKED)`` on the
ledger alone. Its lock lets inserts and deletes go on, and ``SKIP_LOCKED`` steps aside when
autovacuum is already at work there. SQLite needs none of this: its planner uses the unique
index whatever the table holds, and freed pages are reused.
"""

from __future__ import annotations

import logging
import threading
from typing import NamedTuple

from django.conf import settings
from django.db import close_old_connections, connection

from quotaweb.allocations.models import Allocation
from quotaweb.postgresql.waits import unbounded

logger = logging.getLogger(__name__)

# Rows changed (dead, or written since the last ANALYZE) before the ledger is vacuumed again: a
# tenth of its live rows, and at least this many. Autovacuum waits for a fifth, and for 50 rows.
CHANGED_AT_LEAST = 1000
CHANGED_SHARE = 0.1

MSG_FAILED = "ledger upkeep failed; trying again every %s s"


class LedgerCounters(NamedTuple):
    live: int
    dead: int
    changed_since_analyze: int


def ledger_upkeep_due(counters: LedgerCounters) -> bool:
    """Whether the ledger has changed enough to be vacuumed and analyzed."""
    threshold = max(CHANGED_AT_LEAST, CHANGED_SHARE * counters.live)
    return counters.dead > threshold or counters.changed_since_analyze > threshold


def ledger_upkeep() -> LedgerCounters | None:
    """Vacuum and analyze the ledger if it is due (PostgreSQL); the counters that made it due,
    or None when nothing was done."""
    if connection.vendor != "postgresql":
        return None
    table = Allocation._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT n_live_tup, n_dead_tup, n_mod_since_analyze FROM pg_stat_user_tables "
            "WHERE relid = to_regclass(%s)",
            [table],
        )
        row = cursor.fetchone()
        if row is None:
            return None
        counters = LedgerCounters(*row)
        if not ledger_upkeep_due(counters):
            return None
        # VACUUM runs outside a transaction: Django's connection is in autocommit here. A large
        # ledger's takes longer than a statement's bound, which is lifted for it alone (and set
        # back: the pool keeps the session's settings).
        with unbounded():
            cursor.execute("SET statement_timeout = 0")
            try:
                cursor.execute(
                    f"VACUUM (ANALYZE, SKIP_LOCKED) {connection.ops.quote_name(table)}"
                )
            finally:
                cursor.execute("RESET statement_timeout")
    return counters


def ledger_upkeep_start(*, stop: threading.Event | None = None) -> threading.Thread | None:
    """Look after the ledger every ``QUOTAWEB_LEDGER_UPKEEP_SECONDS`` until ``stop`` is set (a
    daemon thread); None when there is nothing to look after (SQLite, or upkeep turned off)."""
    interval = settings.QUOTAWEB_LEDGER_UPKEEP_SECONDS
    if connection.vendor != "postgresql" or interval == 0:
        return None
    stop = stop or threading.Event()

    def run() -> None:
        failing = False
        while not stop.wait(interval):
            close_old_connections()
            try:
                ledger_upkeep()
            except Exception:
                # The database away for a moment, say: the next round tries again.
                if not failing:
                    logger.exception(MSG_FAILED, interval)
                failing = True
            else:
                failing = False
        connection.close()

    thread = threading.Thread(target=run, name="ledger-upkeep", daemon=True)
    thread.start()
    return thread
