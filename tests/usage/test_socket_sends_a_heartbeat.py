"""The live socket says it is alive every ``HEARTBEAT_SECONDS`` even when no usage changes, so a
page notices a frozen server (its connection stays open and silent) within a few seconds."""

from __future__ import annotations

import asyncio

import pytest
from rest_framework.authtoken.models import Token

from quotaweb.usage.owner import HEARTBEAT_SECONDS
from tests.usage.socket_support import HEARTBEAT, live_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture
def token(admin, capped_engines):
    return Token.objects.create(user=admin).key


async def test_heartbeats_come_every_two_seconds_while_nothing_changes(token):
    socket = live_socket(token)
    assert (await socket.connect())[0]
    await socket.send_json_to({"type": "subscribe", "scope": "queues"})
    assert (await socket.receive_json_from(timeout=2))["type"] == "snapshot"
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert await socket.receive_json_from(timeout=HEARTBEAT_SECONDS + 1) == HEARTBEAT
    first = loop.time()
    assert await socket.receive_json_from(timeout=HEARTBEAT_SECONDS + 1) == HEARTBEAT
    gap = loop.time() - first
    assert first - started <= HEARTBEAT_SECONDS + 0.5
    assert HEARTBEAT_SECONDS - 0.5 <= gap <= HEARTBEAT_SECONDS + 0.5
    await socket.disconnect()


async def test_a_socket_without_subscriptions_still_hears_heartbeats(token):
    socket = live_socket(token)
    assert (await socket.connect())[0]
    assert await socket.receive_json_from(timeout=HEARTBEAT_SECONDS + 1) == HEARTBEAT
    await socket.disconnect()
