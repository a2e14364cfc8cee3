"""A ``serve`` or ``demo`` whose port is taken says so in one line and exits non-zero before it
reads, loads or writes anything: the database's lock file still names the last process that
held it, and the simulated applications an earlier run left in the ledger are all still there
(a demo that went as far as starting its simulator would have adopted and released them)."""

from __future__ import annotations

import signal
import socket

import pytest

from quotaweb.core.ownership import ERR_PORT, REASON_IN_USE
from tests.core.owner_support import (
    ADMIN,
    DATABASE_FILE,
    ledger_rows,
    production_server,
    simulated_allocations_make,
)


@pytest.mark.parametrize(
    ("command", "env"),
    [("serve", {}), ("demo", {"QUOTAWEB_SIMULATOR": "1", "QUOTAWEB_DEBUG": "1"})],
)
def test_a_busy_port_is_refused_before_anything_is_loaded(tmp_path, command, env):
    server = production_server(tmp_path)
    with server.running("serve"):
        simulated_allocations_make(server, server.token(ADMIN))
        assert server.stop(signal.SIGTERM) == 0
    rows = ledger_rows(server)
    lock = (tmp_path / f"{DATABASE_FILE}.lock").read_text()

    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        result = server.run_manage(command, "--port", str(port), env=env)

    assert result.returncode != 0
    message = ERR_PORT.format(address=f"127.0.0.1:{port}", reason=REASON_IN_USE)
    assert result.stderr.strip() == f"CommandError: {message}"
    assert result.stdout == ""
    assert (tmp_path / f"{DATABASE_FILE}.lock").read_text() == lock
    assert ledger_rows(server) == rows
