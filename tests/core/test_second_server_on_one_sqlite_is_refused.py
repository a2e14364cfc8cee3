"""One process at a time owns a SQLite database's engines. While ``manage.py serve`` runs on it,
a second ``serve`` (another port), a ``demo`` (with its simulator on, which would adopt and
release every simulated application in the ledger), a ``demo`` on the very same port (the
issue's ``bin/run`` started twice) and ``simulate --in-process`` are each refused at once: the
exit status says so, the message names the process holding the database (pid, host, address,
since when), and the busy port too where that is what stops it, and the ledger's rows and the
running engine's usage are what they were."""

from __future__ import annotations

import json

import pytest

from quotaweb.core.ownership import ERR_PORT, REASON_IN_USE_BY_HOLDER, Holder
from tests.core.owner_support import (
    DATABASE_FILE,
    beside,
    engine_usage,
    ledger_rows,
    production_server,
    simulated_allocations_make,
)


@pytest.fixture
def owner(tmp_path):
    server = production_server(tmp_path)
    with server.running("serve"):
        yield server


def test_a_second_process_on_the_database_is_refused_and_changes_nothing(owner, tmp_path):
    token = owner.token("ops")
    made = simulated_allocations_make(owner, token)
    rows, usage = ledger_rows(owner), engine_usage(owner, token)
    assert len(rows) == made == 60

    holder = Holder(**json.loads((tmp_path / f"{DATABASE_FILE}.lock").read_text()))
    assert (holder.pid, holder.command, holder.address) == (
        owner.process.pid, "manage.py serve", f"127.0.0.1:{owner.port}"
    )
    other = beside(owner, tmp_path)
    attempts = {
        "serve": other.run_manage("serve", "--port", str(other.port)),
        "demo": other.run_manage(
            "demo", "--port", str(other.port), env={"QUOTAWEB_SIMULATOR": "1"}
        ),
        "simulate": other.run_manage(
            "simulate", "--in-process", "--partition", "default", "--duration", "5"
        ),
    }
    for command, result in attempts.items():
        assert result.returncode != 0, (command, result.stdout)
        assert "is in use by another quotaweb process" in result.stderr, (command, result.stderr)
        assert holder.text() in result.stderr, (command, result.stderr)
        # Refused before anything was loaded, simulated or served.
        assert "Active configuration" not in result.stdout, command
        assert "Simulat" not in result.stdout, command

    # bin/run started again beside the running one: same port, same data/. The port comes
    # first, and the message names the process that holds both.
    again = other.run_manage(
        "demo", "--port", str(owner.port), env={"QUOTAWEB_SIMULATOR": "1"}
    )
    assert again.returncode != 0
    reason = REASON_IN_USE_BY_HOLDER.format(holder=holder.text())
    message = ERR_PORT.format(address=f"127.0.0.1:{owner.port}", reason=reason)
    assert again.stderr.strip() == f"CommandError: {message}"

    assert ledger_rows(owner) == rows
    assert engine_usage(owner, token) == usage
    assert owner.process.poll() is None
    # The holder is still the running server.
    assert json.loads((tmp_path / f"{DATABASE_FILE}.lock").read_text())["pid"] == holder.pid
