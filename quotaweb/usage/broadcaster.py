"""The broadcaster: turns the engines' change logs into coalesced updates for live sockets.

One per process that serves sockets (and owns the engines). Every ``INTERVAL`` it reads, per
partition that someone watches, what changed since its last look (the engine's change log and
the events feed), builds only the changed users, groups and queue nodes of each watched scope,
and sends one ``update`` per scope through the channel layer to that scope's group. So a scope
gets at most one update per interval, within one interval (plus the build) of the change, and
the work follows what changed, not the number of users.

Each scope numbers its messages (``seq``). A snapshot carries the number of the last update
built before it, under the same per-partition lock as the updates, so a client that applies
updates numbered exactly one above what it has never misses or double-applies a change; a gap
means it lost something and asks for a resync. After a config switch (the change log says
``reset``) every watched scope gets a fresh snapshot instead of an update.

A scope's snapshot is built at most once per interval: until the next tick every socket that
asks gets the one built (a crowd subscribing, or a viewer resyncing in a loop, cost one build).
That is exact: the next update is built from the marks of the last tick, before the snapshot
was read, so it carries everything that changed after it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from quotaweb import metrics
from quotaweb.channel_layer import LAYER_ERRORS
from quotaweb.engine.owners import NotOwner
from quotaweb.usage import selectors
from quotaweb.usage.scopes import Scope

logger = logging.getLogger(__name__)

INTERVAL = 0.2


def _in_thread(function, /, **kwargs):
    # Engine reads hold a partition lock and may take milliseconds: never in the event loop.
    return sync_to_async(function, thread_sensitive=False)(**kwargs)


class Broadcaster:
    def __init__(self) -> None:
        # (partition, scope) -> holder (a socket's channel) -> lease end, None for no end.
        self._watched: dict[tuple[str, Scope], dict[str, float | None]] = {}
        self._seq: dict[tuple[str, Scope], int] = {}
        # partition -> (engine seq, events seq, elastic quota's computation number)
        self._marks: dict[str, tuple[int, int, int]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        # (partition, tree) -> (change number, feed number) its last message showed
        self._tree_marks: dict[tuple[str, str], tuple[int, int]] = {}
        self._task: asyncio.Task | None = None
        self._fan_out_failing = False
        # (partition, scope) -> its snapshot (seq, data) built since the partition's last tick
        self._built: dict[tuple[str, Scope], tuple[int, Any]] = {}

    # -- sockets come and go ------------------------------------------------------------------

    async def watch(
        self, partition: str, scope: Scope, *, holder: str, lease: float | None = None
    ) -> tuple[int, Any]:
        """Start sending ``scope``'s updates for ``holder``; answers its snapshot ``(seq, data)``.
        With ``lease`` (seconds) the holder must watch again before it ends, or it is dropped:
        a socket in another process may vanish without unwatching."""
        async with self._lock(partition):
            if partition not in self._marks:
                # Only where the logs stand now: what came before is in the snapshots.
                delta = await _in_thread(
                    selectors.partition_delta, partition=partition, engine_seq=-1, events_seq=0,
                    with_events=False, elastic_generation=0,
                )
                self._marks[partition] = (delta.engine_seq, delta.events_seq, delta.elastic_to)
            self.renew(partition, scope, holder=holder, lease=lease)
            # After counting the scope: the loop stops by itself when nothing is watched.
            self._ensure_running()
            return await self._snapshot(partition, scope)

    def renew(
        self, partition: str, scope: Scope, *, holder: str, lease: float | None = None
    ) -> None:
        ends = None if lease is None else asyncio.get_running_loop().time() + lease
        self._watched.setdefault((partition, scope), {})[holder] = ends

    def unwatch(self, partition: str, scope: Scope, *, holder: str) -> None:
        key = (partition, scope)
        holders = self._watched.get(key, {})
        holders.pop(holder, None)
        if not holders:
            self._watched.pop(key, None)
            self._built.pop(key, None)
            if scope.kind == "tree":
                self._tree_marks.pop((partition, scope.name), None)
            if not any(p == partition for p, _ in self._watched):
                self._marks.pop(partition, None)

    def _expire(self, now: float) -> None:
        for (partition, scope), holders in list(self._watched.items()):
            for holder, ends in list(holders.items()):
                if ends is not None and ends < now:
                    self.unwatch(partition, scope, holder=holder)

    async def _snapshot(self, partition: str, scope: Scope) -> tuple[int, Any]:
        built = self._built.get((partition, scope))
        if built is not None:
            return built
        if scope.kind == "tree":
            # Read before the snapshot: a change in between is sent again, never lost.
            marks = await _in_thread(selectors.tree_marks, trees=[scope.name])
            self._tree_marks[(partition, scope.name)] = marks[scope.name]
        data = await _in_thread(selectors.scope_snapshot, partition=partition, scope=scope)
        built = self._built[(partition, scope)] = (self._seq.get((partition, scope), 0), data)
        return built

    def _lock(self, partition: str) -> asyncio.Lock:
        return self._locks.setdefault(partition, asyncio.Lock())

    def _ensure_running(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    # -- the loop ------------------------------------------------------------------------------

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        next_at = loop.time()
        while self._watched:
            # Ticks keep their cadence whatever a tick took, so a change waits one interval at
            # most before its update is built.
            next_at = max(next_at + INTERVAL, loop.time())
            await asyncio.sleep(next_at - loop.time())
            try:
                await self.tick()
            except Exception:
                # A failed tick (an engine being replaced, say) must not stop live updates.
                logger.exception("live usage broadcast failed; retrying next tick")
        self._task = None

    async def tick(self) -> None:
        self._expire(asyncio.get_running_loop().time())
        layer = get_channel_layer()
        for partition in sorted({p for p, _ in self._watched}):
            async with self._lock(partition):
                try:
                    await self._partition_tick(layer, partition)
                except NotOwner:
                    # Another peer took it: its sockets watch there now (consumers follow the
                    # owner), and the other partitions' updates go on.
                    self._forget(partition)

    def _forget(self, partition: str) -> None:
        for key in [key for key in self._watched if key[0] == partition]:
            for holder in list(self._watched.get(key, {})):
                self.unwatch(partition, key[1], holder=holder)

    async def _partition_tick(self, layer, partition: str) -> None:
        if partition not in self._marks:
            return
        engine_seq, events_seq, elastic_generation = self._marks[partition]
        for key in [key for key in self._built if key[0] == partition]:
            del self._built[key]
        read_at = time.perf_counter()
        scopes = [scope for p, scope in self._watched if p == partition]
        elastic = any(s.kind == "elastic" for s in scopes)
        trees = sorted({s.name for s in scopes if s.kind == "tree"})
        delta = await _in_thread(
            selectors.partition_delta, partition=partition, engine_seq=engine_seq,
            events_seq=events_seq, with_events=any(s.kind == "events" for s in scopes),
            elastic_generation=elastic_generation if elastic else None, trees=trees,
        )
        self._marks[partition] = (
            delta.engine_seq, delta.events_seq,
            delta.elastic_to if elastic else elastic_generation,
        )
        messages = await _in_thread(
            selectors.partition_updates, partition=partition, scopes=scopes, delta=delta,
            tree_marks_sent={tree: mark for (p, tree), mark in self._tree_marks.items()
                             if p == partition},
        )
        for tree, mark in delta.trees.items():
            self._tree_marks[(partition, tree)] = mark
        for scope, message in messages:
            key = (partition, scope)
            message["seq"] = self._seq[key] = self._seq.get(key, 0) + 1
            # Encoded once here rather than once per socket by each consumer.
            sent = await self._fan_out(layer, scope.group_name(partition), usage_event(message))
            if sent:
                metrics.observe("quotaweb_live_push_seconds", time.perf_counter() - read_at)

    async def _fan_out(self, layer, group: str, event: dict[str, Any]) -> bool:
        """One group send (True when sent); a failure (Redis gone) is logged once and the next
        scope goes on.
        The lost update leaves a gap in the scope's numbers, so its sockets resync, and after a
        Redis restart they re-join and resync anyway."""
        try:
            await layer.group_send(group, event)
        except LAYER_ERRORS as error:
            if not self._fan_out_failing:
                logger.warning("live updates cannot be sent (%s: %s); sockets resync when the "
                               "channel layer is back", type(error).__name__, error)
            self._fan_out_failing = True
            return False
        if self._fan_out_failing:
            logger.info("live updates are sent again")
            self._fan_out_failing = False
        return True


def usage_event(message: dict[str, Any]) -> dict[str, Any]:
    """The channel layer event that carries ``message`` to sockets (``usage_message``), encoded
    once; a snapshot says its scope, so the socket knows the one it waited for came."""
    event = {"type": "usage.message", "text": json.dumps(message, separators=(",", ":"))}
    if message["type"] == "snapshot":
        event["snapshot"] = message["scope"]
    return event


_broadcaster: Broadcaster | None = None


def broadcaster_get() -> Broadcaster:
    """This process's broadcaster, made on first use (by the first socket that subscribes)."""
    global _broadcaster
    if _broadcaster is None:
        _broadcaster = Broadcaster()
    return _broadcaster


def broadcaster_reset() -> None:
    """Forget the broadcaster (tests: each gets a fresh one, on its own event loop)."""
    global _broadcaster
    if _broadcaster is not None and _broadcaster._task is not None:
        _broadcaster._task.cancel()
    _broadcaster = None
