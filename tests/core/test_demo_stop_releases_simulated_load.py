"""Stopping ``manage.py demo`` with SIGTERM or Ctrl-C (SIGINT) ends the simulated load: the
simulator releases every application it runs, says so in the log, and leaves an empty ledger."""

from __future__ import annotations

import signal
import time

import pytest

from quotaweb.core.simulator import LOG_DRAINED
from tests.configs import SAMPLE_CONFIG
from tests.server_process import ServerProcess, free_port

LEDGER_ROWS = (
    "from quotaweb.allocations.models import Allocation; print(Allocation.objects.count())"
)


def _live_allocations(server: ServerProcess, token: str) -> int:
    total = 0
    for partition in ("default", "gpu"):
        status, page = server.request(
            "GET", f"/api/v1/partitions/{partition}/allocations?per_page=1", token=token
        )
        assert status == 200
        total += page["count"]
    return total


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_the_demo_stops_after_releasing_what_the_simulator_runs(tmp_path, how):
    server = ServerProcess(
        tmp_path, free_port(), config_yaml=SAMPLE_CONFIG.read_text(encoding="utf-8"),
        env={"QUOTAWEB_SIMULATOR": "1", "QUOTAWEB_LOG_LEVEL": "INFO"},
    )
    server.start()
    try:
        server.wait_ready()
        token = server.token("admin")
        deadline = time.monotonic() + 30
        while _live_allocations(server, token) == 0:
            assert time.monotonic() < deadline, "the simulator allocated nothing"
            time.sleep(0.2)

        assert server.stop(how) == 0
    finally:
        server.close()

    log = server.log_text()
    drained = LOG_DRAINED.split("%s", 1)[1].split("%d", 1)[0]  # ": released its "
    assert log.count(drained) == 2, log[-3000:]  # one line per partition
    assert server.manage("shell", "--no-imports", "-c", LEDGER_ROWS).strip() == "0"
