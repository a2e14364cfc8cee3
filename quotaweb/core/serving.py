"""Serving with daphne, shared by ``manage.py serve``, ``demo`` and ``web``.

- ``serve``: run daphne in this process (no autoreloader, no second process) until a signal,
  on the socket the command took before it loaded anything (``core.ownership.port_claim``),
  without Twisted's parsing of form bodies (``RawBodyServer``).
  With ``drain_seconds`` (``manage.py serve``), the first SIGTERM or SIGINT drains instead of
  stopping at once: see ``DrainingServer``.
- ``engines_start_for``: the engines from the active version, as a command reports it.
- ``owner_threads_start``: the background work of the process that owns the engines (the
  engine channel for ``manage.py web`` processes, the usage sampler, the elastic worker, the
  ledger's upkeep).
"""

from __future__ import annotations

import signal
import socket
import sys
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# daphne's server module installs Twisted's asyncio reactor; the daphne app (first in
# INSTALLED_APPS) has imported it already in every process.
from daphne.endpoints import build_endpoint_description_strings
from daphne.http_protocol import WebRequest
from daphne.server import Server
from daphne.ws_protocol import WebSocketProtocol
from django.conf import settings
from django.core.management.base import CommandError
from twisted.internet import reactor

from quotaweb.allocations.history import DenialWriter
from quotaweb.allocations.upkeep import ledger_upkeep_start
from quotaweb.api.parsers import json_max_bytes
from quotaweb.config.services import ConfigRejected
from quotaweb.core.forwarding import Forwarding
from quotaweb.core.ownership import Ownership
from quotaweb.core.request_limits import limited_channel_protocol
from quotaweb.core.services import engines_start
from quotaweb.elastic.worker import elastic_worker_start
from quotaweb.engine.gateway import Gateway
from quotaweb.redaction import RedactedAccessLog
from quotaweb.usage.owner import engine_channel_for, owner_group_for, owner_start
from quotaweb.usage.rollups import history_upkeep_start
from quotaweb.usage.sampler import sampler_start
from trackers.gcpause import freeze_survivors

# How long a thread may keep the interpreter while another waits for it. At CPython's 5 ms, a
# thread back from the database (SQLite's ledger writer, a request thread) waited up to that long
# behind a busy event loop each time it took the interpreter again, several times a write: with a
# loop kept busy by other work, a small SQLite write in another thread took p50 9.7 ms at 5 ms and
# 0.9 ms at 0.5 ms (docs/design.md, "The interpreter's switch interval"); the loop did no less.
SWITCH_INTERVAL_SECONDS = 0.0005

# The collector's full passes a hundred times rarer than its middle ones instead of ten. Live
# allocations come and go after the start's freeze, so each full pass walked the whole live set
# (10,000 allocations: about 10-20 ms here, holding every request): at 16 clients the allocates'
# p99 was 23-24 ms with CPython's (700, 10, 10) and 13-14 ms with this, the rate the same
# (docs/benchmarks.md, "Concurrent single allocates"). Cyclic garbage that outlives two passes
# waits longer for its collection; everything else is freed as before, by reference counting.
GC_THRESHOLDS = (700, 10, 100)

MSG_OWNER = (
    "This process owns the engines: web processes started with manage.py web serve live "
    "sockets through it (QUOTAWEB_ENGINE_OWNER=channel)."
)
MSG_DRAINING = (
    "{signal} received: no new connections; waiting up to {seconds:g} s for {busy} request(s) in "
    "flight (a second signal stops at once)"
)
MSG_DRAINED = "Drained in {seconds:.1f} s; stopping."
MSG_DRAIN_TIMEOUT = "{busy} request(s) still running after {seconds:g} s; stopping anyway."
# WebSocket close code 1001: the server is going away; live.js reconnects (to another process).
GOING_AWAY = 1001
# How long closed connections get to flush their last bytes before the reactor stops.
FLUSH_SECONDS = 2.0
POLL_SECONDS = 0.05
# A drain: every connection queued on the listening socket is taken (Twisted accepts at most
# this many in one go), and requests sent on them are read for this long before none counts
# as in flight.
ACCEPT_ALL = 10_000
ARRIVING_SECONDS = 0.2


def port_number(text: str) -> int:
    port = int(text)
    if not 0 < port < 65536:
        raise ValueError(text)
    return port


def site_url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}/"


