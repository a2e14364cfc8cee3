"""A member's live socket (by session or by their personal token) follows their own user and
their groups, like a team link of their own; any other scope is an error with no data, and a
role change in the directory closes the socket at the next periodic check."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.test import override_settings

from quotaweb.accounts.directory import directory_user_sync
from quotaweb.usage import consumers
from tests.usage.socket_support import live_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture
def member_token(member, capped_engines):
    from quotaweb.accounts.services import personal_token_create

    return personal_token_create(user=member)


async def test_a_member_follows_herself_and_her_group_only(member_token):
    socket = live_socket(member_token)
    assert (await socket.connect())[0]
    for own in ("user:alice", "group:ml"):
        await socket.send_json_to({"type": "subscribe", "scope": own})
        snapshot = await socket.receive_json_from(timeout=2)
        assert (snapshot["type"], snapshot["scope"]) == ("snapshot", own)
    for other in ("users", "groups", "user:bob", "group:other", "events", "queues", "elastic"):
        await socket.send_json_to({"type": "subscribe", "scope": other})
        refused = await socket.receive_json_from(timeout=2)
        assert refused == {
            "type": "error",
            "message": consumers.ERR_MEMBER_SCOPE.format(
                scopes="group:ml, user:alice", scope=other
            ),
        }
    await socket.disconnect()


@override_settings(QUOTAWEB_SOCKET_RECHECK_SECONDS=1, QUOTAWEB_VIEWER_GROUPS=["operators"])
async def test_a_group_change_closes_the_socket_for_a_new_one(member_token):
    socket = live_socket(member_token)
    assert (await socket.connect())[0]
    await sync_to_async(directory_user_sync)(
        username="alice", groups=["ml", "operators"], source="ldap"
    )
    closing = await socket.receive_json_from(timeout=4)
    assert closing == {"type": "error", "message": consumers.ERR_REVOKED}
    assert (await socket.receive_output(timeout=2))["code"] == consumers.CLOSE_FORBIDDEN
    # Opened again, the socket has the viewer's rights.
    again = live_socket(member_token)
    assert (await again.connect())[0]
    await again.send_json_to({"type": "subscribe", "scope": "users"})
    assert (await again.receive_json_from(timeout=2))["type"] == "snapshot"
    await again.disconnect()
