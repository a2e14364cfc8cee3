"""Scale-out with Redis: one process owns the engines (manage.py demo), two more serve sockets
(manage.py web); an allocation at the owner reaches sockets held by both web processes."""

from __future__ import annotations

import asyncio
import os
import socket
import uuid
from urllib.parse import urlparse

import pytest

from tests.api.allocation_support import GiB, body
from tests.configs import CAPPED_YAML
from tests.server_process import ServerProcess, free_port
from tests.ws_client import WebSocket

REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"


def _redis_up() -> bool:
    address = urlparse(REDIS_URL)
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex((address.hostname or "127.0.0.1", address.port or 6379)) == 0


@pytest.fixture
def processes(tmp_path):
    if not _redis_up():
        message = f"Redis is not reachable at {REDIS_URL}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    prefix = f"qw-test-{uuid.uuid4().hex[:8]}"
    started = []
    for command in ("demo", "web", "web"):
        server = ServerProcess(tmp_path, free_port(), config_yaml=CAPPED_YAML)
        server.env.update({"REDIS_URL": REDIS_URL, "QUOTAWEB_ENGINE_OWNER": "channel",
                           "QUOTAWEB_CHANNEL_PREFIX": prefix})
        server.start(command)
        started.append(server)
        # The owner first: it migrates the database the others use.
        if command == "demo":
            server.wait_ready()
    try:
        for server in started[1:]:
            server.wait_listening()
        yield started
    finally:
        for server in started:
            server.close()


async def _subscribed(port: int, token: str) -> WebSocket:
    socket_ = await WebSocket.connect(
        "127.0.0.1", port, f"/ws/usage/default/?token={token}",
        origin=f"http://127.0.0.1:{port}",
    )
    await socket_.send_json({"type": "subscribe", "scope": "user:alice"})
    return socket_


def test_an_update_from_the_owner_reaches_sockets_in_two_web_processes(processes):
    owner, first, second = processes
    token = owner.token("admin")

    async def scenario() -> list[dict]:
        sockets = [await _subscribed(web.port, token) for web in (first, second)]
        for socket_ in sockets:
            snapshot = await socket_.receive_news(timeout=10)
            assert (snapshot["type"], snapshot["scope"]) == ("snapshot", "user:alice")
        status, _ = await asyncio.to_thread(
            owner.request, "POST", "/api/v1/partitions/default/allocations", body("k1"), token
        )
        assert status == 201
        updates = [await socket_.receive_news(timeout=5) for socket_ in sockets]
        for socket_ in sockets:
            socket_.close()
        return updates

    for update in asyncio.run(scenario()):
        assert update["type"] == "update"
        assert update["changed"][0]["queues"]["resourceUsage"] == {"memory": GiB}


def test_a_socket_process_is_healthy_without_engines(processes):
    owner, web, _ = processes

    status, health = web.request("GET", "/healthz")
    assert status == 200
    assert health == {"status": "ok", "role": "sockets", "channelLayer": "Redis answered"}
    status, health = owner.request("GET", "/healthz")
    assert status == 200
    assert set(health["engine"]) == {"default"}
