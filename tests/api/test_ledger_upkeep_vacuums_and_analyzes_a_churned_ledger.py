"""On PostgreSQL the engine owner looks after the ledger (``allocations.upkeep``): once enough rows
have come and gone it vacuums and analyzes the table itself, so that a release finds its keys
through the unique index even on a server whose autovacuum is off, as this machine's is."""

from __future__ import annotations

import os
import threading
import time

import pytest

from quotaweb.allocations.upkeep import (
    CHANGED_AT_LEAST,
    LedgerCounters,
    ledger_upkeep,
    ledger_upkeep_due,
    ledger_upkeep_start,
)

ON_POSTGRESQL = bool(os.environ.get("DATABASE_URL"))
postgresql_only = pytest.mark.skipif(not ON_POSTGRESQL, reason="PostgreSQL only (set DATABASE_URL)")


@pytest.mark.parametrize(("counters", "due"), [
    (LedgerCounters(live=0, dead=0, changed_since_analyze=0), False),
    (LedgerCounters(live=500, dead=CHANGED_AT_LEAST, changed_since_analyze=0), False),
    (LedgerCounters(live=500, dead=CHANGED_AT_LEAST + 1, changed_since_analyze=0), True),
    # Rows only written (a first load) call for statistics as much as deleted ones.
    (LedgerCounters(live=2000, dead=0, changed_since_analyze=CHANGED_AT_LEAST + 1), True),
    # A large ledger waits for a tenth of its rows to change.
    (LedgerCounters(live=100_000, dead=9_000, changed_since_analyze=9_000), False),
    (LedgerCounters(live=100_000, dead=10_001, changed_since_analyze=0), True),
])
def test_upkeep_is_due_once_enough_of_the_ledger_has_changed(counters, due):
    assert ledger_upkeep_due(counters) is due


@pytest.mark.skipif(ON_POSTGRESQL, reason="SQLite only")
@pytest.mark.django_db
def test_sqlite_needs_no_upkeep():
    assert ledger_upkeep() is None
    assert ledger_upkeep_start(stop=threading.Event()) is None


@postgresql_only
@pytest.mark.django_db
def test_upkeep_can_be_left_to_autovacuum(settings):
    settings.QUOTAWEB_LEDGER_UPKEEP_SECONDS = 0

    assert ledger_upkeep_start(stop=threading.Event()) is None


def _counters(database) -> tuple[int, int, int]:
    return database.execute(
        "SELECT n_dead_tup, vacuum_count, analyze_count FROM pg_stat_user_tables "
        "WHERE relname = 'allocations_allocation'"
    ).fetchone()


def _rows_the_planner_expects(database) -> float:
    return database.execute(
        "SELECT reltuples FROM pg_class WHERE relname = 'allocations_allocation'"
    ).fetchone()[0]


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_a_churned_ledger_is_vacuumed_and_analyzed(capped_engines):
    from django.db import connection

    from quotaweb.allocations.services import allocations_batch, batch_request
    from tests.api.allocation_support import body
    from tests.server_process import own_database_connection

    def batch(operations: list[dict]) -> None:
        results = allocations_batch(
            partition="default", operations=batch_request({"operations": operations})
        )
        assert all(not isinstance(result, Exception) for result in results)

    live = [f"live-{n}" for n in range(2000)]
    gone = [f"gone-{n}" for n in range(CHANGED_AT_LEAST + 500)]
    batch([{"op": "allocate", **body(key, memory=1)} for key in live + gone])
    batch([{"op": "release", "allocationKey": key} for key in gone])
    # A backend hands its counters to the statistics views when it next goes idle, or else
    # after ten seconds.
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")
    with own_database_connection() as database:
        deadline = time.monotonic() + 10
        while _counters(database)[0] < len(gone) and time.monotonic() < deadline:
            time.sleep(0.1)
        dead, vacuums, analyzes = _counters(database)
        assert dead >= len(gone)

        counters = ledger_upkeep()

        assert counters is not None
        assert counters.dead >= len(gone)
        assert _counters(database) == (0, vacuums + 1, analyzes + 1)
        # Never analyzed, the table counted as empty (-1): the planner then reads a whole
        # partition to find a batch's keys.
        assert _rows_the_planner_expects(database) == len(live)
        # Done until the ledger changes again.
        assert ledger_upkeep() is None


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_the_engine_owner_runs_the_upkeep_until_it_stops(capped_engines):
    from quotaweb.core.ownership import ownership_claim
    from quotaweb.core.serving import owner_threads_start

    owner = owner_threads_start(
        lambda line: None, ownership=ownership_claim(command="test", address=None)
    )
    upkeep = [thread for thread in owner.threads if thread.name == "ledger-upkeep"]

    assert len(upkeep) == 1
    assert upkeep[0].is_alive()
    owner.stop()
    assert not upkeep[0].is_alive()


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_a_failing_upkeep_is_logged_once_and_tried_again(settings, monkeypatch, caplog):
    from quotaweb.allocations import upkeep

    settings.QUOTAWEB_LEDGER_UPKEEP_SECONDS = 0.01
    tries: list[int] = []

    def broken() -> None:
        tries.append(1)
        raise RuntimeError("the database is away")

    monkeypatch.setattr(upkeep, "ledger_upkeep", broken)
    stop = threading.Event()
    thread = ledger_upkeep_start(stop=stop)
    deadline = time.monotonic() + 10
    while len(tries) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    stop.set()
    thread.join(5)

    assert len(tries) >= 5
    assert [r.getMessage() for r in caplog.records if r.name == upkeep.__name__] == [
        upkeep.MSG_FAILED % 0.01
    ]
