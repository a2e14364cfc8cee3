"""The lock on a SQLite database dies with its process: after ``kill -9`` of the running
``serve`` its lock file is still there, naming the dead process, and a new ``serve`` starts on
the same database anyway, takes the lock (naming itself) and serves the ledger the killed one
kept."""

from __future__ import annotations

import json

from tests.core.owner_support import (
    ADMIN,
    DATABASE_FILE,
    beside,
    engine_usage,
    ledger_rows,
    production_server,
    simulated_allocations_make,
)


def test_a_new_server_starts_after_the_owner_was_killed(tmp_path):
    server = production_server(tmp_path)
    lock = tmp_path / f"{DATABASE_FILE}.lock"
    token = server.token(ADMIN)
    with server.running("serve"):
        simulated_allocations_make(server, token)
        usage = engine_usage(server, token)
        killed = server.process.pid
        server.kill()
    rows = ledger_rows(server)
    assert json.loads(lock.read_text())["pid"] == killed

    restarted = beside(server, tmp_path)
    with restarted.running("serve"):
        assert json.loads(lock.read_text())["pid"] == restarted.process.pid
        assert engine_usage(restarted, token) == usage
        assert ledger_rows(restarted) == rows
