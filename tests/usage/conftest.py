"""Live socket tests: a fresh broadcaster for each test (each runs on its own event loop), and
sockets opened on the real ASGI application with an allowed origin."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

from quotaweb.usage.broadcaster import broadcaster_reset

ORIGIN = (b"origin", b"http://127.0.0.1")


@pytest.fixture(autouse=True)
def _fresh_broadcaster():
    broadcaster_reset()
    yield
    broadcaster_reset()


def live_socket(token: str, partition: str = "default", origin=ORIGIN) -> WebsocketCommunicator:
    from quotaweb.asgi import application

    return WebsocketCommunicator(
        application, f"/ws/usage/{partition}/?token={token}", headers=[origin]
    )
