"""Answers for requests whose request line or headers are over the server's limits.

Twisted's HTTP channel (under daphne) takes request lines and header lines of at most
``MAX_LENGTH`` bytes (16 KiB), the request line and headers together of at most
``totalHeadersSize`` bytes (16 KiB) and at most ``maxHeaders`` headers (500). Past the first it
closed the connection without a word, past the others it wrote a bare 400: a client could not
tell a long URL from a network failure. Here the same limits answer as HTTP says they should:
414 for a long request line, 431 for headers too large or too many, each with a short text body
saying which limit, and the connection closed (the rest of the request is not read).
"""

from __future__ import annotations

from typing import Any

from twisted.web.http import HTTPChannel, _GenericHTTPChannelProtocol

MSG_URI_TOO_LONG = "The request line is longer than {limit} bytes; shorten the URL.\n"
MSG_HEADERS_TOO_LARGE = (
    "The request line and headers are larger than {size} bytes together, or there are more "
    "than {count} headers.\n"
)
_REASONS = {414: b"URI Too Long", 431: b"Request Header Fields Too Large"}


class LimitedHTTPChannel(HTTPChannel):
    """Twisted's HTTP/1.1 channel, answering 414 and 431 at its limits (see the module)."""

    def _reading_request_line(self) -> bool:
        # Twisted's own flag: true until the request line has been read.
        return bool(self._HTTPChannel__first_line)  # type: ignore[attr-defined]

    def lineLengthExceeded(self, line: bytes) -> None:
        self._refuse(414 if self._reading_request_line() else 431)

    def lineReceived(self, line: bytes) -> None:
        if self._receivedHeaderSize + len(line) > self.totalHeadersSize:
            self._refuse(414 if self._reading_request_line() else 431)
            return
        super().lineReceived(line)

    def headerReceived(self, line: bytes) -> bool:
        if self._receivedHeaderCount >= self.maxHeaders:
            self._refuse(431)
            return False
        return bool(super().headerReceived(line))

    def _refuse(self, status: int) -> None:
        if status == 414:
            text = MSG_URI_TOO_LONG.format(limit=self.MAX_LENGTH)
        else:
            text = MSG_HEADERS_TOO_LARGE.format(size=self.totalHeadersSize,
                                                count=self.maxHeaders)
        body = text.encode()
        self.transport.write(
            b"HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
            b"Content-Length: %d\r\nConnection: close\r\n\r\n%s"
            % (status, _REASONS[status], len(body), body)
        )
        # Nothing more of this connection is read: it is closed once the answer is written.
        self.dataReceived = self.lineReceived = lambda *args: None  # type: ignore[method-assign]
        self.loseConnection()


def limited_channel_protocol() -> Any:
    """What Twisted's ``HTTPFactory.protocol`` builds, with ``LimitedHTTPChannel`` inside."""
    return _GenericHTTPChannelProtocol(LimitedHTTPChannel())