def engines_start_for(
    config_path: Path | str, write: Callable[[str], None], *, leased: bool = False
) -> Gateway:
    """``engines_start`` for a command: the engines of the active version (``config_path``
    imported as version 1 while the database has none), a line per partition through
    ``write``; an unreadable or invalid file is a ``CommandError`` listing every problem.
    With ``leased``, the configuration only: the partitions come with their leases."""
    try:
        gateway = engines_start(config_path=config_path, leased=leased)
    except OSError as exc:
        raise CommandError(f"Cannot read the configuration {config_path}: {exc}") from exc
    except ConfigRejected as exc:
        lines = [f"The configuration {config_path} is not valid:"]
        lines += [f"  [{e['code']}] {e['path']}: {e['message']}" for e in exc.errors]
        raise CommandError("\n".join(lines)) from exc
    write(f"Active configuration: version {gateway.config_version}")
    for name in gateway.partitions():
        summary = gateway.summary(name)
        write(
            f"  partition {name}: {summary['queues']} queues; named in limits: "
            f"{summary['users']} users, {summary['groups']} groups"
        )
    return gateway


@dataclass
class OwnerThreads:
    """The engine owner's background threads, told to end (``signal``) and awaited (``join``)
    once the server has stopped. Only a process that owns the engines has them."""

    ownership: Ownership
    stop_event: threading.Event = field(default_factory=threading.Event)
    threads: list[threading.Thread] = field(default_factory=list)

    def signal(self) -> None:
        self.stop_event.set()

    def join(self, timeout: float = 5) -> None:
        for thread in self.threads:
            thread.join(timeout=timeout)

    def stop(self, timeout: float = 5) -> None:
        self.signal()
        self.join(timeout)


def owner_threads_start(
    write: Callable[[str], None], *, ownership: Ownership
) -> OwnerThreads:
    """Start what the process that owns the engines (``ownership``, claimed before they were
    loaded) runs beside its server: in channel mode the engine channel that sockets of
    ``manage.py web`` processes ask for snapshots; the usage sampler (trends, the over-limit
    list); the elastic worker (enforced runtimes); the history's denial writer and its folding
    into the accounting (``allocations.history``, ``usage.rollups``); on PostgreSQL the
    ledger's upkeep
    (``allocations.upkeep``). ``write`` gets one line for the operator when the engine channel
    starts."""
    owner = OwnerThreads(ownership=ownership)
    if settings.QUOTAWEB_ENGINE_OWNER == "channel":
        # Runs until the process ends (a daemon thread with its own event loop).
        owner_start()
        write(MSG_OWNER)
    elif ownership.leases is not None and settings.REDIS_URL:
        # A peer: the sockets of every peer ask it for the partitions it owns, on its own
        # channel (``usage.consumers`` follows each partition's owner).
        owner.threads.append(owner_start(
            channel=engine_channel_for(ownership.leases.name),
            group=owner_group_for(ownership.leases.name), stop=owner.stop_event,
        ))
    owner.threads.append(sampler_start(stop=owner.stop_event))
    owner.threads.append(elastic_worker_start(stop=owner.stop_event))
    owner.threads.append(DenialWriter().start(stop=owner.stop_event))
    owner.threads.append(history_upkeep_start(stop=owner.stop_event))
    upkeep = ledger_upkeep_start(stop=owner.stop_event)
    if upkeep is not None:
        owner.threads.append(upkeep)
    return owner


def serve(
    *, host: str, port: int, listening: socket.socket, drain_seconds: float | None = None,
    proxy_headers: bool = False,
) -> None:
    """Run daphne in this process until a signal (Ctrl-C or SIGTERM), on ``listening``: the
    socket ``ownership.port_claim`` bound to ``host:port`` before anything was loaded.

    Without ``drain_seconds``, daphne's own handling: a signal stops at once and cancels what
    is running. With it, the first signal drains (``DrainingServer``). ``proxy_headers`` takes
    the client's address, port and scheme from X-Forwarded-For, -Port and -Proto (only behind a
    proxy that sets them)."""
    import gc

    # Imported here: the ASGI module builds the application (a handler with its thread pool).
    from quotaweb.asgi import application, lean_allocations

    # daphne's one loop runs as long as the process: allocates are made on it.
    lean_allocations.answer_on_loop()

    # What exists now (Django, the configuration, the engines and the restored ledger) lives as
    # long as the process: out of the collector's sight, a collection scans only what requests
    # made since, instead of the whole engine again and again.
    gc.collect()
    gc.freeze()
    freeze_survivors()
    gc.set_threshold(*GC_THRESHOLDS)
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
    server_for(
        # A partition another peer owns is answered by that peer (PostgreSQL leases; without
        # them everything passes straight through).
        Forwarding(application), host=host, port=port, drain_seconds=drain_seconds,
        proxy_headers=proxy_headers, listening=listening,
    ).run()


