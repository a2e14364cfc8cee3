"""The server hands every POST body to the application as it came: Twisted does not parse form
bodies first (``serving.RawBodyServer``), which cost an eighth of a single allocate's server CPU,
held multipart uploads in memory twice, and answered a malformed multipart body with a bare 400 of
its own before Django could answer it."""

from __future__ import annotations

import pytest
from daphne.http_protocol import HTTPFactory, WebRequest
from daphne.server import Server
from twisted.internet.testing import StringTransport

from quotaweb.core.serving import RawBodyServer

MALFORMED_MULTIPART = (
    b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Content-Type: multipart/form-data; boundary=xyz\r\nContent-Length: 7\r\n\r\ngarbage"
)
FORM = (
    b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 7\r\n\r\nuser=me"
)


def _send(server_class: type[Server], request: bytes, monkeypatch) -> tuple[list, bytes]:
    """``request`` through daphne's HTTP protocol with ``server_class``: what reached the point
    where daphne starts the application (each request's parsed ``args`` and body), and what was
    written back to the client."""
    reached: list = []

    def process(self) -> None:
        reached.append((self.args, self.content.read()))

    monkeypatch.setattr(WebRequest, "process", process)
    server = server_class(application=None, endpoints=["tcp:port=0:interface=127.0.0.1"])
    # Set by ``run``, which these requests never need.
    server.connections = {}
    protocol = HTTPFactory(server).buildProtocol(None)
    transport = StringTransport()
    protocol.makeConnection(transport)
    protocol.dataReceived(request)
    return reached, transport.value()


@pytest.mark.parametrize("request_bytes", [MALFORMED_MULTIPART, FORM])
def test_a_form_body_reaches_the_application_unparsed(request_bytes, monkeypatch):
    reached, written = _send(RawBodyServer, request_bytes, monkeypatch)

    assert reached == [({}, request_bytes.rsplit(b"\r\n\r\n", 1)[1])]
    assert written == b""


def test_daphne_alone_parses_forms_and_refuses_a_malformed_multipart_itself(monkeypatch):
    reached, _ = _send(Server, FORM, monkeypatch)
    assert reached == [({b"user": [b"me"]}, b"user=me")]

    reached, written = _send(Server, MALFORMED_MULTIPART, monkeypatch)
    assert reached == []
    assert written.startswith(b"HTTP/1.1 400 Bad Request")
