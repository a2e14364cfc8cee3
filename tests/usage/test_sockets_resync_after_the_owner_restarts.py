"""The engine owner (``manage.py demo``) killed: a socket on a ``manage.py web`` process is told
its figures are stale; the owner started again: the socket gets a fresh snapshot from it, then
the updates of new allocations."""

from __future__ import annotations

import asyncio

from tests.api.allocation_support import GiB
from tests.usage.channel_support import alice_memory, channel_deployment


def test_a_web_process_socket_goes_stale_without_the_owner_and_resyncs_when_it_returns(
    tmp_path,
):
    with channel_deployment(tmp_path) as deployment:

        async def scenario() -> tuple[dict, dict, dict]:
            socket_ = await deployment.socket("user:alice")
            try:
                await deployment.allocate("before", GiB)
                await socket_.next_of("update")
                await asyncio.to_thread(deployment.owner.kill)
                stale = await socket_.next_of("stale")
                deployment.owner.start("demo")
                await asyncio.to_thread(deployment.owner.wait_ready)
                snapshot = await socket_.next_of("snapshot")
                await deployment.allocate("after", 2 * GiB)
                after = await socket_.next_of("update")
                return stale, snapshot, after
            finally:
                socket_.close()

        stale, snapshot, after = asyncio.run(scenario())

    assert stale["reason"]
    # The restarted owner put the ledger's allocation back into its engines.
    assert snapshot["scope"] == "user:alice"
    assert alice_memory(snapshot) == GiB
    assert after["seq"] == snapshot["seq"] + 1
    assert alice_memory(after) == 3 * GiB
