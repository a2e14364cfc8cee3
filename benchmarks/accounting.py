"""The history's cost and the accounting's speed (issue 30), in-process.

1. The cost of history on the allocation path: single allocates (allocate then release, the
   allocate timed: p50) and batches of 1,000 allocates then 1,000 releases (operations a
   second), with the ledger's history triggers on and off, in alternating rounds of one run so
   that both see the same machine.
2. An accounting query for 90 days by user, with ``--rows`` history rows made by a bulk insert
   (finished allocations spread over the 90 days) and folded into the rollups first (the fold's
   time is printed too).

SQLite in a temporary folder, or PostgreSQL with ``DATABASE_URL`` (a database of its own, which
it empties). The figures are for people to read; nothing is asserted.

    .venv/bin/python benchmarks/accounting.py [--calls 2000] [--rounds 4] [--rows 10000000]
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from api import CONFIG, _allocation

BATCH = 1000
USERS = 2000
INSERT_CHUNK = 10_000


def _triggers(on: bool) -> None:
    """The ledger's history triggers (allocations.0006) on or off."""
    from django.db import connection

    history = importlib.import_module("quotaweb.allocations.migrations.0006_history")
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            state = "ENABLE" if on else "DISABLE"
            for name in ("quotaweb_history_admitted", "quotaweb_history_released"):
                cursor.execute(f"ALTER TABLE allocations_allocation {state} TRIGGER {name}")
            return
        for statement in history.UNSQLITE:
            cursor.execute(statement.replace("DROP TRIGGER", "DROP TRIGGER IF EXISTS"))
        for statement in history.SQLITE if on else []:
            cursor.execute(statement)


def _singles(calls: int, round_number: int) -> float:
    """p50 of ``calls`` single allocates (each released after, untimed), in microseconds."""
    from quotaweb.allocations.requests import allocation_request
    from quotaweb.allocations.services import allocation_create, allocation_release

    took = []
    for n in range(calls):
        key = f"s{round_number}-{n}"
        request = allocation_request(_allocation(key, n))
        started = time.perf_counter()
        allocation_create(partition="default", request=request)
        took.append(time.perf_counter() - started)
        allocation_release(partition="default", key=key)
    return statistics.median(took) * 1e6


def _batches(count: int, round_number: int) -> float:
    """Operations a second of ``count`` batches of allocates, each followed by its releases."""
    from quotaweb.allocations.requests import batch_request
    from quotaweb.allocations.services import allocations_batch

    spent = 0.0
    for number in range(count):
        keys = [f"b{round_number}-{number}-{n}" for n in range(BATCH)]
        allocates = batch_request({"operations": [
            {"op": "allocate", **_allocation(key, n)} for n, key in enumerate(keys)
        ]})
        releases = batch_request({"operations": [
            {"op": "release", "allocationKey": key} for key in keys
        ]})
        started = time.perf_counter()
        allocations_batch(partition="default", operations=allocates)
        allocations_batch(partition="default", operations=releases)
        spent += time.perf_counter() - started
    return count * 2 * BATCH / spent


def cost(calls: int, rounds: int, batches: int) -> None:
    figures: dict[bool, dict[str, list[float]]] = {
        on: {"p50": [], "rate": []} for on in (True, False)
    }
    for round_number in range(rounds):
        for on in (True, False) if round_number % 2 == 0 else (False, True):
            _triggers(on)
            figures[on]["p50"].append(_singles(calls, round_number * 2 + on))
            figures[on]["rate"].append(_batches(batches, round_number * 2 + on))
    _triggers(True)
    print(f"history on the allocation path ({rounds} rounds, medians of the rounds)")
    for on in (True, False):
        print(f"  history {'on ' if on else 'off'}: single allocate p50 "
              f"{statistics.median(figures[on]['p50']):7.0f} us, batch "
              f"{statistics.median(figures[on]['rate']):9.0f} operations/s")
    p50, rate = ({on: statistics.median(figures[on][name]) for on in (True, False)}
                 for name in ("p50", "rate"))
    print(f"  on/off: p50 {p50[True] / p50[False]:.2f}x, "
          f"batch rate {rate[True] / rate[False]:.2f}x")


