"""A restarted Redis forgot every group: the channel layer tells each listening channel of its
process (``layer.reconnected``) whether or not a receive saw the outage, by Redis's ``run_id``
(``quotaweb.channel_layer``). On a private ``redis-server``."""

from __future__ import annotations

import asyncio

import pytest

from quotaweb.channel_layer import RECONNECTED, ResilientRedisChannelLayer, redis_host
from tests.redis_server import RedisServer

# A bound, not a measure: the layer reads run_id every second.
TOLD_WITHIN_SECONDS = 8


async def _restart_with_listeners(redis: RedisServer, *, receiving: bool) -> list[dict]:
    layer = ResilientRedisChannelLayer(hosts=[redis_host(redis.url, connections=10)],
                                       prefix="restart")
    channels = [await layer.new_channel() for _ in range(3)]
    for channel in channels:
        layer.notify_reconnect(channel)
    # Let the layer read the first Redis's run_id (and a receive start reading Redis).
    first = 1 if receiving else 0
    reading = [asyncio.ensure_future(layer.receive(channel)) for channel in channels[:first]]
    await asyncio.sleep(1.5)
    try:
        await asyncio.to_thread(redis.kill)
        await asyncio.to_thread(redis.start)
        reading += [asyncio.ensure_future(layer.receive(channel))
                    for channel in channels[first:]]
        return list(await asyncio.wait_for(asyncio.gather(*reading), TOLD_WITHIN_SECONDS))
    finally:
        for channel in channels:
            layer.forget_reconnect(channel)
        for task in reading:
            task.cancel()
        await layer.close_pools()


def test_listeners_are_told_of_a_restart_nobody_was_receiving_through(redis):
    told = asyncio.run(_restart_with_listeners(redis, receiving=False))

    assert told == [{"type": RECONNECTED}] * 3


def test_the_receive_reading_redis_for_the_process_is_told_too(redis):
    told = asyncio.run(_restart_with_listeners(redis, receiving=True))

    assert told == [{"type": RECONNECTED}] * 3


def test_listeners_of_a_redis_that_stays_up_are_told_nothing(redis):
    with pytest.raises(TimeoutError):
        asyncio.run(_quiet(redis))


async def _quiet(redis: RedisServer) -> None:
    layer = ResilientRedisChannelLayer(hosts=[redis_host(redis.url, connections=10)],
                                       prefix="restart")
    channel = await layer.new_channel()
    layer.notify_reconnect(channel)
    try:
        await asyncio.wait_for(layer.receive(channel), 3)
    finally:
        layer.forget_reconnect(channel)
        await layer.close_pools()