LISTEN_BACKLOG = 1024


def server_for(
    application: Any, *, host: str, port: int, drain_seconds: float | None = None,
    proxy_headers: bool = False, listening: socket.socket | None = None,
) -> Server:
    """The daphne server ``serve`` runs, for any ASGI ``application`` (``benchmarks/api.py``
    measures its floor with a trivial one on the very same server)."""
    options = {
        "application": application,
        # Twisted listens with a backlog of 50: 1,000 pages reconnecting at once (a restart)
        # overflowed it and connections were reset. The kernel caps it (net.core.somaxconn).
        "endpoints": [f"{endpoint}:backlog={LISTEN_BACKLOG}"
                      for endpoint in build_endpoint_description_strings(host=host, port=port)],
        "action_logger": RedactedAccessLog(sys.stdout),
        "verbosity": 1,
        # daphne hands a body to the application in pieces of this size, 8 KiB unless told: a
        # batch of 1,000 allocations (200 KB) came as 25 messages, each through daphne's queue
        # and the application's loop. daphne holds the whole body before the application
        # starts, so one piece up to the API's cap costs no memory more.
        "request_buffer_size": json_max_bytes(),
    }
    if proxy_headers:
        options.update(
            proxy_forwarded_address_header="X-Forwarded-For",
            proxy_forwarded_port_header="X-Forwarded-Port",
            proxy_forwarded_proto_header="X-Forwarded-Proto",
        )
    if drain_seconds is None:
        return RawBodyServer(signal_handlers=True, listening=listening, **options)
    return DrainingServer(drain_seconds=drain_seconds, listening=listening, **options)


class RawBodyServer(Server):
    """daphne's server, without Twisted's parsing of form bodies, answering 414 and 431 at its
    request line and header limits (``http_factory``).

    Twisted's request parses every POST body that says it is a form (URL-encoded or multipart)
    into ``request.args``, and before that reads its ``Content-Type`` through the standard
    library's email parser, whatever the type. daphne hands the application the raw body and
    never reads ``args``; Django parses forms itself. The parse cost an eighth of the server's CPU
    on each single allocate, and a multipart upload was held in memory twice. The request
    takes the switch as a constructor argument (``parsePOSTFormSubmission``); daphne makes the
    request itself, so the switch is set here, where daphne announces each new request (before
    Twisted reads its body).

    With ``listening``, it serves on that socket, bound and listening already, instead of the
    endpoints it is given (which only name the address)."""

    def __init__(self, *, listening: socket.socket | None = None, **options) -> None:
        super().__init__(**options)
        self.listening = listening
        if listening is not None:
            # daphne insists on an endpoint description; its "fd:" one cannot say IPv6, so the
            # socket is adopted directly (``_adopt``) and daphne binds nothing.
            self.endpoints = []

    def run(self) -> None:
        if self.listening is not None:
            reactor.callWhenRunning(self._adopt, self.listening)
        super().run()

    def _adopt(self, listening: socket.socket) -> None:
        listening.setblocking(False)
        try:
            port = reactor.adoptStreamPort(listening.fileno(), listening.family, self.http_factory)
        finally:
            # Twisted serves on a copy of the descriptor: this one closed, stopping its port
            # (a drain) closes the socket and new connections are refused.
            listening.close()
        self.listen_success(port)

    def protocol_connected(self, protocol) -> None:
        super().protocol_connected(protocol)
        if isinstance(protocol, WebRequest):
            protocol._parsePOSTFormSubmission = False

    # daphne makes its HTTP factory in ``run``: each connection it builds gets a channel that
    # answers 414 and 431 at Twisted's limits instead of a dropped connection or a bare 400
    # (``quotaweb.core.request_limits``).
    @property
    def http_factory(self) -> Any:
        return self._http_factory

    @http_factory.setter
    def http_factory(self, factory: Any) -> None:
        factory.protocol = limited_channel_protocol
        self._http_factory = factory


