"""A request line over the server's limit is answered 414 and headers over it 431, each with a
short text saying which limit, instead of a connection closed without a status (a long line) or
a bare 400 (too many or too large headers). Through daphne's HTTP protocol as ``manage.py
serve`` builds it (``serving.RawBodyServer``); a request within the limits reaches the
application as before."""

from __future__ import annotations

import pytest
from daphne.http_protocol import HTTPFactory, WebRequest
from daphne.server import Server
from twisted.internet.testing import StringTransport

from quotaweb.core.request_limits import (
    MSG_HEADERS_TOO_LARGE,
    MSG_URI_TOO_LONG,
    LimitedHTTPChannel,
)
from quotaweb.core.serving import RawBodyServer

LIMIT = LimitedHTTPChannel.MAX_LENGTH  # 16 KiB, also the request line and headers together
HOST = b"Host: 127.0.0.1\r\n"


def _send(server_class: type[Server], request: bytes, monkeypatch) -> tuple[list, bytes, bool]:
    """``request`` through a connection of ``server_class``'s HTTP factory: the paths that
    reached the application, what was written back, and whether the connection was closed."""
    reached: list = []
    monkeypatch.setattr(WebRequest, "process", lambda self: reached.append(self.path))
    server = server_class(application=None, endpoints=["tcp:port=0:interface=127.0.0.1"])
    server.connections = {}
    server.http_factory = HTTPFactory(server)  # as ``Server.run`` makes it
    protocol = server.http_factory.buildProtocol(None)
    transport = StringTransport()
    protocol.makeConnection(transport)
    protocol.dataReceived(request)
    return reached, transport.value(), transport.disconnecting


def _get(path: bytes, headers: bytes = HOST) -> bytes:
    return b"GET " + path + b" HTTP/1.1\r\n" + headers + b"\r\n"


def _answer(status: bytes, text: str) -> bytes:
    body = text.encode()
    return (b"HTTP/1.1 " + status + b"\r\nContent-Type: text/plain; charset=utf-8\r\n"
            b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))


URI_TOO_LONG = _answer(b"414 URI Too Long", MSG_URI_TOO_LONG.format(limit=LIMIT))
HEADERS_TOO_LARGE = _answer(b"431 Request Header Fields Too Large",
                            MSG_HEADERS_TOO_LARGE.format(size=LIMIT, count=500))


@pytest.mark.parametrize(("request_bytes", "answer"), [
    pytest.param(_get(b"/api/v1/x?" + b"a" * LIMIT), URI_TOO_LONG, id="long request line"),
    pytest.param(_get(b"/api/v1/x?" + b"a" * (LIMIT - 40), HOST + b"X-A: " + b"a" * 100 + b"\r\n"),
                 HEADERS_TOO_LARGE, id="a long request line and headers over the total"),
    pytest.param(_get(b"/", HOST + b"X-Big: " + b"b" * LIMIT + b"\r\n"), HEADERS_TOO_LARGE,
                 id="one long header"),
    pytest.param(_get(b"/", HOST + b"".join(b"X-%d: %s\r\n" % (n, b"c" * 100)
                                            for n in range(200))),
                 HEADERS_TOO_LARGE, id="headers over the total"),
    pytest.param(_get(b"/", HOST + b"".join(b"X-%d: c\r\n" % n for n in range(600))),
                 HEADERS_TOO_LARGE, id="too many headers"),
])
def test_over_a_limit_is_answered_and_closed(request_bytes, answer, monkeypatch):
    reached, written, closed = _send(RawBodyServer, request_bytes, monkeypatch)
    assert (reached, written, closed) == ([], answer, True)


def test_within_the_limits_the_request_reaches_the_application(monkeypatch):
    path = b"/api/v1/x?" + b"a" * (LIMIT // 2)
    headers = HOST + b"".join(b"X-%d: c\r\n" % n for n in range(400))
    reached, written, closed = _send(RawBodyServer, _get(path, headers), monkeypatch)
    assert (reached, written, closed) == ([path.split(b"?")[0]], b"", False)


def test_daphne_alone_drops_a_long_request_line_without_a_status(monkeypatch):
    reached, written, closed = _send(Server, _get(b"/" + b"a" * LIMIT), monkeypatch)
    assert (reached, written, closed) == ([], b"", True)
