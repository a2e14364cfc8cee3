"""The allocation endpoints a scheduler calls per pod, answered without the general request stack.

Profiled through the server (docs/design.md, "The allocation hot path"), a single allocate spent
most of its time in Django's request object, the middleware chain, URL resolution and DRF's
negotiation, parsing, authentication and rendering, none of which changes the answer of a
token-authenticated allocation. ``LeanAllocations`` wraps the Django ASGI application and answers
the common case of allocate, release, batch and headroom itself, through the very functions the
views use (``allocation_answer``, ``batch_answer``, ``headroom_answer``, the services, DRF's
renderer and the token cache), with the headers the middleware would add.

Everything else goes to Django unchanged, with the body it has read: session callers (so CSRF
stays Django's and DRF's), other content types, ``Accept`` headers, methods and query strings (a
repeated parameter too: ``quotaweb.api.parameters``), bad hosts, HTTPS redirects, bodies over the
cap, and any request whose answer is an error of the contract. Those are raised before the engine
or the ledger changes, so the views answer them again with exactly their own status, body and
headers. A failed ledger write (undone in the engine) is answered here rather than written a
second time: 503 with Retry-After when the database is away or slow, else 500, as the views'
handler would.

Unknown or inactive tokens (401) and viewers writing (403) go to Django too, but are told apart
before the body is read, and handed over with an empty body: DRF refuses them before it parses
one, so a caller without a good token never makes the server hold a body of up to the cap.

The answers are made in the Django handler's threads, except that the server (``answer_on_loop``)
makes an allocate on the event loop itself when the token's admin is remembered: its ledger
(``services.loop_ledger_open``) awaits the group's commit there, on a connection of the loop's own
(PostgreSQL) or in one writer thread (SQLite), which saves each request a hop to a thread and
back and lets any number of them share a commit; a partition busy in a thread sends the allocate
to a thread after all.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from typing import Any

import orjson
from csp.utils import build_policy
from django.conf import settings
from django.core.signals import setting_changed
from django.db import close_old_connections
from django.dispatch import receiver
from django.http import QueryDict
from django.http.request import split_domain_port, validate_host
from rest_framework.exceptions import APIException, AuthenticationFailed
from rest_framework.renderers import JSONRenderer

from quotaweb.accounts.roles import is_quota_admin, is_viewer, quota_admin_known, viewer_known
from quotaweb.allocations import services
from quotaweb.api.authentication import CachedTokenAuthentication, token_user_remembered
from quotaweb.api.errors import ERR_INTERNAL, api_error_for
from quotaweb.api.parameters import repeated_parameters
from quotaweb.api.parsers import json_body, json_max_bytes
from quotaweb.api.problems import NotServedHere, Unavailable
from quotaweb.api.views.allocations import (
    AllocationsView,
    AllocationView,
    BatchView,
    HeadroomView,
    allocation_answer,
    allocation_answer_on_loop,
    batch_answer,
    headroom_answer,
)
from quotaweb.engine.owners import NOT_OWNER_HEADER
from trackers.gcpause import paused_gc

logger = logging.getLogger(__name__)

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
# Status and body, or None: Django answers instead.
Answer = tuple[int, bytes] | None
# What the event loop answers when the request must go to a thread.
_IN_A_THREAD = object()
# Larger allocate bodies (the largest valid one is about 30 KB) are read in a thread, not on the
# loop that every other connection shares.
_LOOP_BODY_BYTES = 64 * 1024

# The same patterns as the views' routes (``<str:...>`` is ``[^/]+``, ``<path:...>`` is ``.+``).
_PARTITION = r"/api/v1/partitions/(?P<partition>[^/]+)"
_ROUTES: tuple[tuple[str, re.Pattern[str], str, type], ...] = (
    ("POST", re.compile(_PARTITION + r"/allocations"), "allocate", AllocationsView),
    ("POST", re.compile(_PARTITION + r"/allocations/batch"), "batch", BatchView),
    ("DELETE", re.compile(_PARTITION + r"/allocations/(?P<key>.+)"), "release", AllocationView),
    ("GET", re.compile(_PARTITION + r"/headroom"), "headroom", HeadroomView),
)
_JSON_TYPES = frozenset({b"application/json", b"application/json; charset=utf-8",
                         b"application/json;charset=utf-8"})
# DRF answers 406 to an Accept its JSON renderer does not satisfy; these it always satisfies.
_ACCEPTED = frozenset({b"", b"*/*", b"application/json"})
_renderer = JSONRenderer()
_RETRY_AFTER = (b"Retry-After", str(Unavailable.RETRY_AFTER).encode())
# ``_failure``'s answer to a partition another peer owns begins so, and carries the marker a
# forwarding peer looks for (``core.forwarding``), as the views' answer does.
_NOT_OWNER_BODY = b'{"error":"not_owner"'
_NOT_OWNER = (NOT_OWNER_HEADER.encode(), b"1")


def _render(data: Any) -> bytes:
    """The bytes DRF's ``JSONRenderer`` gives (compact, UTF-8), written by orjson in a fifth of
    the time. DRF escapes U+2028 and U+2029 for JavaScript: answers holding them are left to it.
    These answers hold no floats, which the two write differently (orjson writes NaN as null)."""
    try:
        content = orjson.dumps(data)
    except TypeError:
        return _renderer.render(data)
    if b"\xe2\x80\xa8" in content or b"\xe2\x80\xa9" in content:
        return _renderer.render(data)
    return content


def _allow(view: type) -> bytes:
    # Django's view setup serves HEAD with GET, so its Allow names HEAD too.
    instance = view()
    instance.setup(None)
    return ", ".join(instance.allowed_methods).encode()


_allowed = {view: _allow(view) for _method, _pattern, _name, view in _ROUTES}


def _route(scope: Scope) -> tuple[str, dict[str, str], type] | None:
    if scope.get("root_path"):
        return None
    method, path = scope["method"], scope["path"]
    for route_method, pattern, name, view in _ROUTES:
        if method == route_method:
            found = pattern.fullmatch(path)
            # ``allocations/batch`` is the batch view's path whatever the method (405 for DELETE).
            if found and found.groupdict().get("key") != "batch":
                return name, found.groupdict(), view
    return None


def _headers(scope: Scope) -> dict[bytes, bytes]:
    """Request headers by lower-case name; a repeated name is left to Django."""
    out: dict[bytes, bytes] = {}
    for name, value in scope["headers"]:
        name = name.lower()
        if name in out:
            raise KeyError(name)
        out[name] = value
    return out


def _secure(scope: Scope, headers: dict[bytes, bytes]) -> bool:
    if scope.get("scheme") == "https":
        return True
    proxy = settings.SECURE_PROXY_SSL_HEADER
    if proxy is None:
        return False
    name, value = proxy
    header = name.removeprefix("HTTP_").lower().replace("_", "-").encode("latin-1")
    return headers.get(header, b"").split(b",")[0].strip() == value.encode("latin-1")


def _host_allowed(headers: dict[bytes, bytes]) -> bool:
    if settings.USE_X_FORWARDED_HOST and b"x-forwarded-host" in headers:
        return False
    host = headers.get(b"host", b"")
    allowed = _hosts_seen.get(host)
    if allowed is None:
        domain, _port = split_domain_port(host.decode("latin-1"))
        allowed = bool(domain) and validate_host(domain, settings.ALLOWED_HOSTS)
        if len(_hosts_seen) < _HOSTS_KEPT:
            _hosts_seen[host] = allowed
    return allowed


def _simple_enough(scope: Scope, name: str, headers: dict[bytes, bytes]) -> bool:
    """Whether this request is one the lean path answers as the whole stack would."""
    if headers.get(b"accept", b"").strip() not in _ACCEPTED or not _host_allowed(headers):
        return False
    if settings.SECURE_SSL_REDIRECT and not _secure(scope, headers):
        return False
    if name in ("allocate", "batch"):
        return headers.get(b"content-type", b"").lower() in _JSON_TYPES and not scope.get(
            "query_string"
        )
    if name == "headroom":
        return not repeated_parameters(scope.get("query_string", b""))
    return not scope.get("query_string")


def _token(headers: dict[bytes, bytes]) -> str | None:
    parts = headers.get(b"authorization", b"").split()
    if len(parts) != 2 or parts[0].lower() != b"token":
        return None
    try:
        return parts[1].decode()
    except UnicodeDecodeError:
        return None


def _response_headers(
    view: type, secure: bool, length: int, body: bool
) -> list[tuple[bytes, bytes]]:
    """What DRF's view and the middleware (security, clickjacking, CSP, common) add to an
    answer."""
    fixed = _fixed_headers.get((view, secure, body))
    if fixed is None:
        fixed = _fixed_headers[view, secure, body] = _headers_from_settings(view, secure, body)
    return [*fixed, (b"Content-Length", str(length).encode())]


def _headers_from_settings(view: type, secure: bool, body: bool) -> list[tuple[bytes, bytes]]:
    headers = [(b"Allow", _allowed[view])]
    if body:
        headers.insert(0, (b"Content-Type", b"application/json"))
    if secure and settings.SECURE_HSTS_SECONDS:
        value = f"max-age={settings.SECURE_HSTS_SECONDS}"
        if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS:
            value += "; includeSubDomains"
        if settings.SECURE_HSTS_PRELOAD:
            value += "; preload"
        headers.append((b"Strict-Transport-Security", value.encode()))
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers.append((b"X-Content-Type-Options", b"nosniff"))
    policy = settings.SECURE_REFERRER_POLICY
    if policy:
        text = policy if isinstance(policy, str) else ",".join(policy)
        headers.append((b"Referrer-Policy", text.encode()))
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        headers.append(
            (b"Cross-Origin-Opener-Policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY.encode())
        )
    headers.append((b"X-Frame-Options", settings.X_FRAME_OPTIONS.upper().encode()))
    # django-csp's middleware: the same policy text, built by it from the same settings.
    for header, report_only in (
        (b"Content-Security-Policy", False), (b"Content-Security-Policy-Report-Only", True)
    ):
        policy_text = build_policy(report_only=report_only)
        if policy_text:
            headers.append((header, policy_text.encode()))
    return headers


# What every answer repeats, worked out once rather than from a dozen settings per request: the
# Host headers seen (whether ALLOWED_HOSTS admits each; a scheduler sends the same one every
# time, and at most ``_HOSTS_KEPT`` are kept, so that made-up hosts cannot grow the table) and
# the answers' fixed headers. Both are forgotten when a setting changes (tests override them).
_HOSTS_KEPT = 64
_hosts_seen: dict[bytes, bool] = {}
_fixed_headers: dict[tuple[type, bool, bool], list[tuple[bytes, bytes]]] = {}


@receiver(setting_changed)
def _forget_settings(**kwargs: Any) -> None:
    _hosts_seen.clear()
    _fixed_headers.clear()


def _answer(name: str, args: dict[str, str], token: str, method: str, body: bytes,
            query: bytes) -> Answer:
    """The answer, computed in a worker thread (the database is synchronous), or None."""
    close_old_connections()
    try:
        try:
            user, _ = CachedTokenAuthentication().authenticate_credentials(token)
        except AuthenticationFailed:
            return None
        if not _may(user, method):
            return None
        partition = args["partition"]
        if name == "release":
            services.allocation_release(partition=partition, key=args["key"])
            return 204, b""
        if name == "headroom":
            data = headroom_answer(
                partition=partition, params=QueryDict(query, encoding=settings.DEFAULT_CHARSET)
            )
            return 200, _render(data)
        if name == "allocate":
            code, data = allocation_answer(partition=partition, data=json_body(body))
            return code, _render(data)
        # A batch's parsed body (thousands of containers, kept until the answer is written) is
        # read with the collector paused, as ``batch_answer`` runs.
        with paused_gc():
            return 200, _render(batch_answer(partition=partition, data=json_body(body)))
    except Exception as exc:
        return _failure(name, exc)
    finally:
        close_old_connections()


async def _answer_on_loop(
    ledger: services.LoopLedger, partition: str, token: str, body: bytes
) -> Answer | object:
    """An allocate's answer made on the event loop (``services.LoopLedger``), for a token
    whose admin is known without the database; ``_IN_A_THREAD`` for anything else."""
    user = token_user_remembered(token)
    if user is None or not quota_admin_known(user):
        return _IN_A_THREAD
    try:
        answer = await allocation_answer_on_loop(
            partition=partition, data=json_body(body), ledger=ledger
        )
    except Exception as exc:
        return _failure("allocate", exc)
    if answer is None:
        return _IN_A_THREAD
    code, data = answer
    return code, _render(data)


def _failure(name: str, exc: Exception) -> Answer:
    error = api_error_for(exc)
    if isinstance(error, (Unavailable, NotServedHere)):
        # The database is away, or the partition is another peer's: answered here (503,
        # ``_RETRY_AFTER``), not handed to the views, which would wait or write a second time.
        return 503, _renderer.render({"error": error.code, "message": error.message,
                                      "details": [], **error.extra})
    if isinstance(exc, APIException) or error is not exc:
        # An error of the contract, raised before anything changed: the views answer it again
        # in full.
        return None
    # A bug or a failed ledger write (undone in the engine): answered as the views' handler
    # answers it, not handed over, which would try the write a second time.
    logger.exception("unhandled error in the lean %s", name)
    return 500, _renderer.render({"error": "internal", "message": ERR_INTERNAL, "details": []})


class LeanAllocations:
    """ASGI: the allocation hot path answered here (see the module), the rest by ``app``.

    ``executor`` runs the synchronous part: the Django handler's own pool, whose threads keep
    their database connection between requests."""

    def __init__(self, app: ASGIApp, *, executor: Executor) -> None:
        self.app = app
        self.executor = executor
        self.limit = json_max_bytes()
        self.ledger: services.LoopLedger | None = None

    def answer_on_loop(self) -> None:
        """Make allocates on the event loop from now on, where the database allows it
        (``services.loop_ledger_open``): for the server's one long-lived loop, whose ledger
        lasts as long as the process."""
        self.ledger = services.loop_ledger_open()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = _route(scope) if scope["type"] == "http" else None
        try:
            headers = _headers(scope) if route is not None else None
        except KeyError:
            headers = None
        token = _token(headers) if headers is not None else None
        if route is None or headers is None or token is None or not _simple_enough(
            scope, route[0], headers
        ):
            await self.app(scope, receive, send)
            return
        name, args, view = route
        remembered = token_user_remembered(token)
        may = None if remembered is None else _may_known(remembered, scope["method"])
        if may is None:
            may = await self._caller_may(token, scope["method"])
        if not may:
            # Answered 401 or 403 by DRF before any body is parsed: a stranger's body (up to
            # the cap, 16 MiB) is not read into memory first.
            await self.app(scope, _bodiless(), send)
            return
        read: list[Message] = []
        body = await self._body(receive, read)
        answer: Answer | object = None if body is None else _IN_A_THREAD
        if (
            body is not None and name == "allocate" and self.ledger is not None
            and len(body) <= _LOOP_BODY_BYTES and remembered is not None
        ):
            answer = await _answer_on_loop(self.ledger, args["partition"], token, body)
        if answer is _IN_A_THREAD:
            answer = await asyncio.get_running_loop().run_in_executor(
                self.executor, _answer, name, args, token, scope["method"], body,
                scope.get("query_string", b""),
            )
        if answer is None:
            await self.app(scope, _replay(read, receive), send)
            return
        code, content = answer
        response_headers = _response_headers(view, _secure(scope, headers), len(content),
                                             bool(content))
        if code == 503:
            response_headers.append(_RETRY_AFTER)
            if content.startswith(_NOT_OWNER_BODY):
                response_headers.append(_NOT_OWNER)
        await send({
            "type": "http.response.start", "status": code, "headers": response_headers,
        })
        await send({"type": "http.response.body", "body": content})

    async def _caller_may(self, token: str, method: str) -> bool:
        """Whether the token's account may make this call, asked in a worker thread (the
        database). A failure to tell is left to the views, which read the body and answer as
        they do."""
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self.executor, _caller_may, token, method
            )
        except Exception:
            return True

    async def _body(self, receive: Receive, read: list[Message]) -> bytes | None:
        """The whole body, or None (over the cap, or the client left): Django's to answer."""
        size = 0
        while True:
            message = await receive()
            read.append(message)
            if message["type"] != "http.request":
                return None
            size += len(message.get("body", b""))
            if size > self.limit:
                return None
            if not message.get("more_body"):
                return b"".join(m.get("body", b"") for m in read)


def _may_known(user: Any, method: str) -> bool | None:
    """``_may`` without the database, or None."""
    return viewer_known(user) if method == "GET" else quota_admin_known(user)


def _may(user: Any, method: str) -> bool:
    return is_viewer(user) if method == "GET" else is_quota_admin(user)


def _caller_may(token: str, method: str) -> bool:
    """``LeanAllocations._caller_may`` in a worker thread."""
    close_old_connections()
    try:
        try:
            user, _ = CachedTokenAuthentication().authenticate_credentials(token)
        except AuthenticationFailed:
            return False
        return _may(user, method)
    finally:
        close_old_connections()


def _bodiless() -> Receive:
    """``receive`` for a request answered before its body matters: an empty body at once, then
    nothing. Django waits on it for the client to leave while the view runs and stops waiting
    once it has answered; the client's own messages are never taken, so its body is not read."""
    given = False

    async def receive_without_body() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.get_running_loop().create_future()
        raise AssertionError("never set")

    return receive_without_body


def _replay(read: list[Message], receive: Receive) -> Receive:
    """``receive`` that first gives back the messages the lean path has already read."""
    pending = list(read)

    async def again() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return again
