"""Messages no page sends: one too big, or nested too deep to parse, closes the socket with a
clear code (1009, 1008) and an error saying why, with no traceback in the log; snapshots asked
for too often are refused with the seconds to wait, and a resync while one is on its way joins it.
"""

from __future__ import annotations

import logging

import pytest

from quotaweb.usage import consumers
from quotaweb.usage.consumers import (
    CLOSE_POLICY,
    CLOSE_TOO_BIG,
    ERR_TOO_BIG,
    ERR_TOO_DEEP,
    ERR_TOO_OFTEN,
    MAX_MESSAGE_CHARS,
)
from tests.usage.socket_support import live_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture
def token(admin, capped_engines):
    from rest_framework.authtoken.models import Token

    return Token.objects.create(user=admin).key


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(("text", "error", "code"), [
    (_nested(100_000), ERR_TOO_BIG, CLOSE_TOO_BIG),
    ('{"type": "ping", "pad": "' + "x" * MAX_MESSAGE_CHARS + '"}', ERR_TOO_BIG, CLOSE_TOO_BIG),
    # Within the size, but deeper than the parser goes.
    (_nested(MAX_MESSAGE_CHARS // 2), ERR_TOO_DEEP, CLOSE_POLICY),
])
async def test_a_hostile_message_closes_the_socket_with_a_clear_code_and_no_traceback(
    token, caplog, text, error, code
):
    caplog.set_level(logging.INFO)
    socket = live_socket(token)
    connected, _ = await socket.connect()
    assert connected

    await socket.send_to(text_data=text)

    assert await socket.receive_json_from(timeout=5) == {"type": "error", "message": error}
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": code}
    assert [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info] == []
    await socket.disconnect()


async def test_a_message_at_the_limit_is_still_read(token):
    socket = live_socket(token)
    await socket.connect()
    message = '{"type": "ping", "pad": "'
    await socket.send_to(text_data=message + "x" * (MAX_MESSAGE_CHARS - len(message) - 2) + '"}')
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}
    await socket.disconnect()


async def test_snapshots_asked_for_too_often_are_refused_with_the_wait(token, settings):
    settings.QUOTAWEB_SOCKET_SNAPSHOT_BURST = 3
    settings.QUOTAWEB_SOCKET_SNAPSHOTS_PER_MINUTE = 6
    socket = live_socket(token)
    await socket.connect()
    await socket.send_to(text_data='{"type": "subscribe", "scope": "users"}')
    for _ in range(4):
        await socket.send_json_to({"type": "resync", "scope": "users"})
    answers = [await socket.receive_json_from(timeout=5) for _ in range(5)]

    # The subscription and two resyncs: the burst of 3; the next ones wait (10 s per request).
    assert [answer["type"] for answer in answers] == ["snapshot"] * 3 + ["error"] * 2
    refused = answers[3]
    assert refused["scope"] == "users"
    assert 9 < refused["retryAfter"] <= 10
    assert refused["message"] == ERR_TOO_OFTEN.format(
        scope="users", burst=3, per_minute=6, wait=refused["retryAfter"]
    )
    # Refused, not closed: a ping is still answered.
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}
    await socket.disconnect()


async def test_a_resync_while_a_snapshot_is_on_its_way_joins_it(token, monkeypatch):
    socket = live_socket(token)
    await socket.connect()
    await socket.send_json_to({"type": "subscribe", "scope": "users"})
    await socket.receive_json_from(timeout=5)
    asked = []
    real = consumers.UsageConsumer._request

    async def held(self, scope, asked_before=0):
        # As a lost answer: awaited, never sent.
        asked.append(scope.text)
        self.awaited[scope] = (float("inf"), 1)
        return True

    monkeypatch.setattr(consumers.UsageConsumer, "_request", held)
    for _ in range(5):
        await socket.send_json_to({"type": "resync", "scope": "users"})
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}
    assert asked == ["users"]
    monkeypatch.setattr(consumers.UsageConsumer, "_request", real)
    await socket.disconnect()
