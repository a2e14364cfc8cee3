"""Live socket tests: a fresh broadcaster for each test (each runs on its own event loop), and a
private Redis for the channel layer tests that restart or watch one. The sockets themselves are
opened with ``tests/usage/socket_support.live_socket``."""

from __future__ import annotations

import pytest

from quotaweb.usage.broadcaster import broadcaster_reset
from tests.redis_server import RedisServer, redis_server_or_skip


@pytest.fixture(autouse=True)
def _fresh_broadcaster():
    broadcaster_reset()
    yield
    broadcaster_reset()


@pytest.fixture
def redis(tmp_path):
    """A Redis of the test's own (never the machine's shared one), stopped at its end."""
    server = RedisServer(tmp_path, redis_server_or_skip())
    server.start()
    yield server
    server.close()