def _history_rows(rows: int, now: datetime) -> None:
    """``rows`` finished allocations (admission and release rows, half each) over 90 days."""
    from django.db import connection, transaction

    from quotaweb.allocations.models import HistoryEvent

    rng = random.Random(30)
    span = 90 * 24 * 3600
    start = now - timedelta(seconds=span)
    table = HistoryEvent._meta.db_table
    columns = ('partition, kind, at, started, key, application_id, queue_path, "user", groups, '
               '"group", resource, reason, tx')
    adapt = connection.ops.adapt_datetimefield_value
    tx = None
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            # One transaction id below the fold's horizon for every generated row.
            cursor.execute("SELECT pg_current_xact_id()::text::bigint")
            tx = cursor.fetchone()[0]
    made = 0
    while made < rows:
        batch = []
        for n in range(made // 2, made // 2 + INSERT_CHUNK // 2):
            begun = start + timedelta(seconds=rng.randrange(span - 7200))
            ended = begun + timedelta(seconds=rng.randrange(60, 7200))
            user = f"user{rng.randrange(USERS)}"
            common = ("default", f"h{n}", f"app-{n // 20}", "root.eng.ml", user, "[]", "",
                      '{"memory": 1073741824, "vcore": 1000}', "", tx)
            for kind, at, began in (("admitted", begun, None), ("released", ended, begun)):
                batch.append((common[0], kind, adapt(at), adapt(began) if began else None,
                              *common[1:]))
        made += len(batch)
        with transaction.atomic(), connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                with cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                    for row in batch:
                        copy.write_row(row)
            else:
                cursor.executemany(
                    f"INSERT INTO {table} ({columns}) VALUES ({', '.join(['%s'] * 13)})", batch
                )


def query(rows: int) -> None:
    from quotaweb.usage.accounting import accounting_query, accounting_report
    from quotaweb.usage.rollups import history_fold

    now = datetime.now(UTC)
    started = time.perf_counter()
    _history_rows(rows, now)
    made = time.perf_counter() - started
    started = time.perf_counter()
    while history_fold(partition="default"):
        pass
    folded = time.perf_counter() - started
    params = {"by": "user", "step": "day", "from": (now - timedelta(days=89)).isoformat()}
    if os.environ.get("ACCOUNTING_PROFILE"):
        import cProfile

        cProfile.runctx("accounting_report(query=accounting_query(partition='default', "
                        "params=params))", globals(), locals(), sort="cumtime")
    took = []
    for _ in range(5):
        started = time.perf_counter()
        accounting_report(query=accounting_query(partition="default", params=params))
        took.append(time.perf_counter() - started)
    print(f"accounting for 90 days by user over {rows:,} history rows ({USERS:,} users)")
    print(f"  made in {made:.1f} s, folded into the rollups in {folded:.1f} s")
    print(f"  query: median of 5 {statistics.median(took) * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--rows", type=int, default=10_000_000,
                        help="history rows for the accounting query (0: the cost alone)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quotaweb-accounting-") as name:
        folder = Path(name)
        (folder / "queues.yaml").write_text(CONFIG, encoding="utf-8")
        os.environ.update({
            "QUOTAWEB_DATA_DIR": str(folder), "QUOTAWEB_DEBUG": "0",
            "QUOTAWEB_SECRET_KEY": "benchmark-only-secret-key-" + "x" * 30,
            "QUOTAWEB_LOG_LEVEL": "WARNING", "QUOTAWEB_CONFIG": str(folder / "queues.yaml"),
        })
        import django

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quotaweb.settings")
        django.setup()
        from django.core.management import call_command

        from quotaweb.core.services import engines_start

        call_command("migrate", verbosity=0)
        if os.environ.get("DATABASE_URL"):
            call_command("flush", "--noinput", verbosity=0)
        engines_start(config_path=folder / "queues.yaml")
        cost(args.calls, args.rounds, args.batches)
        if args.rows:
            query(args.rows)


if __name__ == "__main__":
    main()
