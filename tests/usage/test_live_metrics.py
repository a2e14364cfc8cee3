"""/metrics counts the open live sockets and times each live push the broadcaster sends
(``quotaweb_live_push_seconds``, a histogram)."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from quotaweb import metrics
from quotaweb.allocations import services
from quotaweb.allocations.services import allocation_request
from tests.api.allocation_support import GiB, body
from tests.exposition import Exposition
from tests.usage.socket_support import live_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture
def token(admin, capped_engines):
    from rest_framework.authtoken.models import Token

    metrics.reset()
    return Token.objects.create(user=admin).key


@sync_to_async
def _scrape() -> Exposition:
    from django.test import Client

    from tests.exposition import scrape

    return scrape(Client())


@sync_to_async
def _allocate(key: str) -> None:
    services.allocation_create(partition="default",
                               request=allocation_request(body(key, memory=GiB)))


async def test_a_push_is_timed_and_open_sockets_are_counted(token):
    socket = live_socket(token)
    connected, _ = await socket.connect()
    assert connected
    await socket.send_json_to({"type": "subscribe", "scope": "users"})
    assert (await socket.receive_json_from(timeout=2))["type"] == "snapshot"
    assert (await _scrape()).value("quotaweb_websocket_clients") == 1

    await _allocate("k1")
    assert (await socket.receive_json_from(timeout=2))["type"] == "update"
    exposition = await _scrape()
    assert exposition.type_of("quotaweb_live_push_seconds") == "histogram"
    assert exposition.value("quotaweb_live_push_seconds_count") == 1
    assert exposition.value("quotaweb_live_push_seconds_bucket", le="+Inf") == 1
    assert 0 < (exposition.value("quotaweb_live_push_seconds_sum") or 0) < 2

    await socket.disconnect()
    assert (await _scrape()).value("quotaweb_websocket_clients") == 0
