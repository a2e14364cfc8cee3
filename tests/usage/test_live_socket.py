"""The live usage socket with Channels' communicator: subscribe and snapshot, an update after an
allocation, a burst coalesced into few updates, resync, errors that keep the socket open,
authentication, origin and unknown partitions."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from quotaweb.allocations import services
from quotaweb.allocations.services import allocation_request
from quotaweb.engine.gateway import ERR_NOT_LOADED, ERR_PARTITION
from quotaweb.usage import consumers
from quotaweb.usage.broadcaster import INTERVAL
from tests.api.allocation_support import GiB, body
from tests.usage.socket_support import live_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]



@pytest.fixture
def token(admin, capped_engines):
    from rest_framework.authtoken.models import Token

    return Token.objects.create(user=admin).key



@sync_to_async
def _allocate(key: str, **kwargs) -> None:
    admission = services.allocation_create(
        partition="default", request=allocation_request(body(key, **kwargs))
    )
    assert admission.allowed


async def _subscribed(token: str, scope: str) -> tuple[WebsocketCommunicator, dict]:
    socket = live_socket(token)
    connected, _ = await socket.connect()
    assert connected
    await socket.send_json_to({"type": "subscribe", "scope": scope})
    return socket, await socket.receive_json_from(timeout=2)


async def test_subscribe_answers_a_snapshot_then_updates_after_an_allocation(token):
    socket, snapshot = await _subscribed(token, "users")
    assert snapshot["type"] == "snapshot"
    assert snapshot["scope"] == "users"
    assert snapshot["seq"] == 0
    assert "alice" in [user["userName"] for user in snapshot["data"]]  # named in a limit
    await _allocate("k1", memory=GiB)
    update = await socket.receive_json_from(timeout=2)
    assert update["type"] == "update"
    assert update["seq"] == 1
    assert [user["userName"] for user in update["changed"]] == ["alice"]
    assert update["changed"][0]["queues"]["resourceUsage"] == {"memory": GiB}
    assert update["removed"] == []
    await socket.disconnect()


async def test_a_burst_is_coalesced_into_few_updates_with_the_final_state(token):
    socket, _ = await _subscribed(token, "user:alice")
    for n in range(40):
        await _allocate(f"k{n}", memory=2**20)
    await asyncio.sleep(3 * INTERVAL)
    updates = []
    while not await socket.receive_nothing(timeout=0.1):
        updates.append(await socket.receive_json_from())
    assert 1 <= len(updates) <= 4
    assert [u["seq"] for u in updates] == list(range(1, len(updates) + 1))
    assert updates[-1]["changed"][0]["queues"]["resourceUsage"] == {"memory": 40 * 2**20}
    await socket.disconnect()


async def test_resync_answers_a_fresh_snapshot_with_the_current_seq(token):
    socket, _ = await _subscribed(token, "groups")
    await _allocate("k1", memory=GiB)
    update = await socket.receive_json_from(timeout=2)
    await socket.send_json_to({"type": "resync", "scope": "groups"})
    snapshot = await socket.receive_json_from(timeout=2)
    assert snapshot["type"] == "snapshot"
    assert snapshot["seq"] == update["seq"]
    assert [g["groupName"] for g in snapshot["data"]] == ["ml"]
    await socket.disconnect()


async def test_the_queue_and_events_scopes(token):
    queues, snapshot = await _subscribed(token, "queues")
    assert snapshot["data"]["queuename"] == "root"
    events, first = await _subscribed(token, "events")
    assert first["data"] == []
    await _allocate("k1", memory=GiB)
    update = await queues.receive_json_from(timeout=2)
    assert {node["queuename"] for node in update["changed"]} == {"root", "root.eng"}
    assert all("children" not in node for node in update["changed"])
    feed = await events.receive_json_from(timeout=2)
    assert [(e["type"], e["allocationKey"]) for e in feed["changed"]] == [("allocated", "k1")]
    await queues.disconnect()
    await events.disconnect()


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ("not json", consumers.ERR_JSON.split(":")[0]),
        ('["a list"]', consumers.ERR_JSON.split(":")[0]),
        ('{"type": "dance"}', "unknown message type 'dance'"),
        ('{"type": "subscribe", "scope": "everything"}', "unknown scope 'everything'"),
        ('{"type": "subscribe", "scope": "user:bad name"}', "user name 'bad name'"),
        ('{"type": "resync", "scope": "users"}', "not subscribed to users"),
    ],
)
async def test_a_bad_message_gets_an_error_and_the_socket_stays_open(token, message, error):
    socket = live_socket(token)
    await socket.connect()
    await socket.send_to(text_data=message)
    answer = await socket.receive_json_from(timeout=2)
    assert answer["type"] == "error"
    assert error in answer["message"]
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=2) == {"type": "pong"}
    await socket.disconnect()


async def test_unsubscribed_scopes_get_no_more_updates(token):
    socket, _ = await _subscribed(token, "users")
    await socket.send_json_to({"type": "unsubscribe", "scope": "users"})
    await _allocate("k1", memory=GiB)
    assert await socket.receive_nothing(timeout=3 * INTERVAL)
    await socket.disconnect()


async def test_no_credentials_or_a_bad_token_is_refused(capped_engines):
    for key in ("", "nope"):
        connected, code = await live_socket(key).connect()
        assert (connected, code) == (False, consumers.CLOSE_UNAUTHENTICATED)


async def test_a_foreign_origin_is_refused(token):
    connected, _ = await live_socket(token, origin=(b"origin", b"http://evil.example")).connect()
    assert connected is False


async def test_an_unknown_partition_says_so_and_closes(token):
    socket = live_socket(token, partition="nope")
    connected, _ = await socket.connect()
    assert connected
    answer = await socket.receive_json_from(timeout=2)
    assert answer == {"type": "error", "message": ERR_PARTITION.format(partition="nope")}
    assert (await socket.receive_output(timeout=2))["code"] == consumers.CLOSE_NOT_FOUND
    # The server closed it; the browser's side of the close ends the consumer, as daphne's does.
    await socket.disconnect()


async def test_before_the_engines_start_the_socket_says_so_and_closes(admin):
    from rest_framework.authtoken.models import Token

    key = (await sync_to_async(Token.objects.create)(user=admin)).key
    socket = live_socket(key)
    connected, _ = await socket.connect()
    assert connected
    assert await socket.receive_json_from(timeout=2) == {"type": "error", "message": ERR_NOT_LOADED}
    assert (await socket.receive_output(timeout=2))["code"] == consumers.CLOSE_STARTING
    await socket.disconnect()


async def test_the_events_snapshot_holds_the_newest_events(token, monkeypatch):
    from quotaweb.usage import selectors

    monkeypatch.setattr(selectors, "EVENTS_SNAPSHOT", 2)
    for n in range(5):
        await _allocate(f"k{n}", memory=2**20)
    socket, snapshot = await _subscribed(token, "events")
    assert [event["allocationKey"] for event in snapshot["data"]] == ["k3", "k4"]
    await socket.disconnect()
