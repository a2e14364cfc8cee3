"""The ``elastic`` scope of the live socket: a snapshot of the elastic tree (the REST shape of
``GET .../elastic``), then updates with only the queues whose figures changed, after a demand, a
new cluster total or usage, without a reload."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from quotaweb.allocations import services as allocations
from quotaweb.allocations.services import allocation_request
from quotaweb.elastic import services
from tests.elastic.support import allocation, gpus
from tests.usage.socket_support import live_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture
def token(admin, active_elastic):
    from rest_framework.authtoken.models import Token

    return Token.objects.create(user=admin).key


async def _subscribed(token: str):
    socket = live_socket(token)
    connected, _ = await socket.connect()
    assert connected
    await socket.send_json_to({"type": "subscribe", "scope": "elastic"})
    return socket, await socket.receive_json_from(timeout=2)


def _by_path(rows):
    return {row["queuePath"]: row for row in rows}


async def test_a_demand_and_a_total_arrive_as_updates_of_the_changed_queues(token, admin):
    socket, snapshot = await _subscribed(token)
    assert snapshot["type"] == "snapshot"
    assert snapshot["scope"] == "elastic"
    assert snapshot["data"]["enabled"] is False
    assert "root.a" in _by_path(snapshot["data"]["queues"])

    await sync_to_async(services.elastic_total_set)(
        partition="default", total=gpus(100), author=admin
    )
    update = await socket.receive_json_from(timeout=2)
    assert update["type"] == "update"
    assert update["seq"] == 1
    assert update["partition"]["clusterTotal"] == gpus(100)
    assert update["partition"]["pool"] == gpus(100)

    await sync_to_async(services.elastic_demand_set)(
        partition="default", queue_path="root.d", demand=gpus(70)
    )
    update = await socket.receive_json_from(timeout=2)
    assert update["seq"] == 2
    changed = _by_path(update["changed"])
    assert changed["root.d"]["runtime"] == gpus(70)
    # only what changed: the other leaves asked nothing and got nothing before and after
    assert "root.b" not in changed
    assert "root.e.e1" not in changed
    await socket.disconnect()


async def test_usage_moves_the_runtimes_live(token, admin):
    await sync_to_async(services.elastic_total_set)(
        partition="default", total=gpus(100), author=admin
    )
    socket, _ = await _subscribed(token)
    admission = await sync_to_async(allocations.allocation_create)(
        partition="default", request=allocation_request(allocation("k1", queue="root.b", count=12))
    )
    assert admission.allowed
    update = await socket.receive_json_from(timeout=2)
    b = _by_path(update["changed"])["root.b"]
    assert b["used"] == gpus(12)
    assert b["runtime"] == gpus(12)
    await socket.disconnect()
