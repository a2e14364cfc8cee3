"""Live socket tests: a fresh broadcaster for each test (each runs on its own event loop). The
sockets themselves are opened with ``tests/usage/socket_support.live_socket``."""

from __future__ import annotations

import pytest

from quotaweb.usage.broadcaster import broadcaster_reset


@pytest.fixture(autouse=True)
def _fresh_broadcaster():
    broadcaster_reset()
    yield
    broadcaster_reset()