class DrainingServer(RawBodyServer):
    """daphne's server with a graceful stop.

    daphne stops the reactor on SIGTERM or SIGINT and cancels every request still running,
    so a request in flight gets no answer (its allocation may well have been stored). Here
    the first signal instead: stops listening (new connections are refused, so a load
    balancer moves on), closes live sockets with 1001 "going away" (pages reconnect, to
    another process if there is one), waits until every HTTP request in flight has sent
    its answer (at most ``drain_seconds``), closes the kept-alive connections once their
    last bytes are out, and then stops. A second signal stops at once.
    """

    def __init__(self, *, drain_seconds: float, **options) -> None:
        super().__init__(signal_handlers=False, **options)
        self.drain_seconds = drain_seconds
        self.draining = False
        self.ports: list = []
        self.channels: weakref.WeakSet = weakref.WeakSet()

    def run(self) -> None:
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, self._on_signal)
        super().run()

    def _on_signal(self, number, frame) -> None:
        name = signal.Signals(number).name
        if self.draining:
            reactor.callFromThread(self.stop)
        else:
            self.draining = True
            reactor.callFromThread(self.drain, name)

    def listen_success(self, port) -> None:
        self.ports.append(port)
        super().listen_success(port)

    def protocol_connected(self, protocol) -> None:
        super().protocol_connected(protocol)
        if isinstance(protocol, WebRequest):
            # The connection a request came on, to close once it is idle.
            self.channels.add(protocol.channel)

    async def handle_reply(self, protocol, message) -> None:
        if (
            self.draining and isinstance(protocol, WebRequest)
            and message.get("type") == "http.response.start"
        ):
            # An answer sent while draining closes its connection, so the client does not send
            # its next request down a connection about to close.
            headers = [*message.get("headers", []), (b"connection", b"close")]
            message = {**message, "headers": headers}
            if protocol.channel is not None:
                protocol.channel.persistent = False
        await super().handle_reply(protocol, message)

    def in_flight(self) -> list:
        """HTTP requests that have not sent their whole answer (nor lost their client)."""
        return [
            protocol for protocol, details in list(self.connections.items())
            if isinstance(protocol, WebRequest) and not details.get("disconnected")
        ]

    def drain(self, name: str) -> None:
        self.draining = True
        for port in self.ports:
            # Closing a listening socket resets the connections still queued on it, whose
            # clients may well have sent their request already: take them first, and answer
            # them like any request in flight.
            port.numberAccepts = ACCEPT_ALL
            port.doRead()
            port.stopListening()
        for protocol in list(self.connections):
            if isinstance(protocol, WebSocketProtocol) and protocol.state == protocol.STATE_OPEN:
                protocol.serverClose(code=GOING_AWAY)
        print(
            MSG_DRAINING.format(
                signal=name, seconds=self.drain_seconds, busy=len(self.in_flight())
            ),
            flush=True,
        )
        started = time.monotonic()
        # A connection just taken may not have had its request read yet: give the reactor a
        # moment to read what its client sent before deciding nothing is in flight.
        reactor.callLater(
            ARRIVING_SECONDS, self._wait_for_requests, started, started + self.drain_seconds
        )

    def _wait_for_requests(self, started: float, deadline: float) -> None:
        busy = self.in_flight()
        now = time.monotonic()
        if busy and now < deadline:
            reactor.callLater(POLL_SECONDS, self._wait_for_requests, started, deadline)
            return
        if busy:
            print(MSG_DRAIN_TIMEOUT.format(busy=len(busy), seconds=self.drain_seconds),
                  flush=True)
        else:
            print(MSG_DRAINED.format(seconds=now - started), flush=True)
        # Idle kept-alive connections: closed after their buffered bytes are written.
        for channel in list(self.channels):
            if channel.transport is not None:
                channel.transport.loseConnection()
        self._wait_for_flush(time.monotonic() + FLUSH_SECONDS)

    def _wait_for_flush(self, deadline: float) -> None:
        open_channels = [
            channel for channel in list(self.channels)
            if channel.transport is not None and getattr(channel.transport, "connected", 0)
        ]
        if open_channels and time.monotonic() < deadline:
            reactor.callLater(POLL_SECONDS, self._wait_for_flush, deadline)
            return
        self.stop()
