"""Any peer answers any request: a request for a partition (or the quota trees) another peer
owns is sent on to that peer over HTTP and answered with its answer (docs/design.md,
"Forwarding between peers").

``Forwarding`` is the outermost ASGI layer of the server (``core.serving.serve``; websockets
and anything but HTTP pass through it untouched). Without leases (SQLite, or a process that
takes part in none) it passes everything straight through. With them, a request whose path
names a unit (``unit_of``) is answered:

- here, when this peer holds the unit (a slot being filled included: the views wait for it);
- by the owner, when another peer holds it: the same method, path, query, headers (credentials,
  cookies, CSRF token, Host, Origin) and body, plus ``Quotaweb-Forwarded-By``, over a connection
  kept open to the owner's address (``Peer.address``). The owner checks the credentials as it
  would the client's; its status, headers and body are relayed unchanged;
- after a wait, when nobody holds it now (a handoff), or the answer (here or the owner's) was
  "not served here, nothing done" (``NOT_OWNER_HEADER``), or the owner could not be reached:
  the unit is looked up again every ``POLL_SECONDS`` until ``wait_seconds`` have passed, then
  503 with Retry-After naming the owner, if one was known.

A request that carries ``Quotaweb-Forwarded-By`` is answered here, whatever this peer owns: it
is never forwarded again, so two peers with different views of the table cannot pass a request
back and forth. A client that sends the header itself only gives up being forwarded (a 503
``not_owner`` from a peer that does not own the partition); credentials are checked by whoever
answers, so it bypasses nothing. A request sent to the owner that got no answer within
``answer_seconds`` (the owner frozen or cut off midway) is not sent again, since the owner may
have carried it out: 503 with Retry-After, and a retry with the same allocation key is safe.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from django.conf import settings
from django.utils.html import escape

from quotaweb import metrics
from quotaweb.api.parsers import json_max_bytes
from quotaweb.core.peer_http import HOP_BY_HOP, PeerAnswer, PeerClient, PeerSilent, PeerUnreachable
from quotaweb.core.peers import peer_current
from quotaweb.engine.gateway import engines_get
from quotaweb.engine.owners import ARRIVAL_SECONDS, ERR_MOVING, NOT_OWNER_HEADER, UNIT_TREES
from quotaweb.postgresql.waits import RETRY_AFTER_SECONDS

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

HOP_HEADER = b"quotaweb-forwarded-by"
POLL_SECONDS = 0.05
ERR_UNREACHABLE = (
    "partition {unit!r} is served by peer {owner!r} ({address}), which did not answer ({why}); "
    "try again in {seconds} s"
)
ERR_SILENT = (
    "partition {unit!r} is served by peer {owner!r} ({address}), which did not answer within "
    "{timeout:g} s; the request may have been carried out: try again in {seconds} s (the same "
    "allocation key is safe to send again)"
)
_PAGE = (
    "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Try again in a "
    "moment</title></head><body><h1>Try again in a moment</h1><p>{message}</p></body></html>"
)

# Paths that read or change one unit: (pattern, group of the partition or None for the trees).
_UNITS = (
    (re.compile(r"/api/v1/partitions/([^/]+)/.*", re.S), 1),
    (re.compile(r"/ws/v1/partition/([^/]+)/.*", re.S), 1),
    (re.compile(r"/(?:usage|elastic)/([^/]+)/.*", re.S), 1),
    (re.compile(r"/api/v1/(?:quota-trees|forests|consumers)(?:/.*)?", re.S), None),
    (re.compile(r"/trees/.*", re.S), None),
)
_ALLOCATIONS = re.compile(r"/api/v1/partitions/[^/]+/(allocations|applications)(/batch)?(/.*)?",
                          re.S)


def unit_of(path: str) -> str | None:
    """The unit (a partition's name, or ``quota-trees``) whose owner answers ``path``; None
    for a path any peer answers itself (lists of every partition, the configuration, accounts,
    health)."""
    for pattern, group in _UNITS:
        found = pattern.fullmatch(path)
        if found:
            return UNIT_TREES if group is None else found.group(group)
    return None


def kind_of(method: str, path: str) -> str:
    """The ``kind`` label of the forwarding metrics."""
    found = _ALLOCATIONS.fullmatch(path)
    if found:
        if found.group(2):
            return "batch"
        if method == "DELETE":
            return "release"
        if method == "POST" and found.group(1) == "allocations" and not found.group(3):
            return "allocate"
    if path.startswith("/api/"):
        return "api"
    if path.startswith("/ws/v1/"):
        return "yunikorn"
    return "page"


class _Recorded:
    """The request's messages as read, so that a request refused here ("not served here,
    nothing done") can be answered again, here or by the owner."""

    def __init__(self, receive: Receive) -> None:
        self.receive = receive
        self.read: list[Message] = []
        self.done = False

    def replay(self) -> Receive:
        position = 0

        async def again() -> Message:
            nonlocal position
            if position < len(self.read):
                position += 1
                return self.read[position - 1]
            message = await self.receive()
            self.read.append(message)
            position += 1
            if message["type"] != "http.request" or not message.get("more_body"):
                self.done = True
            return message

        return again

    async def body(self, limit: int) -> bytes | None:
        """The whole body, or None when the client left or it is over ``limit``."""
        receive = self.replay()
        for _ in range(len(self.read)):
            await receive()
        size = sum(len(m.get("body", b"")) for m in self.read)
        while not self.done and size <= limit:
            size += len((await receive()).get("body", b""))
        if size > limit:
            return None
        if any(m["type"] != "http.request" for m in self.read):
            return None
        return b"".join(m.get("body", b"") for m in self.read)


class Forwarding:
    """ASGI: requests for a unit another peer owns answered by that peer (see the module)."""

    def __init__(self, app: ASGIApp, *, client: PeerClient | None = None) -> None:
        self.app = app
        self.client = client or PeerClient()

    @property
    def wait_seconds(self) -> float:
        """How long a request waits for a moving unit: the statement bound, as any write's wait
        (``owners.ARRIVAL_SECONDS`` at least)."""
        return max(ARRIVAL_SECONDS, settings.QUOTAWEB_DB_STATEMENT_TIMEOUT_MS / 1000)

    @property
    def answer_seconds(self) -> float:
        """How long the owner gets to answer: past its own bounds (a single allocation that
        follows a group write waits up to about two statements' bounds), so that only a frozen
        or cut-off owner runs out of it."""
        return 3 * self.wait_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        unit = unit_of(scope["path"]) if scope["type"] == "http" else None
        peer = peer_current() if unit is not None else None
        if peer is None or unit is None or any(
            name == HOP_HEADER for name, _ in scope["headers"]
        ):
            await self.app(scope, receive, send)
            return
        await self._answer(scope, receive, send, unit, peer.name)

    async def _answer(self, scope: Scope, receive: Receive, send: Send, unit: str,
                      me: str) -> None:
        started = time.monotonic()
        ends = started + self.wait_seconds
        recorded = _Recorded(receive)
        kind = kind_of(scope["method"], scope["path"])
        owner, address, why = "", "", ""
        while True:
            where = self._where(unit)
            if where == ("", ""):
                if await self._here(scope, recorded.replay(), send):
                    return
            elif where is not None:
                owner, address = where
                body = await recorded.body(json_max_bytes())
                if body is None:
                    # Over the cap, or the client left: this peer's views answer it as they do.
                    await self.app(scope, recorded.replay(), send)
                    return
                try:
                    answer = await self.client.request(
                        address, method=scope["method"], target=_target(scope),
                        headers=[*scope["headers"], (HOP_HEADER, me.encode())], body=body,
                        connect_seconds=max(0.1, ends - time.monotonic()),
                        answer_seconds=self.answer_seconds,
                    )
                except PeerUnreachable as exc:
                    why = str(exc)
                except PeerSilent:
                    message = ERR_SILENT.format(unit=unit, owner=owner, address=address,
                                                timeout=self.answer_seconds,
                                                seconds=RETRY_AFTER_SECONDS)
                    await self._refuse(scope, send, message, owner, address)
                    self._count(kind, "unreachable", started)
                    return
                else:
                    if answer.status != 503 or answer.header(_MARKER) is None:
                        await _relay(send, answer)
                        self._count(kind, "answered", started)
                        return
                    why = ""
            if time.monotonic() >= ends:
                break
            await asyncio.sleep(POLL_SECONDS)
        if why:
            message = ERR_UNREACHABLE.format(unit=unit, owner=owner, address=address, why=why,
                                             seconds=RETRY_AFTER_SECONDS)
            outcome = "unreachable"
        else:
            message = ERR_MOVING.format(partition=unit)
            outcome = "moving"
        await self._refuse(scope, send, message, owner, address)
        self._count(kind, outcome, started)

    def _where(self, unit: str) -> tuple[str, str] | None:
        peer = peer_current()
        if unit == UNIT_TREES and peer is not None and peer.trees_epoch is not None:
            return "", ""
        gateway = engines_get()
        if unit != UNIT_TREES and unit not in gateway.configured():
            # Not a partition of the configuration: this peer's views say so (404).
            return "", ""
        return gateway.where(unit)

    async def _here(self, scope: Scope, receive: Receive, send: Send) -> bool:
        """Answer here; False when the answer was "not served here, nothing done" (held back
        from the client, which gets another answer)."""
        refused = False

        async def held_back(message: Message) -> None:
            nonlocal refused
            if message["type"] == "http.response.start" and message["status"] == 503 and any(
                name.lower() == _MARKER for name, _ in message.get("headers", ())
            ):
                refused = True
            if not refused:
                await send(message)

        await self.app(scope, receive, held_back)
        return not refused

    async def _refuse(self, scope: Scope, send: Send, message: str, owner: str,
                      address: str) -> None:
        """503 with Retry-After, in the shape of the path (the API's, YuniKorn's, a page)."""
        path = scope["path"]
        if path.startswith("/api/"):
            body = orjson.dumps({"error": "not_owner", "message": message, "details": [],
                                 "owner": owner, "address": address})
            content_type = b"application/json"
        elif path.startswith("/ws/v1/"):
            body = orjson.dumps({"status_code": 503, "message": message, "description": message})
            content_type = b"application/json"
        else:
            body = _PAGE.format(message=escape(message)).encode()
            content_type = b"text/html; charset=utf-8"
        await send({"type": "http.response.start", "status": 503, "headers": [
            (b"Content-Type", content_type), (b"Content-Length", str(len(body)).encode()),
            (b"Retry-After", str(RETRY_AFTER_SECONDS).encode()),
            (b"X-Content-Type-Options", b"nosniff"), (b"Cache-Control", b"no-store"),
        ]})
        await send({"type": "http.response.body", "body": body})

    @staticmethod
    def _count(kind: str, outcome: str, started: float) -> None:
        metrics.inc("quotaweb_forwarded_requests_total", kind=kind, outcome=outcome)
        metrics.observe("quotaweb_forward_seconds", time.monotonic() - started, kind=kind)


_MARKER = NOT_OWNER_HEADER.lower().encode()
# Set by the server that answers the client, not relayed from the owner's.
_NOT_RELAYED = frozenset({b"date", b"server"})


def _target(scope: Scope) -> bytes:
    path = scope.get("raw_path") or scope["path"].encode("utf-8")
    query = scope.get("query_string", b"")
    return path + b"?" + query if query else path


async def _relay(send: Send, answer: PeerAnswer) -> None:
    headers = [(name, value) for name, value in answer.headers
               if name.lower() not in HOP_BY_HOP and name.lower() not in _NOT_RELAYED]
    headers.append((b"Content-Length", str(len(answer.body)).encode()))
    await send({"type": "http.response.start", "status": answer.status, "headers": headers})
    await send({"type": "http.response.body", "body": answer.body})
