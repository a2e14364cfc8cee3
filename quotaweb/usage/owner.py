"""The engine owner's side of live usage when sockets live in other processes ("channel" mode).

Sockets in any web process ask the one process that owns the engines to watch a scope, by a
message on the named channel ``ENGINE_CHANNEL`` (with PostgreSQL peers, each peer answers for
the partitions it owns on a channel and heartbeat group of its own, ``engine_channel_for``);
the owner's broadcaster answers the snapshot to the socket's own channel and sends updates to
the scope's group, which Redis delivers to every process. Watches are leases: a socket renews
them while it lives, so the owner stops building updates for sockets of a process that died
without saying goodbye.

The owner also sends a heartbeat to the group ``OWNER_GROUP`` every ``HEARTBEAT_SECONDS``, the
first one as it starts, carrying the id of this start (``boot``). A socket that hears none for
``OWNER_SILENT_SECONDS`` tells its browser its figures are stale; when heartbeats come again, or
come from a new start, it watches its scopes again and the owner answers fresh snapshots.
Neither a lost Redis nor a failed message ends the engine channel: it logs and goes on.

The answers of one snapshot due together (a crowd asking at once; the broadcaster builds it
once) go as one Redis message per web process, whose channel layer hands it to each socket
(``send_many``): a web process under a crowd read one message, not one per socket.

An answer that cannot be sent (the web process's queue full under a crowd, Redis gone) is sent
again with backoff for up to ``ANSWER_RETRY_SECONDS``; past that the socket, which has heard
nothing, asks again (``quotaweb.usage.consumers``, ``SNAPSHOT_WAIT_SECONDS``).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import threading
import uuid
from typing import Any

from channels.layers import get_channel_layer

from quotaweb.channel_layer import ENGINE_CHANNEL, LAYER_ERRORS
from quotaweb.engine.gateway import ERR_PARTITION, EngineNotLoaded, UnknownPartition
from quotaweb.engine.owners import NotOwner
from quotaweb.usage.broadcaster import broadcaster_get, usage_event
from quotaweb.usage.scopes import ScopeInvalid, scope_parse

logger = logging.getLogger(__name__)

__all__ = ["ENGINE_CHANNEL", "engine_channel_for", "owner_group_for", "owner_serve",
           "owner_start"]

LEASE_SECONDS = 60.0
RENEW_SECONDS = 20.0
OWNER_GROUP = "quotaweb-owner"
HEARTBEAT_SECONDS = 2.0
# Three heartbeats missed: the owner is gone (or Redis is), not merely slow.
OWNER_SILENT_SECONDS = 3 * HEARTBEAT_SECONDS + 1.0
RETRY_FIRST_SECONDS = 0.2
RETRY_MAX_SECONDS = 5.0
# Well within the socket's own wait for its snapshot, after which it asks again anyway.
ANSWER_RETRY_SECONDS = 2.0


async def _handle(layer, message: dict[str, Any]) -> None:
    try:
        await _answer(layer, message)
    except Exception as error:
        # The socket has heard nothing, so it asks again (SNAPSHOT_WAIT_SECONDS).
        logger.info("could not answer %s for %s (%s: %s); the socket asks again",
                    message.get("type"), message.get("reply"), type(error).__name__, error)


# The last snapshot encoded, per scope: (its data, seq, event). The broadcaster hands every
# socket that asks within one tick the same data, so a crowd's answers are encoded once (a large
# scope's snapshot is hundreds of kilobytes of JSON). Holding the data keeps ``is`` exact.
_encoded: dict[tuple[str, str], tuple[Any, int, dict[str, Any]]] = {}
# Past this many scopes the oldest are forgotten: a crowd asks within seconds.
ENCODED_SCOPES = 256


def _snapshot_event(partition: str, scope: str, seq: int, data: Any) -> dict[str, Any]:
    known = _encoded.get((partition, scope))
    if known is not None and known[0] is data and known[1] == seq:
        return known[2]
    event = usage_event({"type": "snapshot", "scope": scope, "seq": seq, "data": data})
    _encoded.pop((partition, scope), None)
    _encoded[(partition, scope)] = (data, seq, event)
    if len(_encoded) > ENCODED_SCOPES:
        del _encoded[next(iter(_encoded))]
    return event


# Answers that carry the same event (a crowd's snapshot of one scope, built once) within this
# long go together: one Redis message per web process, whose layer hands it to each socket.
BATCH_SECONDS = 0.02
# id(event) -> (the sockets' channels, the outcome they await)
_batches: dict[int, tuple[list[str], asyncio.Future]] = {}
_flushing: set[asyncio.Task] = set()


async def _reply(layer, channel: str, event: dict[str, Any]) -> None:
    """Send ``event`` to a socket, with the other answers of the same event due now; raises
    what the send raised at last (``_send``)."""
    if not hasattr(layer, "send_many"):  # the in-memory layer (one process, no Redis)
        await _send(layer, [channel], event)
        return
    batch = _batches.get(id(event))
    if batch is None:
        batch = _batches[id(event)] = ([], asyncio.get_running_loop().create_future())
        task = asyncio.get_running_loop().create_task(_flush(layer, event))
        _flushing.add(task)
        task.add_done_callback(_flushing.discard)
    batch[0].append(channel)
    await asyncio.shield(batch[1])


async def _flush(layer, event: dict[str, Any]) -> None:
    await asyncio.sleep(BATCH_SECONDS)
    channels, outcome = _batches.pop(id(event))
    try:
        await _send(layer, channels, event)
    except Exception as error:
        outcome.set_exception(error)
    else:
        outcome.set_result(None)


async def _send(layer, channels: list[str], event: dict[str, Any]) -> None:
    """Send ``event`` to sockets, again with backoff while a queue is full or Redis gone, for
    up to ``ANSWER_RETRY_SECONDS``; then the last error is raised."""
    loop = asyncio.get_running_loop()
    give_up_at = loop.time() + ANSWER_RETRY_SECONDS
    delay = RETRY_FIRST_SECONDS / 4
    while True:
        try:
            if len(channels) == 1:
                await layer.send(channels[0], event)
            else:
                await layer.send_many(channels, event)
            return
        except LAYER_ERRORS:
            if loop.time() + delay > give_up_at:
                raise
        # Jitter: the answers that failed together do not come back together.
        await asyncio.sleep(delay * random.uniform(0.5, 1.0))
        delay = min(delay * 2, RETRY_MAX_SECONDS)


async def _answer(layer, message: dict[str, Any]) -> None:
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
        elif kind == "engine.renew":
            broadcaster.renew(partition, scope, holder=reply, lease=LEASE_SECONDS)
            return
        elif kind == "engine.unwatch":
            broadcaster.unwatch(partition, scope, holder=reply)
            return
        else:
            logger.warning("ignoring an engine message of type %r", kind)
            return
    except NotOwner:
        # Taken by another peer meanwhile: the socket follows it there and asks again
        # (``SNAPSHOT_WAIT_SECONDS``); no error for the browser.
        broadcaster.unwatch(partition, scope, holder=reply)
        return
    except (UnknownPartition, EngineNotLoaded):
        broadcaster.unwatch(partition, scope, holder=reply)
        await _reply(layer, reply, usage_event(
            {"type": "error", "message": ERR_PARTITION.format(partition=partition)}
        ))
        return
    await _reply(layer, reply, _snapshot_event(partition, scope.text, seq, data))


def engine_channel_for(peer: str) -> str:
    """The engine channel of one peer (PostgreSQL leases: each answers for the partitions it
    owns). Named by a digest of the peer's name, which may hold characters a channel name may
    not."""
    return f"{ENGINE_CHANNEL}.{_digest(peer)}"


def owner_group_for(peer: str) -> str:
    """The group one peer's heartbeats go to (``engine_channel_for``)."""
    return f"{OWNER_GROUP}.{_digest(peer)}"


