"""A cancelled receive of the channel layer ends, even when the Redis client turns the
cancellation of its blocking pop into a connection error: retried as a lost Redis, it outlived
the consumer that cancelled it, and an event loop closing waited for it for ever (a hang of
the PostgreSQL + Redis test pass, at the end of a socket test)."""

from __future__ import annotations

import asyncio
import contextlib
from unittest import mock

from channels_redis.core import RedisChannelLayer
from redis.exceptions import ConnectionError as RedisConnectionError

from quotaweb.channel_layer import ResilientRedisChannelLayer, redis_host

ENDS_WITHIN_SECONDS = 3


# Whether the pop turns its cancellation into a connection error (turned off to end a receive
# that did not end, so that the test fails instead of hanging).
_converting = {"on": True}


async def _pop_cancelled_as_an_error(self, channel: str) -> dict:
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        if not _converting["on"]:
            raise
        raise RedisConnectionError("the connection was closed in the middle of a read") from None
    raise AssertionError("a pop that never answers answered")


async def _cancel_a_receive(layer) -> BaseException | None:
    with mock.patch.object(RedisChannelLayer, "receive", _pop_cancelled_as_an_error):
        receiving = asyncio.ensure_future(layer.receive("some-channel"))
        await asyncio.sleep(0.05)
        receiving.cancel()
        done, _ = await asyncio.wait({receiving}, timeout=ENDS_WITHIN_SECONDS)
        if not done:
            # Still receiving: stop it for good so that the loop can close, and say so.
            _converting["on"] = False
            receiving.cancel()
            with contextlib.suppress(asyncio.CancelledError, TimeoutError, RedisConnectionError):
                await asyncio.wait_for(receiving, 1)
            return None
    await layer.close_pools()
    return receiving.exception() if not receiving.cancelled() else asyncio.CancelledError()


def test_a_receive_cancelled_in_its_pop_ends_cancelled(redis):
    # A live Redis: without the fix the receive would find it answering and pop again.
    layer = ResilientRedisChannelLayer(hosts=[redis_host(redis.url, connections=10)],
                                       prefix="cancel")
    _converting["on"] = True
    ended = asyncio.run(_cancel_a_receive(layer))
    assert isinstance(ended, asyncio.CancelledError), ended
