"""Who may read what on the live socket: a team link reads only its team's scope in its
partition; a revoked link, a deleted API token or a deactivated account closes the socket at the
next periodic check."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.test import override_settings

from quotaweb.teams.services import team_link_create, team_link_revoke
from quotaweb.usage import consumers
from tests.usage.socket_support import live_socket, quiet_but_for_heartbeats

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]



@pytest.fixture
def ml_link(admin, capped_engines):
    return team_link_create(partition="default", kind="group", name="ml", author=admin)



async def test_a_team_link_reads_its_group_and_nothing_else(ml_link):
    socket = live_socket(ml_link.token)
    assert (await socket.connect())[0]
    await socket.send_json_to({"type": "subscribe", "scope": "group:ml"})
    snapshot = await socket.receive_json_from(timeout=2)
    assert (snapshot["type"], snapshot["scope"]) == ("snapshot", "group:ml")
    for other in ("users", "groups", "user:alice", "group:web", "events", "queues"):
        await socket.send_json_to({"type": "subscribe", "scope": other})
        refused = await socket.receive_json_from(timeout=2)
        assert refused == {
            "type": "error",
            "message": consumers.ERR_LINK_SCOPE.format(scope="group:ml", partition="default"),
        }
    await socket.disconnect()


async def test_a_team_link_is_refused_in_another_partition(admin, capped_engines):
    link = await sync_to_async(team_link_create)(
        partition="default", kind="user", name="alice", author=admin
    )
    socket = live_socket(link.token, partition="gpu")
    assert (await socket.connect())[0]
    assert (await socket.receive_json_from(timeout=2))["type"] == "error"
    assert (await socket.receive_output(timeout=2))["code"] == consumers.CLOSE_FORBIDDEN


@override_settings(QUOTAWEB_SOCKET_RECHECK_SECONDS=1)
async def test_revoking_a_link_closes_its_sockets(ml_link):
    socket = live_socket(ml_link.token)
    assert (await socket.connect())[0]
    await sync_to_async(team_link_revoke)(link_id=ml_link.pk)
    closing = await socket.receive_json_from(timeout=3)
    assert closing == {"type": "error", "message": consumers.ERR_REVOKED}
    assert (await socket.receive_output(timeout=2))["code"] == consumers.CLOSE_FORBIDDEN
    refused = await live_socket(ml_link.token).connect()
    assert refused == (False, consumers.CLOSE_UNAUTHENTICATED)


@override_settings(QUOTAWEB_SOCKET_RECHECK_SECONDS=1)
async def test_a_deleted_api_token_or_a_deactivated_account_closes_thelive_socket(
    admin, viewer, capped_engines
):
    from rest_framework.authtoken.models import Token

    token = await sync_to_async(Token.objects.create)(user=admin)
    socket = live_socket(token.key)
    assert (await socket.connect())[0]
    await sync_to_async(token.delete)()
    assert (await socket.receive_json_from(timeout=3))["message"] == consumers.ERR_REVOKED

    viewer_token = await sync_to_async(Token.objects.create)(user=viewer)
    socket = live_socket(viewer_token.key)
    assert (await socket.connect())[0]
    viewer.is_active = False
    await sync_to_async(viewer.save)()
    assert (await socket.receive_json_from(timeout=3))["message"] == consumers.ERR_REVOKED


async def test_a_valid_socket_stays_open_through_checks(admin, capped_engines):
    from rest_framework.authtoken.models import Token

    token = await sync_to_async(Token.objects.create)(user=admin)
    with override_settings(QUOTAWEB_SOCKET_RECHECK_SECONDS=1):
        socket = live_socket(token.key)
        assert (await socket.connect())[0]
        assert await quiet_but_for_heartbeats(socket, 2.5)
        await socket.send_json_to({"type": "ping"})
        assert await socket.receive_json_from(timeout=2) == {"type": "pong"}
        await socket.disconnect()
