"""Live sockets opened on the real ASGI application (in process, no server) with an allowed
origin; ``tests/usage/conftest.py`` gives each test a fresh broadcaster for them."""

from __future__ import annotations

from channels.testing import WebsocketCommunicator

ORIGIN = (b"origin", b"http://127.0.0.1")


def live_socket(token: str, partition: str = "default", origin=ORIGIN) -> WebsocketCommunicator:
    from quotaweb.asgi import application

    return WebsocketCommunicator(
        application, f"/ws/usage/{partition}/?token={token}", headers=[origin]
    )
