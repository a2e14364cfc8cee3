"""Live sockets opened on the real ASGI application (in process, no server) with an allowed
origin; ``tests/usage/conftest.py`` gives each test a fresh broadcaster for them."""

from __future__ import annotations

from channels.testing import WebsocketCommunicator

ORIGIN = (b"origin", b"http://127.0.0.1")
# The page's own host: the origin must be the socket's own (quotaweb.origins).
HOST = (b"host", b"127.0.0.1")


def live_socket(token: str, partition: str = "default", origin=ORIGIN) -> WebsocketCommunicator:
    from quotaweb.asgi import application

    return WebsocketCommunicator(
        application, f"/ws/usage/{partition}/?token={token}", headers=[origin, HOST]
    )


HEARTBEAT = {"type": "heartbeat"}


async def quiet_but_for_heartbeats(socket: WebsocketCommunicator, seconds: float) -> bool:
    """Whether ``socket`` sent nothing but heartbeats for ``seconds``."""
    import asyncio

    loop = asyncio.get_running_loop()
    until = loop.time() + seconds
    while (left := until - loop.time()) > 0:
        if await socket.receive_nothing(timeout=left):
            return True
        if await socket.receive_json_from() != HEARTBEAT:
            return False
    return True
