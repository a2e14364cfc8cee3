"""The live usage socket, ``/ws/usage/{partition}/`` (``api.md``, "Live usage websocket").

Authenticated by the session cookie or ``?token=``: an API token, or a team-dashboard link token,
which reads only its team's scope in its partition. Admins and viewers may subscribe to every
scope; a member (a directory user who reads only their own usage) to ``user:<their name>`` and
``group:<each of their groups>``, like a team link of their own. Every ``RECHECK`` seconds the
socket checks its credentials again; a revoked link, a deleted token, a deactivated account or a
changed role closes it. A bad message gets an ``error`` and the
socket stays open. Updates come from the broadcaster through the channel layer; the consumer only
relays them.

The socket outlives the channel layer's faults. A failed call to the layer is logged, the socket
stays open and what it was for is tried again (below); when the layer is back after an outage
(``layer.reconnected``, see ``quotaweb.channel_layer``) it re-joins its groups and asks for
fresh snapshots, since a restarted Redis has forgotten both. In "channel" mode it also listens
to the engine owner's heartbeat: when it has heard none for ``OWNER_SILENT_SECONDS`` it tells
the browser its figures are ``stale``, and when the owner is back (heartbeats again, or from a
new start) it watches its scopes again, so the owner answers fresh snapshots. With PostgreSQL
peers (and Redis) every socket asks its partition's owner, on that peer's own channel
(``usage.owner.engine_channel_for``), and looks the owner up again every heartbeat interval:
when the partition moved, it leaves the old owner and asks the new one for fresh snapshots.

Whatever the mode, the socket itself sends ``heartbeat`` every ``HEARTBEAT_SECONDS``: a page that
hears nothing for a few seconds knows the server is frozen or the connection dead (a TCP
connection to a stopped process stays open and silent), says so, and connects again.

No snapshot is lost silently. Every snapshot the socket asks for (on subscribe, resync, or a
re-join) is awaited: one that has not come within ``SNAPSHOT_WAIT_SECONDS`` (a full queue under
a crowd, Redis gone, a failed group join) is asked for again, with backoff and jitter up to
``SNAPSHOT_WAIT_MAX_SECONDS``, until it comes. A ``resync`` for a scope whose snapshot is already
on its way joins it; beyond that a socket may ask for so many snapshots a minute
(``quotaweb.usage.throttle``) and is told when it may ask again.

A message above ``MAX_MESSAGE_CHARS`` closes the socket with 1009, one nested too deep to parse
with 1008; the page never sends either.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from quotaweb import metrics
from quotaweb.accounts.models import TeamLink
from quotaweb.accounts.roles import is_member, is_viewer, own_scope
from quotaweb.accounts.selectors import team_link_active
from quotaweb.channel_layer import LAYER_ERRORS
from quotaweb.engine.gateway import ERR_NOT_LOADED, ERR_PARTITION, EngineNotLoaded, engines_get
from quotaweb.engine.owners import ARRIVAL_SECONDS
from quotaweb.usage.broadcaster import broadcaster_get
from quotaweb.usage.owner import (
    ENGINE_CHANNEL,
    HEARTBEAT_SECONDS,
    OWNER_GROUP,
    OWNER_SILENT_SECONDS,
    RENEW_SECONDS,
    engine_channel_for,
    owner_group_for,
)
from quotaweb.usage.scopes import Scope, ScopeInvalid, scope_parse
from quotaweb.usage.throttle import SnapshotAllowance

ERR_JSON = "messages must be JSON objects with a type: {detail}"
ERR_TYPE = "unknown message type {type!r}: use subscribe, unsubscribe, resync or ping"
ERR_NOT_SUBSCRIBED = "not subscribed to {scope}; subscribe first"
ERR_LINK_SCOPE = "this team link shows only {scope} in partition {partition}"
ERR_MEMBER_SCOPE = "as a member you may follow only {scopes}, not {scope}"
ERR_REVOKED = "your access ended (the link was revoked, or the token or account removed)"
MAX_SCOPES = 64
ERR_TOO_MANY = f"at most {MAX_SCOPES} subscriptions per socket"
STALE_OWNER = "the process that owns the quota engines is not answering"
STALE_LAYER = "the channel to the quota engines is down"
STALE_MOVING = "the partition is moving to another peer"
# How often a socket looks for the new owner of a partition being handed on, while it waits.
FOLLOW_POLL_SECONDS = 0.05
# Client messages are a type and a scope, a few hundred characters at most.
MAX_MESSAGE_CHARS = 4096
ERR_TOO_BIG = f"a message may have at most {MAX_MESSAGE_CHARS} characters"
ERR_TOO_DEEP = "messages must be JSON objects with a type: this one is nested too deep"
ERR_TOO_OFTEN = (
    "too many snapshots asked for {scope}: at most {burst} at once and {per_minute} a minute "
    "per socket; ask again in {wait:.1f} s"
)
# A snapshot asked for and not come within this long is asked for again (then after twice as
# long, up to the maximum), well before a page gives up on it (static/js/live.js).
SNAPSHOT_WAIT_SECONDS = 4.0
SNAPSHOT_WAIT_MAX_SECONDS = 30.0

logger = logging.getLogger(__name__)

# Close codes (4000-4999 are the application's): the page tells people what happened.
CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_STARTING = 4503
# RFC 6455's: a message too big to take, one that breaks the protocol's rules.
CLOSE_TOO_BIG = 1009
CLOSE_POLICY = 1008


@dataclass(frozen=True)
class Principal:
    """Who holds the socket: an account (by session or API token), or a team link. A member's
    account may follow ``allowed`` only (None: every scope)."""

    user_id: int | None = None
    token: str = ""
    link: TeamLink | None = None
    allowed: frozenset[str] | None = None


def _account_principal(user: Any, key: str = "") -> Principal | None:
    if is_viewer(user):
        return Principal(user.pk, key)
    if is_member(user):
        scope = own_scope(user)
        if scope is not None:
            return Principal(user.pk, key, allowed=scope.scope_texts)
    return None


@database_sync_to_async
def _principal_for(scope: dict[str, Any]) -> Principal | None:
    from rest_framework.authtoken.models import Token

    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    key = (query.get("token") or [""])[0]
    if key:
        token = Token.objects.select_related("user").filter(key=key).first()
        if token is not None:
            return _account_principal(token.user, key)
        link = team_link_active(token=key)
        return Principal(token=key, link=link) if link is not None else None
    user = scope.get("user")
    if user is not None and user.is_authenticated:
        return _account_principal(user)
    return None


@database_sync_to_async
def _still_valid(principal: Principal) -> bool:
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    if principal.link is not None:
        return team_link_active(token=principal.token) is not None
    if principal.token and not Token.objects.filter(key=principal.token).exists():
        return False
    user = get_user_model().objects.filter(pk=principal.user_id, is_active=True).first()
    # The role is read again (a directory change counts): a socket whose holder would now be
    # let in with other rights closes, and the page opens a new one with the current ones.
    now = _account_principal(user) if user is not None else None
    return now is not None and now.allowed == principal.allowed


@database_sync_to_async
def _partition_known(partition: str) -> bool:
    return partition in engines_get().partitions()


def _peers_share() -> bool:
    """Whether partitions are shared out between peers (PostgreSQL leases) and the channel
    layer reaches them all (Redis): a socket then asks each partition's owner."""
    return engines_get().leased and bool(settings.REDIS_URL)


