"""The engine owner's side of live usage when sockets live in other processes ("channel" mode).

Sockets in any web process ask the one process that owns the engines to watch a scope, by a
message on the named channel ``ENGINE_CHANNEL``; the owner's broadcaster answers the snapshot to
the socket's own channel and sends updates to the scope's group, which Redis delivers to every
process. Watches are leases: a socket renews them while it lives, so the owner stops building
updates for sockets of a process that died without saying goodbye.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any

from channels.layers import get_channel_layer

from quotaweb.engine.gateway import EngineNotLoaded, UnknownPartition
from quotaweb.usage.broadcaster import broadcaster_get
from quotaweb.usage.scopes import ScopeInvalid, scope_parse

logger = logging.getLogger(__name__)

ENGINE_CHANNEL = "quotaweb-engine"
LEASE_SECONDS = 60.0
RENEW_SECONDS = 20.0
ERR_PARTITION = "partition {partition!r} is not configured"


def _text(message: dict[str, Any]) -> dict[str, str]:
    return {"type": "usage.message", "text": json.dumps(message, separators=(",", ":"))}


async def _handle(layer, message: dict[str, Any]) -> None:
    broadcaster = broadcaster_get()
    kind = message.get("type")
    try:
        partition, reply = str(message["partition"]), str(message["reply"])
        scope = scope_parse(message.get("scope"))
    except (KeyError, ScopeInvalid):
        logger.warning("ignoring a malformed engine message: %r", message)
        return
    try:
        if kind == "engine.watch":
            seq, data = await broadcaster.watch(
                partition, scope, holder=reply, lease=LEASE_SECONDS
            )
        elif kind == "engine.snapshot":
            seq, data = await broadcaster.snapshot(partition, scope)
        elif kind == "engine.renew":
            broadcaster.renew(partition, scope, holder=reply, lease=LEASE_SECONDS)
            return
        elif kind == "engine.unwatch":
            broadcaster.unwatch(partition, scope, holder=reply)
            return
        else:
            logger.warning("ignoring an engine message of type %r", kind)
            return
    except (UnknownPartition, EngineNotLoaded):
        broadcaster.unwatch(partition, scope, holder=reply)
        await layer.send(reply, _text({"type": "error",
                                       "message": ERR_PARTITION.format(partition=partition)}))
        return
    await layer.send(reply, _text(
        {"type": "snapshot", "scope": scope.text, "seq": seq, "data": data}
    ))


async def owner_serve() -> None:
    """Answer watch, renew, unwatch and snapshot requests until cancelled."""
    layer = get_channel_layer()
    tasks: set[asyncio.Task] = set()
    while True:
        message = await layer.receive(ENGINE_CHANNEL)
        # Each in its own task: one slow snapshot must not hold up the others.
        task = asyncio.get_running_loop().create_task(_handle(layer, message))
        tasks.add(task)
        task.add_done_callback(tasks.discard)


def owner_start() -> threading.Thread:
    """Serve the engine channel on a daemon thread with its own event loop (the owner process's
    server has its own loop; the broadcaster and this service share this one)."""
    def run() -> None:
        try:
            asyncio.run(owner_serve())
        except Exception:
            logger.exception("the engine channel stopped; live updates to other processes stop")

    thread = threading.Thread(target=run, name="engine-owner", daemon=True)
    thread.start()
    return thread
