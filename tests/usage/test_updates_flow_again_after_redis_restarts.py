"""Redis killed and started again (with nothing kept, so groups and queued messages are gone):
an open socket on a ``manage.py web`` process gets a fresh snapshot once Redis is back, then the
updates of new allocations at the engine owner; both processes say in their logs that they lost
Redis and that it is back."""

from __future__ import annotations

import asyncio

from tests.api.allocation_support import GiB
from tests.usage.channel_support import alice_memory, channel_deployment


def test_after_a_redis_restart_a_socket_resyncs_and_updates_flow_again(tmp_path):
    with channel_deployment(tmp_path) as deployment:

        async def scenario() -> tuple[dict, dict, dict]:
            socket_ = await deployment.socket("user:alice")
            try:
                await deployment.allocate("before", GiB)
                before = await socket_.next_of("update")
                deployment.redis.kill()
                await asyncio.sleep(1)
                deployment.redis.start()
                snapshot = await socket_.next_of("snapshot")
                await deployment.allocate("after", 2 * GiB)
                after = await socket_.next_of("update")
                return before, snapshot, after
            finally:
                socket_.close()

        before, snapshot, after = asyncio.run(scenario())
        logs = deployment.logs()

    assert alice_memory(before) == GiB
    assert snapshot["scope"] == "user:alice"
    assert alice_memory(snapshot) == GiB
    assert after["seq"] == snapshot["seq"] + 1
    assert alice_memory(after) == 3 * GiB
    assert "lost the Redis channel layer" in logs
    assert "the Redis channel layer is back" in logs
