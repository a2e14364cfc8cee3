"""The Redis channel layer, made to outlive a lost Redis connection (``CHANNEL_LAYERS`` BACKEND
when ``REDIS_URL`` is set).

channels-redis lets a Redis error out of ``receive``, which ends whatever loop was receiving:
a socket's consumer (the socket closes with 1011) or the engine owner's channel. Here
``receive`` instead logs a warning once per outage, waits with backoff until Redis answers a
``PING``, logs that it is back, and receives again.

Redis keeps nothing on disk here, so after it restarts the group memberships and messages in
flight are gone. A receiver that registered with ``notify_reconnect`` is then handed one message
of type ``layer.reconnected`` (its consumer's ``layer_reconnected`` handler re-joins its groups
and asks for fresh snapshots). A restart is told by Redis's ``run_id``, which each event loop
with listeners reads every ``RESTART_CHECK_SECONDS``, not by a failed receive: redis-py's retry
often reconnects a receive to the new Redis before any error shows, and then the sockets only
learnt of the restart when the engine owner's heartbeats had been missing for seconds. A Redis
that merely dropped its connections kept the groups, so re-joining is not needed then.

Sized for a crowd (``redis_layer_config``). channels-redis keeps every answer to any socket of
one process in a single Redis queue (the process's ``specific.*!`` channel), and every request
to the engine owner in another (``ENGINE_CHANNEL``); both held 100 messages, so 1,000 sockets
opened at once lost most of their snapshots (``ChannelFull``). Their capacity is
``QUOTAWEB_CHANNEL_CAPACITY``. And redis-py's pool raised ``MaxConnectionsError`` past 100
connections at once: its size is ``QUOTAWEB_REDIS_CONNECTIONS`` (1,000), and a command refused
past it fails as a lost Redis would, so what it was for is tried again. Not redis-py's blocking
pool: its release waits for a lock, and a command cancelled there (a socket closing under a
crowd) never gave its connection back; the pool ran dry and sockets got nothing. A full pool is
not a lost Redis either: a receive that meets one waits a moment and goes on, without telling
every socket to re-join (which, under a crowd, filled the pool again). And a crowd's commands
wait their turn, ``COMMANDS_AT_ONCE`` per event loop: 1,000 sockets re-joining at once after a
restart ran 3,000 commands together, each on a connection of its own, so the pool was full and
a third of them failed and were asked again seconds later; opening that many connections was
most of the web process's work besides.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from channels.exceptions import ChannelFull
from channels_redis.core import RedisChannelLayer
from redis import exceptions as redis_errors
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff

logger = logging.getLogger(__name__)

# What a lost or restarting Redis raises (BusyLoadingError is a ConnectionError).
REDIS_ERRORS = (redis_errors.ConnectionError, redis_errors.TimeoutError, OSError)
# What any channel layer call may raise that its caller survives: a lost Redis, or a full channel.
LAYER_ERRORS = (*REDIS_ERRORS, ChannelFull)
RECONNECTED = "layer.reconnected"
POOL_FULL_PAUSE_SECONDS = 0.05
RETRY_FIRST_SECONDS = 0.2
RETRY_MAX_SECONDS = 5.0
RESTART_CHECK_SECONDS = 1.0
# Enough to keep Redis busy (each command takes it microseconds); receives are not counted.
COMMANDS_AT_ONCE = 64
# channels-redis receives with a blocking pop (BZPOPMIN) that answers nil after
# RedisChannelLayer.brpop_timeout (5 s) when nothing came. redis-py 8 reads with a 5 s socket
# timeout by default, the same, so every idle receive raised TimeoutError. Reads may wait three
# times the pop: it always answers first, and a dead Redis is still noticed within seconds.
SOCKET_TIMEOUT_SECONDS = 3 * RedisChannelLayer.brpop_timeout
# The named channel on which sockets ask the engine owner for snapshots (quotaweb.usage.owner).
ENGINE_CHANNEL = "quotaweb-engine"
# The channels that a crowd fills: each process's own (the answers to all of its sockets share
# one Redis queue) and the engine owner's (each peer's, with PostgreSQL leases).
CROWD_CHANNELS = ("specific.*", ENGINE_CHANNEL, f"{ENGINE_CHANNEL}.*")


def redis_layer_config(url: str, *, prefix: str, capacity: int, connections: int) -> dict:
    """The ``CONFIG`` of ``CHANNEL_LAYERS``: Redis at ``url``; the channels a crowd fills hold
    ``capacity`` messages; at most ``connections`` connections per process and event loop."""
    return {
        "hosts": [redis_host(url, connections=connections)],
        "prefix": prefix,
        "channel_capacity": dict.fromkeys(CROWD_CHANNELS, capacity),
    }


def redis_host(url: str, *, connections: int) -> dict:
    """The connection settings of the layer's host ``url`` (CHANNEL_LAYERS CONFIG hosts)."""
    return {
        "address": url,
        "max_connections": connections,
        "socket_timeout": SOCKET_TIMEOUT_SECONDS,
        "socket_connect_timeout": 5,
        # A peer gone without a word (no RST) is found by TCP keepalive, and a connection idle
        # for 30 s answers a PING before it is used again.
        "socket_keepalive": True,
        "health_check_interval": 30,
        # No CLIENT SETINFO on connecting: redis-py looks its own version up in the installed
        # package metadata (files on disk) for every new connection, and a crowd opening 1,000
        # connections at once spent a sixth of the web process's time there.
        "driver_info": None,
        # After Redis restarts, every pooled connection is dead but only says so when used: a
        # command on one reconnects and goes again instead of failing (a socket's re-watch, the
        # owner's answer to it). Timeouts are not retried: a slow Redis is not a closed socket.
        "retry": Retry(
            ExponentialBackoff(cap=1.0, base=0.05), 3,
            supported_errors=(redis_errors.ConnectionError,),
        ),
    }


