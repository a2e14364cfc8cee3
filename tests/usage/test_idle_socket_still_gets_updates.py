"""A socket on a ``manage.py web`` process, idle for longer than a minute (past the Redis read
timeout, the layer's blocking pop and the owner's lease), still receives the next update after an
allocation at the engine owner; neither process lost its channel layer meanwhile."""

from __future__ import annotations

import asyncio
import contextlib

from tests.api.allocation_support import GiB
from tests.usage.channel_support import alice_memory, channel_deployment

IDLE_SECONDS = 65


def test_a_socket_idle_for_over_a_minute_still_gets_the_next_update(tmp_path):
    with channel_deployment(tmp_path) as deployment:

        async def scenario() -> dict:
            socket_ = await deployment.socket("user:alice")
            try:
                # Idle: nothing to send; the client only answers the server's pings, and hears
                # the socket's heartbeat every 2 s.
                loop = asyncio.get_running_loop()
                until = loop.time() + IDLE_SECONDS
                with contextlib.suppress(TimeoutError):
                    while (left := until - loop.time()) > 0:
                        message = await socket_.receive_json(timeout=left)
                        if message != {"type": "heartbeat"}:
                            raise AssertionError(f"an idle socket got {message}")
                await deployment.allocate("idle-1", GiB)
                return await socket_.next_of("update", timeout=30)
            finally:
                socket_.close()

        update = asyncio.run(scenario())
        logs = deployment.logs()

    assert update["scope"] == "user:alice"
    assert alice_memory(update) == GiB
    # Nothing timed out and nothing had to recover: the settings agree with the layer.
    assert "Timeout reading" not in logs
    assert "lost the Redis channel layer" not in logs
    assert "the engine channel stopped" not in logs
