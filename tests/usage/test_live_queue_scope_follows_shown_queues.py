"""The ``queue:<path>`` scope of the live socket: a queue and its children, what a tree page
shows of an open queue. Its snapshot is those queues (no grandchildren); a change under another
queue sends it nothing, a change to one of its queues an update with that queue only. A team
link's socket may not follow it."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from quotaweb.teams.services import team_link_create
from tests.usage.large_tree import BIG, engines_large
from tests.usage.pages import allocate
from tests.usage.socket_support import live_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture
def token(viewer):
    from rest_framework.authtoken.models import Token

    engines_large()
    return Token.objects.create(user=viewer).key


async def _next(socket, kind: str) -> dict:
    while True:
        message = await socket.receive_json_from(timeout=3)
        if message["type"] == kind:
            return message


async def test_updates_come_for_the_shown_queues_only(token):
    socket = live_socket(token)
    assert (await socket.connect())[0]
    for scope in ("queue:root.big", "queue:root.d0"):
        await socket.send_json_to({"type": "subscribe", "scope": scope})
    snapshots = {}
    while len(snapshots) < 2:
        message = await _next(socket, "snapshot")
        snapshots[message["scope"]] = message["data"]
    big = [node["queuename"] for node in snapshots["queue:root.big"]]
    assert big[0] == "root.big"
    assert len(big) == 1 + BIG
    assert all("children" not in node for node in snapshots["queue:root.big"])
    assert len(snapshots["queue:root.d0"]) == 81

    assert (await sync_to_async(allocate)("k1", queue="root.big.team-0042", groups=())).allowed
    update = await _next(socket, "update")
    assert update["scope"] == "queue:root.big"
    changed = {node["queuename"]: node for node in update["changed"]}
    # The queue and its parent changed (the root too, but that is not in this scope).
    assert set(changed) == {"root.big", "root.big.team-0042"}
    assert changed["root.big.team-0042"]["runningApps"] == 1

    # Nothing for root.d0, whose queues did not change: only heartbeats until the next change.
    assert (await sync_to_async(allocate)("k2", queue="root.d0.t3", groups=())).allowed
    update = await _next(socket, "update")
    assert update["scope"] == "queue:root.d0"
    assert {node["queuename"] for node in update["changed"]} == {"root.d0", "root.d0.t3"}
    await socket.disconnect()


async def test_a_bad_queue_path_is_refused(token):
    socket = live_socket(token)
    assert (await socket.connect())[0]
    await socket.send_json_to({"type": "subscribe", "scope": "queue:big.x y"})
    message = await _next(socket, "error")
    assert "queue name 'big.x y' is not a valid queue name" in message["message"]
    await socket.disconnect()


async def test_a_team_link_cannot_follow_a_queue(token, admin):
    link = await sync_to_async(team_link_create)(
        partition="default", kind="group", name="ml", author=admin, confirm_unknown=True
    )
    socket = live_socket(link.token)
    assert (await socket.connect())[0]
    await socket.send_json_to({"type": "subscribe", "scope": "queue:root"})
    message = await _next(socket, "error")
    assert "this team link shows only group:ml" in message["message"]
    await socket.disconnect()
