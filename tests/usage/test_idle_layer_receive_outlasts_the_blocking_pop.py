"""The root of the idle-socket bug, on a private ``redis-server``: channels-redis's receive
blocks in a pop that answers after ``brpop_timeout`` (5 s) when nothing came. With redis-py's
default read timeout (5 s in redis-py 8) an idle receive raises ``TimeoutError``; with the
project's host settings (``quotaweb.channel_layer.redis_host``) it simply keeps waiting."""

from __future__ import annotations

import asyncio

import pytest
from channels_redis.core import RedisChannelLayer
from redis.exceptions import TimeoutError as RedisTimeout

from quotaweb.channel_layer import SOCKET_TIMEOUT_SECONDS, ResilientRedisChannelLayer, redis_host

# Longer than the pop and than redis-py 8's default read timeout; a bound, not a measure.
IDLE_SECONDS = RedisChannelLayer.brpop_timeout + 3


async def _idle_receive(layer) -> None:
    channel = await layer.new_channel()
    try:
        await asyncio.wait_for(layer.receive(channel), IDLE_SECONDS)
    finally:
        await layer.close_pools()


def test_the_read_timeout_is_longer_than_the_blocking_pop():
    assert RedisChannelLayer.brpop_timeout < SOCKET_TIMEOUT_SECONDS


def test_an_idle_receive_with_the_projects_settings_just_waits(redis):
    layer = ResilientRedisChannelLayer(hosts=[redis_host(redis.url, connections=10)], prefix="idle")

    # Nothing came, and nothing failed: only the test's own bound ends the wait.
    with pytest.raises(TimeoutError) as caught:
        asyncio.run(_idle_receive(layer))
    assert not isinstance(caught.value, RedisTimeout)


def test_an_idle_receive_with_redis_py_8_defaults_times_out(redis):
    """Why the settings exist (with redis-py 8.1.0, the pinned version)."""
    layer = RedisChannelLayer(hosts=[redis.url], prefix="idle")

    with pytest.raises(RedisTimeout):
        asyncio.run(_idle_receive(layer))
