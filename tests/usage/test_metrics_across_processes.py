"""Scale-out with one ``PROMETHEUS_MULTIPROC_DIR``: the engine owner (manage.py demo) counts the
allocation and times the push, the web process (manage.py web) holds the socket, and /metrics of
either process shows all of it; the engine figures come from the owner, which has the engines."""

from __future__ import annotations

import asyncio
import os
import time
import uuid

import pytest

from tests.api.allocation_support import GiB, body
from tests.configs import CAPPED_YAML
from tests.exposition import Exposition
from tests.server_process import ServerProcess, free_port
from tests.usage.test_sockets_across_processes import REDIS_URL, _redis_up, _subscribed


@pytest.fixture
def processes(tmp_path):
    if not _redis_up():
        message = f"Redis is not reachable at {REDIS_URL}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    shared = tmp_path / "prometheus"
    shared.mkdir()
    prefix = f"qw-test-{uuid.uuid4().hex[:8]}"
    started = []
    for command in ("demo", "web"):
        server = ServerProcess(tmp_path, free_port(), config_yaml=CAPPED_YAML)
        server.env.update({"REDIS_URL": REDIS_URL, "QUOTAWEB_ENGINE_OWNER": "channel",
                           "QUOTAWEB_CHANNEL_PREFIX": prefix,
                           "PROMETHEUS_MULTIPROC_DIR": str(shared)})
        server.start(command)
        started.append(server)
        if command == "demo":
            server.wait_ready()  # it migrates the database the web process uses
    try:
        started[1].wait_listening()
        yield started
    finally:
        for server in started:
            server.close()


def _scrape(server: ServerProcess) -> Exposition:
    connection = server.connection(timeout=10)
    try:
        connection.request("GET", "/metrics")
        response = connection.getresponse()
        assert response.status == 200
        return Exposition(response.read().decode())
    finally:
        connection.close()


def test_metrics_of_either_process_add_up_both(processes):
    owner, web = processes
    token = owner.token("admin")

    async def scenario() -> None:
        socket_ = await _subscribed(web.port, token)
        assert (await socket_.receive_news(timeout=10))["type"] == "snapshot"
        status, _ = await asyncio.to_thread(
            owner.request, "POST", "/api/v1/partitions/default/allocations",
            body("k1", memory=GiB), token,
        )
        assert status == 201
        assert (await socket_.receive_news(timeout=5))["type"] == "update"

        for server in (web, owner):
            seen = await asyncio.to_thread(_scrape, server)
            assert seen.value("quotaweb_allocations_total") == 1  # counted at the owner
            assert seen.value("quotaweb_allocation_seconds_count", operation="allocate") == 1
            assert (seen.value("quotaweb_live_push_seconds_count") or 0) >= 1
            assert (seen.value("quotaweb_config_apply_seconds_count") or 0) >= 1
            assert seen.value("quotaweb_websocket_clients") == 1  # held by the web process
        assert (await asyncio.to_thread(_scrape, owner)).value(
            "quotaweb_live_allocations", partition="default") == 1
        # The web process has no engines, so no engine figures of its own.
        assert (await asyncio.to_thread(_scrape, web)).samples("quotaweb_live_allocations") == []
        socket_.close()

    asyncio.run(scenario())
    deadline = time.monotonic() + 10
    while _scrape(owner).value("quotaweb_websocket_clients") != 0:
        assert time.monotonic() < deadline, "the closed socket is still counted"
        time.sleep(0.1)
