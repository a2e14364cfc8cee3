"""The ``tree:<name>`` scope of the live socket: a snapshot of the quota tree with its recent
feed, then, as consumers come, borrow, get preempted and go, updates with the tree's nodes and
the new feed entries (who preempted whom, where, by which priority), without a reload."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from quotaweb.quotatrees import services
from tests.quotatrees.support import example_document, tree_document
from tests.usage.socket_support import live_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture
def token(admin, active_sample):
    from rest_framework.authtoken.models import Token

    services.tree_put(tree="example", document=example_document(), author=admin)
    services.tree_put(tree="treeA", document=tree_document(
        "treeA", ["count"], [("A", None, 3), ("B", "A", 1), ("C", "A", 1)]), author=admin)
    return Token.objects.create(user=admin).key


async def _subscribed(token: str, scope: str):
    socket = live_socket(token, partition="default")
    connected, _ = await socket.connect()
    assert connected
    await socket.send_json_to({"type": "subscribe", "scope": scope})
    return socket, await socket.receive_json_from(timeout=2)


def _nodes(rows):
    return {row["name"]: row for row in rows}


async def test_consumers_arrive_as_updates_with_their_nodes(token):
    socket, snapshot = await _subscribed(token, "tree:example")
    assert snapshot["type"] == "snapshot"
    assert snapshot["data"]["tree"]["root"] == "A"
    assert _nodes(snapshot["data"]["tree"]["nodes"])["N"]["consumers"] == []

    allocate = sync_to_async(services.tree_allocate)
    for cid in ("a", "b", "c"):
        await allocate(tree="example", body={"id": cid, "groupID": "N", "request": {"cpu": 1}})
    changed = {}
    events = []
    while True:
        update = await socket.receive_json_from(timeout=2)
        assert update["type"] == "update"
        changed.update(_nodes(update["changed"]))
        events += update["events"]
        if [e["consumer"] for e in events] == ["a", "b", "c"]:
            break
    assert changed["H"]["consumers"] == ["c"]  # borrowing above its group N
    assert changed["N"]["consumers"] == ["a", "b"]
    assert events[-1]["kind"] == "allocated"
    assert events[-1]["nodes"] == {"example": "H"}
    await socket.disconnect()


async def test_a_preemption_shows_in_the_feed_with_who_and_why(token):
    socket, _ = await _subscribed(token, "tree:treeA")
    allocate = sync_to_async(services.tree_allocate)
    for cid, amount, priority in (("C1", 1, 0), ("C2", 1, 0), ("C", 2, 1)):
        await allocate(tree="treeA", body={"id": cid, "groupID": "B",
                                           "request": {"count": amount}, "priority": priority})
    events = []
    while not any(e["kind"] == "preempted" for e in events):
        events += (await socket.receive_json_from(timeout=2))["events"]
    (preempted,) = [e for e in events if e["kind"] == "preempted"]
    assert preempted["consumer"] == "C2"
    assert preempted["preemption"]["by"] == "C"
    assert preempted["preemption"]["node"] == "A"
    assert (preempted["preemption"]["priority"], preempted["preemption"]["byPriority"]) == (0, 1)
    await socket.disconnect()


async def test_an_unknown_tree_snapshot_is_empty_and_a_bad_name_an_error(token):
    socket, snapshot = await _subscribed(token, "tree:nope")
    assert snapshot["data"] is None
    await socket.send_json_to({"type": "subscribe", "scope": "tree:bad name"})
    error = await socket.receive_json_from(timeout=2)
    assert error["type"] == "error"
    assert "tree name" in error["message"]
    await socket.disconnect()
