"""A frozen or stopped database under load: how long answers take while it is away, and how soon
allocations succeed again once it is back.

A real ``manage.py serve`` (production settings, the default bounds) on a private PostgreSQL
(``tests.postgres_server``: its own cluster on a free port of 127.0.0.1) takes ``--clients``
allocating and releasing clients (one request at a time each). After ``--warmup`` s the database
is frozen (SIGSTOP of the postmaster and its children; ``--fault stop`` for
``pg_ctl stop -m fast``) for ``--seconds``, then brought back, and the load goes on for
``--after`` s.

Prints: answers during the fault (count, statuses, p50, p99 and max seconds), /healthz while it
lasts, the time from the database's return to the first successful allocation sent after it, and
whether the ledger holds exactly the acknowledged allocations. Targets (issue 24): p99 during the
fault under 3 s, first success under 1 s after the return; exits 1 when one is missed or the
ledger disagrees.

    .venv/bin/python benchmarks/database_faults.py [--seconds 30] [--clients 4] [--fault freeze]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.database_load import (
    LOAD_YAML,
    Client,
    exchange,
    first_success_after,
    percentile,
    run_clients,
)
from tests.postgres_server import PostgresServer, postgres_missing
from tests.server_process import ServerProcess, free_port

P99_TARGET_SECONDS = 3.0
RECOVERY_TARGET_SECONDS = 1.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30, help="how long the fault lasts")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--warmup", type=float, default=3)
    parser.add_argument("--after", type=float, default=5)
    parser.add_argument("--fault", choices=("freeze", "stop"), default="freeze")
    args = parser.parse_args()
    missing = postgres_missing()
    if missing:
        print(f"skipped: {missing}")
        return 0
    database = PostgresServer()
    with tempfile.TemporaryDirectory(prefix="quotaweb-bench-") as folder:
        server = None
        try:
            database.start()
            server = ServerProcess(
                Path(folder), free_port(), config_yaml=LOAD_YAML,
                database_url=database.create_database(), production=True,
                # The production defaults, not the test suite's generous ones.
                env={"QUOTAWEB_DB_STATEMENT_TIMEOUT_MS": "2000"},
            )
            server.migrate()
            token = server.create_admin("admin", "a-long-enough-password-1")
            server.start("serve")
            server.wait_ready()
            return _measure(args, database, server, token)
        finally:
            if server is not None:
                server.close()
            database.close()


def _measure(args, database: PostgresServer, server: ServerProcess, token: str) -> int:
    clients = [Client(server, token, f"user{n}") for n in range(args.clients)]
    stop, stop_health = threading.Event(), threading.Event()
    threads = run_clients(clients, stop)
    health: list = []

    def watch() -> None:
        while not stop_health.is_set():
            health.append(exchange(server, "GET", "/healthz"))
            time.sleep(0.5)

    time.sleep(args.warmup)
    began = time.monotonic()
    database.freeze() if args.fault == "freeze" else database.stop("fast")
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    time.sleep(args.seconds)
    stop_health.set()
    database.thaw() if args.fault == "freeze" else database.start()
    back = time.monotonic()
    time.sleep(args.after)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    watcher.join(timeout=10)

    answers = [answer for client in clients for answer in client.answers]
    during = [a for a in answers if a.started >= began and a.started < back]
    seconds = [a.seconds for a in during]
    p99 = percentile(seconds, 0.99)
    recovery = first_success_after(answers, back)
    health_seconds = [a.seconds for a in health]
    states = Counter(json.loads(a.body).get("status") for a in health)
    acknowledged = {key for client in clients for key in client.live}
    import psycopg

    with psycopg.connect(database.url(), autocommit=True) as connection:
        stored = {key for (key,) in connection.execute(
            "SELECT key FROM allocations_allocation").fetchall()}

    print(f"fault: {args.fault} for {args.seconds:g} s under {args.clients} clients")
    print(f"answers during the fault: {len(during)}, statuses "
          f"{dict(sorted(Counter(a.status for a in during).items()))}")
    print(f"  seconds: p50 {percentile(seconds, 0.5):.3f}, p99 {p99:.3f}, "
          f"max {max(seconds, default=0):.3f} (target p99 < {P99_TARGET_SECONDS:g})")
    print(f"/healthz during the fault: {len(health)} answers {dict(states)}, "
          f"max {max(health_seconds, default=0):.3f} s")
    print("first success after the database's return: "
          + (f"{recovery:.3f} s" if recovery is not None else "none")
          + f" (target < {RECOVERY_TARGET_SECONDS:g})")
    print(f"ledger: {len(stored)} rows, {len(acknowledged)} acknowledged live allocations, "
          f"{'equal' if stored == acknowledged else 'DIFFERENT'}")
    missed = (
        p99 >= P99_TARGET_SECONDS or recovery is None or recovery >= RECOVERY_TARGET_SECONDS
        or stored != acknowledged
    )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