def _end_if_cancelled() -> None:
    """End a receive that was cancelled. The Redis client may turn the cancellation of a
    blocking pop into a connection or timeout error; retried as an outage, the receive outlived
    the consumer that cancelled it, and whoever waited for it to end waited for ever."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


class ResilientRedisChannelLayer(RedisChannelLayer):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Per event loop: when this loop's receives lost Redis (monotonic), until it answers again.
        self._lost: dict[asyncio.AbstractEventLoop, float] = {}
        # Channels told of a reconnection, and the loop that receives them.
        self._listeners: dict[str, asyncio.AbstractEventLoop] = {}
        # Per event loop with listeners: its task watching for restarts, the run_id it last read.
        self._restart_watches: dict[asyncio.AbstractEventLoop, asyncio.Task] = {}
        self._run_ids: dict[asyncio.AbstractEventLoop, str] = {}
        self._turns: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}

    def _turn(self) -> asyncio.Semaphore:
        """This event loop's turns at Redis (a semaphore belongs to one loop)."""
        loop = asyncio.get_running_loop()
        turns = self._turns.get(loop)
        if turns is None:
            turns = self._turns[loop] = asyncio.Semaphore(COMMANDS_AT_ONCE)
        return turns

    async def send(self, channel: str, message: dict) -> None:
        async with self._turn():
            await super().send(channel, message)

    async def send_many(self, channels: list[str], message: dict) -> None:
        """Send ``message`` to each of ``channels`` as one Redis message per process, as
        channels-redis's ``group_send`` does (its receive hands it to each channel named):
        a crowd's snapshot crosses Redis once per web process, not once per socket."""
        processes: dict[str, list[str]] = {}
        for channel in channels:
            processes.setdefault(self.non_local_name(channel), []).append(channel)
        for process, members in processes.items():
            async with self._turn():
                await self._push(process, {**message, "__asgi_channel__": members})

    async def _push(self, process: str, message: dict) -> None:
        """``send``'s steps for a process's queue (channels-redis 4.3)."""
        key = self.prefix + process
        connection = self.connection(self.consistent_hash(process))
        await connection.zremrangebyscore(key, min=0, max=int(time.time()) - int(self.expiry))
        if await connection.zcount(key, "-inf", "+inf") >= self.get_capacity(process):
            raise ChannelFull()
        await connection.zadd(key, {self.serialize(message): time.time()})
        await connection.expire(key, int(self.expiry))

    async def group_add(self, group: str, channel: str) -> None:
        async with self._turn():
            await super().group_add(group, channel)

    async def group_discard(self, group: str, channel: str) -> None:
        async with self._turn():
            await super().group_discard(group, channel)

    async def group_send(self, group: str, message: dict) -> None:
        async with self._turn():
            await super().group_send(group, message)

    def notify_reconnect(self, channel: str) -> None:
        """Hand ``channel``'s receiver a ``layer.reconnected`` message after each restart of
        Redis."""
        loop = asyncio.get_running_loop()
        self._listeners[channel] = loop
        if loop not in self._restart_watches:
            self._restart_watches[loop] = loop.create_task(self._watch_restarts())

    def forget_reconnect(self, channel: str) -> None:
        loop = self._listeners.pop(channel, None)
        if loop is not None and loop not in self._listeners.values():
            # Its last listener gone: a watch left running held up the closing of its loop.
            watch = self._restart_watches.pop(loop, None)
            if watch is not None:
                watch.cancel()

    async def receive(self, channel: str) -> dict:
        delay = RETRY_FIRST_SECONDS
        while True:
            try:
                return await super().receive(channel)
            except redis_errors.MaxConnectionsError:
                _end_if_cancelled()
                await asyncio.sleep(POOL_FULL_PAUSE_SECONDS)
                continue
            except REDIS_ERRORS as error:
                _end_if_cancelled()
                self._went_away(error)
            # Until Redis answers again; then receive afresh (the pool reconnects by itself).
            while True:
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX_SECONDS)
                try:
                    await self.connection(self._index(channel)).ping()
                    break
                except REDIS_ERRORS:
                    _end_if_cancelled()
                    continue
            self._came_back()

    def _index(self, channel: str) -> int:
        if "!" in channel:
            return self.consistent_hash(channel)
        return 0

    def _went_away(self, error: BaseException) -> None:
        loop = asyncio.get_running_loop()
        if loop not in self._lost:
            self._lost[loop] = time.monotonic()
            logger.warning(
                "lost the Redis channel layer (%s: %s); live updates pause, retrying",
                type(error).__name__, error,
            )

    def _came_back(self) -> None:
        since = self._lost.pop(asyncio.get_running_loop(), None)
        if since is not None:  # else another receive noticed first
            logger.info("the Redis channel layer is back after %.1f s",
                        time.monotonic() - since)

    async def _watch_restarts(self) -> None:
        """While this loop has listeners: tell them when Redis is another start than before
        (failures are left to ``receive``, which logs the outage)."""
        loop = asyncio.get_running_loop()
        try:
            while loop in self._listeners.values():
                with contextlib.suppress(*LAYER_ERRORS):
                    run_id = (await self.connection(0).info("server"))["run_id"]
                    known = self._run_ids.get(loop, run_id)
                    self._run_ids[loop] = run_id
                    if run_id != known:
                        await self._tell_restarted(loop)
                await asyncio.sleep(RESTART_CHECK_SECONDS)
        finally:
            if self._restart_watches.get(loop) is asyncio.current_task():
                del self._restart_watches[loop]
            self._run_ids.pop(loop, None)

    async def _tell_restarted(self, loop: asyncio.AbstractEventLoop) -> None:
        logger.info("Redis restarted and forgot the groups; live sockets re-join and resync")
        listeners = [name for name, owner_loop in self._listeners.items()
                     if owner_loop is loop and "!" in name]
        # channels-redis hands a process-local channel what its buffer holds first; but one
        # receive reads Redis for all of them and sees its own buffer only after a message
        # came from Redis: so one notice goes through Redis, which wakes that receive.
        for name in listeners[1:]:
            self.receive_buffer[name].put_nowait({"type": RECONNECTED})
        if listeners:
            await self.send(listeners[0], {"type": RECONNECTED})
