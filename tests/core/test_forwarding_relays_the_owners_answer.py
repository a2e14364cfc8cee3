"""``core.forwarding`` on its own: which paths belong to a unit, and what a peer does with a
request for a unit it does not hold (sent to the owner, answered with the owner's answer; looked
up again while it moves or the owner refuses; 503 with Retry-After at the bound), against a
small HTTP server standing in for the owner. ``core.peer_http``: answers read by length and
chunked, connections kept and replaced when the peer closed them."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest

from quotaweb import metrics
from quotaweb.core import forwarding
from quotaweb.core.forwarding import HOP_HEADER, Forwarding, kind_of, unit_of
from quotaweb.core.peer_http import PeerClient, PeerSilent, PeerUnreachable
from quotaweb.engine.owners import NOT_OWNER_HEADER, UNIT_TREES
from tests.server_process import free_port

pytestmark = pytest.mark.asyncio

ALLOCATION = b'{"allocationKey": "k1"}'


@pytest.mark.parametrize(("path", "unit"), [
    ("/api/v1/partitions/alpha/allocations", "alpha"),
    ("/api/v1/partitions/alpha/allocations/batch", "alpha"),
    ("/api/v1/partitions/a b/allocations/x/y", "a b"),
    ("/ws/v1/partition/beta/usage/users", "beta"),
    ("/usage/gamma/", "gamma"),
    ("/usage/gamma/users/u1/", "gamma"),
    ("/elastic/gamma/switch/", "gamma"),
    ("/api/v1/quota-trees", UNIT_TREES),
    ("/api/v1/forests/f/mode", UNIT_TREES),
    ("/trees/", UNIT_TREES),
    ("/usage/", None),
    ("/elastic/", None),
    ("/ws/v1/partitions", None),
    ("/api/v1/config", None),
    ("/api/v1/owners", None),
    ("/healthz", None),
])
async def test_the_unit_of_a_path(path, unit):
    assert unit_of(path) == unit


@pytest.mark.parametrize(("method", "path", "kind"), [
    ("POST", "/api/v1/partitions/p/allocations", "allocate"),
    ("POST", "/api/v1/partitions/p/allocations/batch", "batch"),
    ("DELETE", "/api/v1/partitions/p/allocations/k", "release"),
    ("DELETE", "/api/v1/partitions/p/applications/a", "release"),
    ("GET", "/api/v1/partitions/p/allocations", "api"),
    ("GET", "/ws/v1/partition/p/queues", "yunikorn"),
    ("GET", "/usage/p/", "page"),
])
async def test_the_kind_of_a_request(method, path, kind):
    assert kind_of(method, path) == kind


@dataclass
class Owner:
    """A peer standing in for the owner: answers each request with the next of ``answers``
    (status, headers, body), or never (``silent``); keeps what it was sent."""

    answers: list[tuple[int, list[tuple[bytes, bytes]], bytes]] = field(default_factory=list)
    silent: bool = False
    requests: list[tuple[bytes, dict[bytes, bytes], bytes]] = field(default_factory=list)
    connections: int = 0
    port: int = 0

    async def start(self) -> asyncio.Server:
        self.port = free_port()
        return await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while line := await reader.readline():
                headers = {}
                while (header := await reader.readline()) not in (b"\r\n", b""):
                    name, _, value = header.partition(b":")
                    headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get(b"content-length", b"0")))
                self.requests.append((line.strip(), headers, body))
                if self.silent:
                    await asyncio.sleep(3600)
                status, extra, content = self.answers.pop(0)
                head = [f"HTTP/1.1 {status} X\r\n".encode()]
                head += [name + b": " + value + b"\r\n" for name, value in extra]
                if not any(name.lower() == b"transfer-encoding" for name, _ in extra):
                    head.append(f"Content-Length: {len(content)}\r\n".encode())
                writer.write(b"".join(head) + b"\r\n" + content)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


class Here:
    """This peer's own application: records what it is asked and answers 200 "here", or the
    refusal of a partition it no longer serves while ``refuse`` is set."""

    def __init__(self, *, refuse: bool = False) -> None:
        self.calls: list[bytes] = []
        self.refuse = refuse

    async def __call__(self, scope, receive, send) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        self.calls.append(body)
        if self.refuse:
            await send({"type": "http.response.start", "status": 503,
                        "headers": [(NOT_OWNER_HEADER.encode(), b"1")]})
            await send({"type": "http.response.body", "body": b"refused"})
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"here"})


@pytest.fixture
def owners(monkeypatch):
    """Who owns what, as this peer sees it: {unit: (name, address)}, ("", "") for here; a
    unit left out is moving."""
    table: dict[str, tuple[str, str]] = {}
    gateway = SimpleNamespace(configured=lambda: ["alpha", "beta"], where=table.get)
    monkeypatch.setattr(forwarding, "engines_get", lambda: gateway)
    monkeypatch.setattr(forwarding, "peer_current",
                        lambda: SimpleNamespace(name="me", trees_epoch=None))
    # Short bounds, so that the waits of these tests are short.
    monkeypatch.setattr(Forwarding, "wait_seconds", 0.3)
    monkeypatch.setattr(Forwarding, "answer_seconds", 0.5)
    metrics.reset()
    return table


def _scope(method: str, path: str, headers: list[tuple[bytes, bytes]] | None = None) -> dict:
    return {"type": "http", "method": method, "path": path, "raw_path": path.encode(),
            "query_string": b"", "headers": headers if headers is not None else [
                (b"host", b"quotaweb.example"), (b"authorization", b"Token t0k"),
                (b"content-type", b"application/json"), (b"connection", b"keep-alive"),
            ]}


async def _call(app, scope: dict, body: bytes = b"") -> tuple[int, dict[bytes, bytes], bytes]:
    parts = [body[:5], body[5:]]
    sent: list[dict] = []

    async def receive():
        if parts:
            chunk = parts.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(parts)}
        await asyncio.sleep(3600)
        raise AssertionError("the client never left")

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    start, = (m for m in sent if m["type"] == "http.response.start")
    return (start["status"], {k.lower(): v for k, v in start["headers"]},
            b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"))


async def test_a_request_for_a_unit_held_elsewhere_gets_the_owners_answer(owners):
    owner = Owner(answers=[(201, [(b"Content-Type", b"application/json"),
                                  (b"Location", b"/api/v1/partitions/alpha/allocations/k1"),
                                  (b"Connection", b"keep-alive"), (b"Server", b"daphne")],
                            b'{"allocated": true}')])
    server = await owner.start()
    owners["alpha"] = ("peer1", owner.address)
    here = Here()
    try:
        status, headers, body = await _call(
            Forwarding(here), _scope("POST", "/api/v1/partitions/alpha/allocations"), ALLOCATION
        )
    finally:
        server.close()
    assert (status, body) == (201, b'{"allocated": true}')
    assert headers[b"location"] == b"/api/v1/partitions/alpha/allocations/k1"
    assert headers[b"content-type"] == b"application/json"
    assert b"connection" not in headers
    assert b"server" not in headers
    assert here.calls == []
    (line, sent, body_sent), = owner.requests
    assert line == b"POST /api/v1/partitions/alpha/allocations HTTP/1.1"
    assert body_sent == ALLOCATION
    # The credentials and the Host as the client sent them, and the hop.
    assert sent[b"authorization"] == b"Token t0k"
    assert sent[b"host"] == b"quotaweb.example"
    assert sent[HOP_HEADER] == b"me"
    assert b"connection" not in sent
    assert metrics.render().count(
        'quotaweb_forwarded_requests_total{kind="allocate",outcome="answered"} 1.0'
    ) == 1


async def test_without_leases_and_for_other_paths_nothing_is_forwarded(owners, monkeypatch):
    owners["alpha"] = ("peer1", "127.0.0.1:1")
    here = Here()
    app = Forwarding(here)
    assert (await _call(app, _scope("GET", "/api/v1/config")))[0] == 200
    monkeypatch.setattr(forwarding, "peer_current", lambda: None)
    assert (await _call(app, _scope("POST", "/api/v1/partitions/alpha/allocations"),
                        ALLOCATION))[0] == 200
    assert here.calls == [b"", ALLOCATION]


async def test_a_forwarded_request_is_never_forwarded_again(owners):
    owners["alpha"] = ("peer1", "127.0.0.1:1")
    here = Here(refuse=True)
    status, _, body = await _call(
        Forwarding(here),
        _scope("POST", "/api/v1/partitions/alpha/allocations", [(HOP_HEADER, b"peer2")]),
        ALLOCATION,
    )
    # This peer's own answer, whatever it is: no second hop, no wait.
    assert (status, body) == (503, b"refused")
    assert here.calls == [ALLOCATION]


async def test_a_refusal_here_is_answered_by_the_new_owner_with_the_same_body(owners):
    owner = Owner(answers=[(201, [], b"there")])
    server = await owner.start()
    owners["alpha"] = ("", "")
    here = Here(refuse=True)
    app = Forwarding(here)

    async def moves() -> None:
        while not here.calls:
            await asyncio.sleep(0.01)
        owners["alpha"] = ("peer1", owner.address)

    try:
        mover = asyncio.create_task(moves())
        status, _, body = await _call(
            app, _scope("POST", "/api/v1/partitions/alpha/allocations"), ALLOCATION
        )
        await mover
    finally:
        server.close()
    assert (status, body) == (201, b"there")
    assert here.calls == [ALLOCATION]
    assert owner.requests[0][2] == ALLOCATION


async def test_an_owner_that_refuses_is_asked_again_after_looking_again(owners):
    refusal = (503, [(NOT_OWNER_HEADER.encode(), b"1"), (b"Retry-After", b"2")], b"not me")
    owner = Owner(answers=[refusal, (200, [], b"done")])
    server = await owner.start()
    owners["alpha"] = ("peer1", owner.address)
    try:
        status, _, body = await _call(
            Forwarding(Here()), _scope("DELETE", "/api/v1/partitions/alpha/allocations/k")
        )
    finally:
        server.close()
    assert (status, body) == (200, b"done")
    assert len(owner.requests) == 2


@pytest.mark.parametrize(("path", "shape"), [
    ("/api/v1/partitions/alpha/allocations", "api"),
    ("/ws/v1/partition/alpha/queues", "yunikorn"),
    ("/usage/alpha/", "page"),
])
async def test_a_unit_that_stays_moving_is_a_503_with_retry_after_at_the_bound(
    owners, path, shape
):
    loop = asyncio.get_running_loop()
    started = loop.time()
    status, headers, body = await _call(Forwarding(Here()), _scope("GET", path))
    assert loop.time() - started >= 0.3
    assert status == 503
    assert headers[b"retry-after"] == b"2"
    if shape == "api":
        assert json.loads(body)["error"] == "not_owner"
        assert "moving" in json.loads(body)["message"]
    elif shape == "yunikorn":
        assert json.loads(body)["status_code"] == 503
    else:
        assert headers[b"content-type"].startswith(b"text/html")
        assert b"moving" in body


async def test_an_owner_that_cannot_be_reached_is_named_in_the_503(owners):
    owners["alpha"] = ("peer1", f"127.0.0.1:{free_port()}")
    status, headers, body = await _call(
        Forwarding(Here()), _scope("POST", "/api/v1/partitions/alpha/allocations"), ALLOCATION
    )
    assert status == 503
    assert headers[b"retry-after"] == b"2"
    answer = json.loads(body)
    assert (answer["owner"], answer["address"]) == ("peer1", owners["alpha"][1])
    assert "peer1" in answer["message"]
    assert 'outcome="unreachable"' in metrics.render()


async def test_an_owner_that_does_not_answer_is_not_sent_the_request_twice(owners):
    owner = Owner(silent=True)
    server = await owner.start()
    owners["alpha"] = ("peer1", owner.address)
    try:
        status, headers, body = await _call(
            Forwarding(Here()), _scope("POST", "/api/v1/partitions/alpha/allocations"),
            ALLOCATION,
        )
    finally:
        server.close()
    assert status == 503
    assert headers[b"retry-after"] == b"2"
    assert "may have been carried out" in json.loads(body)["message"]
    assert len(owner.requests) == 1


async def test_the_client_reads_chunked_answers_and_keeps_its_connection():
    owner = Owner(answers=[
        (200, [(b"Transfer-Encoding", b"chunked")], b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"),
        (204, [], b""),
    ])
    server = await owner.start()
    client = PeerClient()
    try:
        first = await client.request(owner.address, method="GET", target=b"/x", headers=[],
                                     body=b"", connect_seconds=1, answer_seconds=1)
        second = await client.request(owner.address, method="DELETE", target=b"/y",
                                      headers=[], body=b"", connect_seconds=1, answer_seconds=1)
    finally:
        client.close()
        server.close()
    assert (first.status, first.body) == (200, b"abcde")
    assert second.status == 204
    assert owner.connections == 1


async def test_the_client_tells_unreachable_from_silent():
    client = PeerClient()
    with pytest.raises(PeerUnreachable):
        await client.request(f"127.0.0.1:{free_port()}", method="GET", target=b"/",
                             headers=[], body=b"", connect_seconds=1, answer_seconds=1)
    owner = Owner(silent=True)
    server = await owner.start()
    try:
        with pytest.raises(PeerSilent):
            await client.request(owner.address, method="GET", target=b"/", headers=[],
                                 body=b"", connect_seconds=1, answer_seconds=0.2)
    finally:
        client.close()
        server.close()