class UsageConsumer(AsyncJsonWebsocketConsumer):
    counted = False

    async def dispatch(self, message: dict[str, Any]) -> None:
        # channels closes stale database connections before every event, on the one thread
        # for sync code: with 1,000 sockets each owner heartbeat cost 1,000 trips there, most
        # of a web process's CPU. The few reads here (database_sync_to_async) close them.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        self.partition = self.scope["url_route"]["kwargs"]["partition"]
        self.subscribed: set[Scope] = set()
        self.recheck: asyncio.Task | None = None
        self.renewal: asyncio.Task | None = None
        self.watchdog: asyncio.Task | None = None
        self.beat: asyncio.Task | None = None
        self.stale = False
        self.owner_boot: str | None = None
        # scope -> (when to ask again, how many times asked) while its snapshot is on its way
        self.awaited: dict[Scope, tuple[float, int]] = {}
        self.allowance = SnapshotAllowance(
            burst=settings.QUOTAWEB_SOCKET_SNAPSHOT_BURST,
            per_minute=settings.QUOTAWEB_SOCKET_SNAPSHOTS_PER_MINUTE,
            now=asyncio.get_running_loop().time(),
        )
        self.principal = await _principal_for(self.scope)
        if self.principal is None:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        await self.accept()
        self.counted = True
        metrics.inc("quotaweb_websocket_clients")
        self.recheck = asyncio.get_running_loop().create_task(self._recheck())
        self.beat = asyncio.get_running_loop().create_task(self._heartbeat())
        # Where snapshots come from: this process's broadcaster, or an engine owner over the
        # channel layer: in "channel" mode the one owner process; with peers (PostgreSQL
        # leases) the partition's owner, followed as the partition moves (``_follow``).
        self.owner_channel: str | None = None
        self.owner_group: str | None = None
        self.following = False
        if settings.QUOTAWEB_ENGINE_OWNER == "channel":
            # A ``manage.py web`` process, which loads no engine, or the one owner.
            self.owner_channel, self.owner_group = ENGINE_CHANNEL, OWNER_GROUP
        else:
            try:
                self.following = _peers_share()
            except EngineNotLoaded:
                await self._fail(ERR_NOT_LOADED, CLOSE_STARTING)
                return
        self.remote = self.owner_channel is not None or self.following
        link = self.principal.link
        if link is not None and link.partition != self.partition:
            await self._fail(
                ERR_LINK_SCOPE.format(scope=link.scope_text, partition=link.partition),
                CLOSE_FORBIDDEN,
            )
            return
        # A layer that outlives Redis tells this socket when it is back (layer_reconnected).
        notify = getattr(self.channel_layer, "notify_reconnect", None)
        if notify is not None:
            notify(self.channel_name)
        if self.remote:
            loop = asyncio.get_running_loop()
            self.owner_heard = loop.time()
            if self.following:
                if self.partition not in engines_get().configured():
                    await self._fail(ERR_PARTITION.format(partition=self.partition),
                                     CLOSE_NOT_FOUND)
                    return
                # A partition being handed on: wait for its new owner, within the bound a
                # request waits (else stale until the watchdog finds it).
                ends = loop.time() + ARRIVAL_SECONDS
                while not await self._follow() and loop.time() < ends:
                    await asyncio.sleep(FOLLOW_POLL_SECONDS)
            else:
                await self._layer_call(self.channel_layer.group_add, OWNER_GROUP,
                                       self.channel_name)
            self.renewal = loop.create_task(self._renew())
            self.watchdog = loop.create_task(self._watch_owner())
            return
        try:
            known = await _partition_known(self.partition)
        except EngineNotLoaded:
            await self._fail(ERR_NOT_LOADED, CLOSE_STARTING)
            return
        if not known:
            await self._fail(ERR_PARTITION.format(partition=self.partition), CLOSE_NOT_FOUND)

    async def _fail(self, message: str, code: int) -> None:
        await self.send_json({"type": "error", "message": message})
        await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        if self.counted:
            self.counted = False
            metrics.inc("quotaweb_websocket_clients", -1)
        for name in ("recheck", "renewal", "watchdog", "beat"):
            task = getattr(self, name, None)
            if task is not None:
                task.cancel()
        forget = getattr(self.channel_layer, "forget_reconnect", None)
        if forget is not None:
            forget(self.channel_name)
        if getattr(self, "owner_group", None):
            await self._layer_call(self.channel_layer.group_discard, self.owner_group,
                                   self.channel_name)
        for scope in getattr(self, "subscribed", ()):
            await self._leave(scope)

    async def _heartbeat(self) -> None:
        """Tell the browser this server is alive, whether or not usage changes; and ask again
        for the snapshots that are late (on the same wake-up: no task more per socket)."""
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            try:
                await self.send_json({"type": "heartbeat"})
            except Exception:  # the client is gone; disconnect() ends this task
                return
            await self._chase()

    async def _chase(self) -> None:
        now = asyncio.get_running_loop().time()
        for scope, (due, asked) in list(self.awaited.items()):
            if due <= now and scope in self.subscribed:
                await self._request(scope, asked)

    async def _renew(self) -> None:
        """Keep this socket's watches at the engine owner alive (they are leases there)."""
        while True:
            await asyncio.sleep(RENEW_SECONDS)
            for scope in list(self.subscribed):
                await self._ask_owner("engine.renew", scope)

    async def _watch_owner(self) -> None:
        """Tell the browser when the engine owner's heartbeats stop (owner_heartbeat resumes)."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            if self.following and await self._follow():
                # Another peer owns the partition now: fresh snapshots from it.
                await self._rejoin()
                continue
            if loop.time() - self.owner_heard <= OWNER_SILENT_SECONDS:
                continue
            if not self.stale:
                await self._tell_stale(STALE_OWNER)
            # In case Redis restarted and forgot the heartbeat group: join it again.
            if self.owner_group is not None:
                await self._layer_call(self.channel_layer.group_add, self.owner_group,
                                       self.channel_name)

    async def _follow(self) -> bool:
        """Peers: look up the partition's owner; when it is another than the one this socket
        asks, leave the old one (its heartbeats, its watches) and join the new one's
        heartbeats. True when it changed; the caller asks the new owner for snapshots."""
        name = engines_get().owner_name(self.partition)
        if name is None or engine_channel_for(name) == self.owner_channel:
            return False
        old_channel, old_group = self.owner_channel, self.owner_group
        self.owner_channel, self.owner_group = engine_channel_for(name), owner_group_for(name)
        # Heard from now on: a new owner gets the whole silence allowance before "stale".
        self.owner_heard = asyncio.get_running_loop().time()
        self.owner_boot = None
        if old_group is not None:
            await self._layer_call(self.channel_layer.group_discard, old_group,
                                   self.channel_name)
        if old_channel is not None:
            for scope in list(self.subscribed):
                await self._ask(old_channel, "engine.unwatch", scope)
        await self._layer_call(self.channel_layer.group_add, self.owner_group, self.channel_name)
        return True

    async def _tell_stale(self, reason: str) -> None:
        self.stale = True
        with contextlib.suppress(Exception):  # the client may be gone already
            await self.send_json({"type": "stale", "reason": reason})

    async def _layer_call(self, function, *args: Any) -> bool:
        """A channel layer call that must not end the socket: a lost Redis is logged (the
        layer logs the outage once) and the socket resyncs when the layer is back."""
        try:
            await function(*args)
        except LAYER_ERRORS as error:
            logger.info("live socket %s: the channel layer failed (%s: %s)",
                        self.channel_name, type(error).__name__, error)
            return False
        return True

    async def _rejoin(self) -> None:
        """Join every group again and get a fresh snapshot of every scope (after Redis came
        back, which forgets groups, or the engine owner, which forgets watches). Whatever fails
        here is tried again by itself: the snapshots are awaited (``_chase``) and the owner's
        group is joined again while it stays silent (``_watch_owner``); so this runs once per
        return, never again on each heartbeat (under a crowd that fed on itself)."""
        # The snapshots on their way tell the browser it is live again.
        self.stale = False
        if self.owner_group is not None:
            await self._layer_call(self.channel_layer.group_add, self.owner_group,
                                   self.channel_name)
        for scope in list(self.subscribed):
            await self._request(scope)

    async def _request(self, scope: Scope, asked: int = 0) -> bool:
        """Join ``scope``'s group and ask for its snapshot, awaited until it comes: asked again
        later if it does not (``_chase``), whatever failed. False when the layer failed."""
        wait = min(SNAPSHOT_WAIT_MAX_SECONDS, SNAPSHOT_WAIT_SECONDS * 2**asked)
        # Jitter: a crowd whose snapshots were lost together does not ask again together.
        due = asyncio.get_running_loop().time() + wait * random.uniform(0.75, 1.25)
        self.awaited[scope] = (due, asked + 1)
        # Join first: an update built after the snapshot must reach this socket.
        if not await self._layer_call(
            self.channel_layer.group_add, scope.group_name(self.partition), self.channel_name
        ):
            return False
        if self.remote:
            # The owner answers the snapshot to this socket's channel (usage_message relays it).
            return await self._ask_owner("engine.watch", scope)
        seq, data = await broadcaster_get().watch(
            self.partition, scope, holder=self.channel_name
        )
        await self._send_snapshot(scope, seq, data)
        return True

    async def _recheck(self) -> None:
        while True:
            await asyncio.sleep(settings.QUOTAWEB_SOCKET_RECHECK_SECONDS)
            if not await _still_valid(self.principal):
                with contextlib.suppress(Exception):  # the client may be gone already
                    await self._fail(ERR_REVOKED, CLOSE_FORBIDDEN)
                return

    # -- client messages ---------------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None):
        raw = text_data if text_data is not None else bytes_data or b""
        if len(raw) > MAX_MESSAGE_CHARS:
            await self._fail(ERR_TOO_BIG, CLOSE_TOO_BIG)
            return
        try:
            message = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as error:
            await self._error(ERR_JSON.format(detail=error))
            return
        except RecursionError:
            await self._fail(ERR_TOO_DEEP, CLOSE_POLICY)
            return
        if not isinstance(message, dict):
            await self._error(ERR_JSON.format(detail="not an object"))
            return
        await self.receive_json(message)

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        kind = content.get("type")
        if kind == "ping":
            await self.send_json({"type": "pong"})
            return
        if kind not in ("subscribe", "unsubscribe", "resync"):
            await self._error(ERR_TYPE.format(type=kind))
            return
        try:
            scope = scope_parse(content.get("scope"))
        except ScopeInvalid as error:
            await self._error(str(error))
            return
        allowed = self.principal.allowed
        if allowed is not None and scope.text not in allowed:
            await self._error(ERR_MEMBER_SCOPE.format(
                scopes=", ".join(sorted(allowed)), scope=scope.text
            ))
            return
        link = self.principal.link
        if link is not None and scope.text != link.scope_text:
            await self._error(
                ERR_LINK_SCOPE.format(scope=link.scope_text, partition=link.partition)
            )
            return
        if kind == "unsubscribe":
            if scope not in self.subscribed:
                await self._error(ERR_NOT_SUBSCRIBED.format(scope=scope.text))
                return
            self.subscribed.discard(scope)
            self.awaited.pop(scope, None)
            await self._leave(scope)
            return
        if kind == "resync" and scope not in self.subscribed:
            await self._error(ERR_NOT_SUBSCRIBED.format(scope=scope.text))
            return
        if scope in self.awaited:
            return  # its snapshot is on its way (or asked for again when late): one answers both
        if scope not in self.subscribed and len(self.subscribed) >= MAX_SCOPES:
            await self._error(ERR_TOO_MANY)
            return
        wait = self.allowance.take(asyncio.get_running_loop().time())
        if wait:
            await self.send_json({
                "type": "error", "scope": scope.text, "retryAfter": round(wait, 1),
                "message": ERR_TOO_OFTEN.format(
                    scope=scope.text, burst=settings.QUOTAWEB_SOCKET_SNAPSHOT_BURST,
                    per_minute=settings.QUOTAWEB_SOCKET_SNAPSHOTS_PER_MINUTE, wait=wait,
                ),
            })
            return
        # A failure (Redis gone) keeps the scope: it is asked for again until it comes.
        self.subscribed.add(scope)
        if not await self._request(scope):
            await self._tell_stale(STALE_LAYER if not self.remote or self.owner_channel
                                   else STALE_MOVING)

    async def _ask_owner(self, kind: str, scope: Scope) -> bool:
        """False when the layer failed, or nobody owns the partition now (asked again later:
        ``_chase``)."""
        if self.owner_channel is None:
            return False
        return await self._ask(self.owner_channel, kind, scope)

    async def _ask(self, channel: str, kind: str, scope: Scope) -> bool:
        return await self._layer_call(self.channel_layer.send, channel, {
            "type": kind, "partition": self.partition, "scope": scope.text,
            "reply": self.channel_name,
        })

    async def _leave(self, scope: Scope) -> None:
        await self._layer_call(
            self.channel_layer.group_discard, scope.group_name(self.partition), self.channel_name
        )
        if self.remote:
            await self._ask_owner("engine.unwatch", scope)
        else:
            broadcaster_get().unwatch(self.partition, scope, holder=self.channel_name)

    async def _send_snapshot(self, scope: Scope, seq: int, data: Any) -> None:
        self.awaited.pop(scope, None)
        await self.send_json({"type": "snapshot", "scope": scope.text, "seq": seq, "data": data})

    async def _error(self, message: str) -> None:
        await self.send_json({"type": "error", "message": message})

    # -- from the broadcaster ------------------------------------------------------------------

    async def usage_message(self, event: dict[str, Any]) -> None:
        snapshot = event.get("snapshot")
        if snapshot is not None:
            with contextlib.suppress(ScopeInvalid):
                self.awaited.pop(scope_parse(snapshot), None)
        await self.send(text_data=event["text"])

    # -- from the channel layer and the engine owner -------------------------------------------

    async def layer_reconnected(self, event: dict[str, Any]) -> None:
        await self._rejoin()

    async def owner_heartbeat(self, event: dict[str, Any]) -> None:
        if not getattr(self, "remote", False):
            return
        self.owner_heard = asyncio.get_running_loop().time()
        boot = event.get("boot")
        # A new start has no watches; a socket that was stale may have lost its messages.
        restarted = self.owner_boot is not None and boot != self.owner_boot
        self.owner_boot = boot
        if restarted or self.stale:
            await self._rejoin()
