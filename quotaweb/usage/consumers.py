"""The live usage socket, ``/ws/usage/{partition}/`` (``api.md``, "Live usage websocket").

Authenticated by the session cookie or ``?token=<API token>``; anyone who may read the pages may
subscribe to every scope. A bad message gets an ``error`` and the socket stays open. Updates come
from the broadcaster through the channel layer; the consumer only relays them.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from quotaweb.accounts.roles import is_viewer
from quotaweb.engine.gateway import EngineNotLoaded, engines_get
from quotaweb.usage.broadcaster import broadcaster_get
from quotaweb.usage.scopes import Scope, ScopeInvalid, scope_parse

ERR_JSON = "messages must be JSON objects with a type: {detail}"
ERR_TYPE = "unknown message type {type!r}: use subscribe, unsubscribe, resync or ping"
ERR_NOT_SUBSCRIBED = "not subscribed to {scope}; subscribe first"
ERR_PARTITION = "partition {partition!r} is not configured"
ERR_STARTING = "the quota engines are still starting; reconnect in a moment"
MAX_SCOPES = 64
ERR_TOO_MANY = f"at most {MAX_SCOPES} subscriptions per socket"

# Close codes (4000-4999 are the application's): the page tells people what happened.
CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_STARTING = 4503


@sync_to_async
def _user_for(scope: dict[str, Any]) -> Any:
    """The session's user, or the owner of ``?token=`` (an API token)."""
    from rest_framework.authtoken.models import Token

    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    key = (query.get("token") or [""])[0]
    if key:
        token = Token.objects.select_related("user").filter(key=key).first()
        return token.user if token is not None else None
    user = scope.get("user")
    return user if user is not None and user.is_authenticated else None


@sync_to_async
def _partition_known(partition: str) -> bool:
    return partition in engines_get().partitions()


class UsageConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        self.partition = self.scope["url_route"]["kwargs"]["partition"]
        self.subscribed: set[Scope] = set()
        user = await _user_for(self.scope)
        if user is None or not await sync_to_async(is_viewer)(user):
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        await self.accept()
        try:
            known = await _partition_known(self.partition)
        except EngineNotLoaded:
            await self._fail(ERR_STARTING, CLOSE_STARTING)
            return
        if not known:
            await self._fail(ERR_PARTITION.format(partition=self.partition), CLOSE_NOT_FOUND)

    async def _fail(self, message: str, code: int) -> None:
        await self.send_json({"type": "error", "message": message})
        await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        for scope in getattr(self, "subscribed", ()):
            await self._leave(scope)

    # -- client messages ---------------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None):
        try:
            message = json.loads(text_data if text_data is not None else bytes_data or b"")
        except (ValueError, UnicodeDecodeError) as error:
            await self._error(ERR_JSON.format(detail=error))
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
        if kind == "subscribe":
            await self._subscribe(scope)
        elif scope not in self.subscribed:
            await self._error(ERR_NOT_SUBSCRIBED.format(scope=scope.text))
        elif kind == "unsubscribe":
            self.subscribed.discard(scope)
            await self._leave(scope)
        else:
            seq, data = await broadcaster_get().snapshot(self.partition, scope)
            await self._send_snapshot(scope, seq, data)

    async def _subscribe(self, scope: Scope) -> None:
        if scope in self.subscribed:
            seq, data = await broadcaster_get().snapshot(self.partition, scope)
        elif len(self.subscribed) >= MAX_SCOPES:
            await self._error(ERR_TOO_MANY)
            return
        else:
            # Join first: an update built after the snapshot must reach this socket.
            await self.channel_layer.group_add(scope.group_name(self.partition), self.channel_name)
            self.subscribed.add(scope)
            seq, data = await broadcaster_get().watch(self.partition, scope)
        await self._send_snapshot(scope, seq, data)

    async def _leave(self, scope: Scope) -> None:
        await self.channel_layer.group_discard(scope.group_name(self.partition), self.channel_name)
        broadcaster_get().unwatch(self.partition, scope)

    async def _send_snapshot(self, scope: Scope, seq: int, data: Any) -> None:
        await self.send_json({"type": "snapshot", "scope": scope.text, "seq": seq, "data": data})

    async def _error(self, message: str) -> None:
        await self.send_json({"type": "error", "message": message})

    # -- from the broadcaster ------------------------------------------------------------------

    async def usage_message(self, event: dict[str, Any]) -> None:
        await self.send_json(event["message"])