def _digest(peer: str) -> str:
    return hashlib.sha256(peer.encode()).hexdigest()[:16]


async def owner_serve(
    boot: str | None = None, *, channel: str = ENGINE_CHANNEL, group: str = OWNER_GROUP
) -> None:
    """Answer watch, renew and unwatch requests on ``channel``, and send heartbeats to
    ``group``, until cancelled. A failed receive (Redis gone) is logged and retried with
    backoff, never the end."""
    layer = get_channel_layer()
    boot = boot or uuid.uuid4().hex
    loop = asyncio.get_running_loop()
    tasks: set[asyncio.Task] = set()
    heartbeat = loop.create_task(_heartbeat(layer, boot, group))
    lost_at: float | None = None
    delay = RETRY_FIRST_SECONDS
    try:
        while True:
            try:
                message = await layer.receive(channel)
            except LAYER_ERRORS as error:
                if lost_at is None:
                    lost_at = loop.time()
                    logger.warning("the engine channel lost Redis (%s: %s); retrying",
                                   type(error).__name__, error)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX_SECONDS)
                continue
            if lost_at is not None:
                logger.info("the engine channel receives again after %.1f s",
                            loop.time() - lost_at)
                lost_at, delay = None, RETRY_FIRST_SECONDS
            if message.get("type", "").startswith("layer."):
                continue  # the layer's own notices (it logged the outage itself)
            # Each in its own task: one slow snapshot must not hold up the others.
            task = loop.create_task(_handle(layer, message))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
    finally:
        heartbeat.cancel()


async def _heartbeat(layer, boot: str, group: str) -> None:
    """Tell the sockets of every process that this owner (this start of it) is alive."""
    failing = False
    while True:
        try:
            await layer.group_send(group, {"type": "owner.heartbeat", "boot": boot})
        except LAYER_ERRORS as error:
            if not failing:
                logger.warning("the owner's heartbeat failed (%s: %s); sockets will show stale "
                               "figures until it gets through", type(error).__name__, error)
            failing = True
        else:
            if failing:
                logger.info("the owner's heartbeat gets through again")
            failing = False
        await asyncio.sleep(HEARTBEAT_SECONDS)


# How often a stoppable engine channel looks whether it was told to stop.
STOP_POLL_SECONDS = 0.2


def owner_start(
    *, channel: str = ENGINE_CHANNEL, group: str = OWNER_GROUP,
    stop: threading.Event | None = None,
) -> threading.Thread:
    """Serve the engine channel on a daemon thread with its own event loop (the owner process's
    server has its own loop; the broadcaster and this service share this one), until ``stop``
    is set (a peer's, with its other threads) or, without one, until the process ends."""
    async def serve() -> None:
        serving = asyncio.ensure_future(owner_serve(channel=channel, group=group))
        if stop is None:
            await serving
            return
        while not serving.done() and not stop.is_set():
            await asyncio.sleep(STOP_POLL_SECONDS)
        serving.cancel()
        await asyncio.gather(serving, return_exceptions=True)

    def run() -> None:
        try:
            asyncio.run(serve())
        except Exception:
            logger.exception("the engine channel stopped; live updates to other processes stop")

    thread = threading.Thread(target=run, name="engine-owner", daemon=True)
    thread.start()
    return thread
