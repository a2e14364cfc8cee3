"""A crowd of sockets on one ``manage.py web`` process: every one gets its snapshot.

The engine owner answers each socket's snapshot through Redis, all of a web process's answers
in one queue. 200 sockets opened at once overflowed it (before the fix 65 never got a snapshot,
and nothing asked again); after a Redis restart under 300, 101 got no fresh one within 10 s.
Now every socket has a snapshot within ``BOUND_SECONDS`` (benchmarks/sockets.py measures
1,000)."""

from __future__ import annotations

import asyncio

from tests.usage.channel_support import channel_deployment, open_crowd, snapshots_within

CROWD = 200
BOUND_SECONDS = 10
# Opened a few at a time (as pages open over a day), each with its snapshot, before Redis goes.
RESTART_CROWD = 300
STEP = 50


def test_every_socket_of_a_crowd_gets_its_snapshot(tmp_path):
    with channel_deployment(tmp_path) as deployment:

        async def scenario() -> int:
            sockets = await open_crowd(deployment, CROWD)
            try:
                return await snapshots_within(sockets, BOUND_SECONDS)
            finally:
                for socket_ in sockets:
                    socket_.close()

        served = asyncio.run(scenario())
        log = deployment.logs()

    assert served == CROWD, log[-3000:]


def test_every_socket_of_a_crowd_resyncs_after_a_redis_restart(tmp_path):
    with channel_deployment(tmp_path) as deployment:

        async def scenario() -> int:
            sockets = []
            try:
                for _ in range(RESTART_CROWD // STEP):
                    step = await open_crowd(deployment, STEP)
                    sockets += step
                    assert await snapshots_within(step, 60) == STEP
                deployment.redis.kill()
                await asyncio.sleep(1)
                await asyncio.to_thread(deployment.redis.start)
                return await snapshots_within(sockets, BOUND_SECONDS)
            finally:
                for socket_ in sockets:
                    socket_.close()

        served = asyncio.run(scenario())
        log = deployment.logs()

    assert served == RESTART_CROWD, log[-3000:]
