"""The sockets of a crowd that asked for the same snapshot get it as one Redis message per web
process (``send_many``, which the engine owner's answers use), each socket still its own copy
(``quotaweb.channel_layer``, ``quotaweb.usage.owner``)."""

from __future__ import annotations

import asyncio
from typing import Any

from quotaweb.channel_layer import ResilientRedisChannelLayer, redis_host
from quotaweb.usage import owner
from tests.redis_server import RedisServer

EVENT = {"type": "usage.message", "text": '{"type":"snapshot"}', "snapshot": "queues"}


async def _send_to_a_crowd(redis: RedisServer) -> tuple[int, list[dict]]:
    layer = ResilientRedisChannelLayer(hosts=[redis_host(redis.url, connections=10)],
                                       prefix="crowd")
    channels = [await layer.new_channel() for _ in range(5)]
    try:
        await layer.send_many(channels, EVENT)
        queued = await layer.connection(0).zcard(layer.prefix + layer.non_local_name(channels[0]))
        received = [await asyncio.wait_for(layer.receive(channel), 5) for channel in channels]
        return queued, received
    finally:
        await layer.close_pools()


def test_one_message_in_redis_reaches_every_socket_of_the_process(redis):
    queued, received = asyncio.run(_send_to_a_crowd(redis))

    assert queued == 1
    assert received == [EVENT] * 5


class RecordingLayer:
    def __init__(self) -> None:
        self.sent: list[list[str]] = []

    async def send(self, channel: str, event: dict[str, Any]) -> None:
        self.sent.append([channel])

    async def send_many(self, channels: list[str], event: dict[str, Any]) -> None:
        self.sent.append(list(channels))


async def _answer_together(layer: RecordingLayer, events: list[dict[str, Any]]) -> None:
    await asyncio.gather(*(
        owner._reply(layer, f"specific.web!{n}", event) for n, event in enumerate(events)
    ))


def test_the_owners_answers_of_one_snapshot_go_together():
    layer = RecordingLayer()

    asyncio.run(_answer_together(layer, [EVENT] * 4))

    assert layer.sent == [["specific.web!0", "specific.web!1", "specific.web!2", "specific.web!3"]]


def test_answers_of_different_snapshots_go_apart():
    layer = RecordingLayer()

    asyncio.run(_answer_together(layer, [dict(EVENT), dict(EVENT)]))

    assert sorted(layer.sent) == [["specific.web!0"], ["specific.web!1"]]
