"""HTTP/1.1 between peers, on the event loop, over connections kept open per peer address
(``core.forwarding`` sends a request on to the partition's owner with it).

Deliberately small: one request at a time per connection, bodies sent with ``Content-Length``,
answers read by ``Content-Length``, chunked, or up to the close. No decoding of the body: what
the owner wrote (compressed or not) is what the caller relays.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass

# Idle connections kept per peer address: enough for the concurrency one peer forwards with,
# few enough that a crowd leaves no more than this many behind per peer.
IDLE_KEPT = 32
# Headers that describe one connection, never passed from one hop to the next (RFC 9110 7.6.1),
# with the length, which is set again for the body actually sent.
HOP_BY_HOP = frozenset({
    b"connection", b"keep-alive", b"proxy-connection", b"proxy-authenticate",
    b"proxy-authorization", b"te", b"trailer", b"transfer-encoding", b"upgrade", b"expect",
    b"content-length",
})
ERR_ANSWER = "the peer's answer is not HTTP/1.1: {line!r}"


class PeerUnreachable(ConnectionError):
    """No connection to the peer could be made: the request was not sent."""


class PeerSilent(TimeoutError):
    """The request was sent and the peer did not answer in time (or dropped the connection
    midway): it may have carried it out."""


@dataclass
class PeerAnswer:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes

    def header(self, name: bytes) -> bytes | None:
        for key, value in self.headers:
            if key.lower() == name:
                return value
        return None


_Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class PeerClient:
    def __init__(self) -> None:
        self._idle: dict[str, list[_Connection]] = defaultdict(list)

    async def request(
        self, address: str, *, method: str, target: bytes, headers: list[tuple[bytes, bytes]],
        body: bytes, connect_seconds: float, answer_seconds: float,
    ) -> PeerAnswer:
        """``method target`` with ``headers`` (hop-by-hop ones left out) and ``body`` to the
        peer at ``address`` (host:port). ``PeerUnreachable`` when nothing was sent,
        ``PeerSilent`` when it was and no whole answer came within ``answer_seconds``."""
        head = [method.encode("ascii") + b" " + target + b" HTTP/1.1\r\n"]
        for name, value in headers:
            if name.lower() not in HOP_BY_HOP:
                head.append(name + b": " + value + b"\r\n")
        head.append(b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n")
        message = b"".join(head) + body
        reused = self._reused(address)
        if reused is not None:
            try:
                return await self._exchange(address, reused, message, method, answer_seconds,
                                            fresh=False)
            except _ClosedBeforeAnswer:
                # The peer had closed the idle connection before this request reached it.
                pass
        connection = await self._connect(address, connect_seconds)
        try:
            return await self._exchange(address, connection, message, method, answer_seconds,
                                        fresh=True)
        except _ClosedBeforeAnswer as exc:
            raise PeerSilent(str(exc)) from exc

    def close(self) -> None:
        for connections in self._idle.values():
            for _reader, writer in connections:
                writer.close()
        self._idle.clear()

    def _reused(self, address: str) -> _Connection | None:
        idle = self._idle[address]
        while idle:
            reader, writer = idle.pop()
            if not writer.is_closing() and not reader.at_eof():
                return reader, writer
            writer.close()
        return None

    async def _connect(self, address: str, seconds: float) -> _Connection:
        host, _, port = address.rpartition(":")
        try:
            return await asyncio.wait_for(
                asyncio.open_connection(host.strip("[]"), int(port)), timeout=seconds
            )
        except (TimeoutError, OSError, ValueError) as exc:
            raise PeerUnreachable(f"{address}: {exc or type(exc).__name__}") from exc

    async def _exchange(self, address: str, connection: _Connection, message: bytes,
                        method: str, seconds: float, *, fresh: bool) -> PeerAnswer:
        reader, writer = connection
        try:
            writer.write(message)
            answer, keep = await asyncio.wait_for(_read_answer(reader, method), timeout=seconds)
        except _ClosedBeforeAnswer:
            writer.close()
            raise
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
            writer.close()
            raise PeerSilent(f"{address}: {exc or type(exc).__name__}") from exc
        except BaseException:
            # Cancelled midway: the connection may still carry the rest of this answer.
            writer.close()
            raise
        if keep and len(self._idle[address]) < IDLE_KEPT:
            self._idle[address].append(connection)
        else:
            writer.close()
        return answer


class _ClosedBeforeAnswer(ConnectionError):
    """The connection ended before the first byte of an answer."""


async def _read_answer(reader: asyncio.StreamReader, method: str) -> tuple[PeerAnswer, bool]:
    line = await reader.readline()
    if not line:
        raise _ClosedBeforeAnswer("the connection closed before an answer")
    parts = line.split(None, 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1."):
        raise ValueError(ERR_ANSWER.format(line=line[:80]))
    status = int(parts[1])
    headers: list[tuple[bytes, bytes]] = []
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n"):
            break
        if not line:
            raise asyncio.IncompleteReadError(b"", None)
        name, _, value = line.partition(b":")
        headers.append((name.strip(), value.strip()))
    fields = {name.lower(): value for name, value in headers}
    keep = fields.get(b"connection", b"").lower() != b"close"
    if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
        body = b""
    elif b"chunked" in fields.get(b"transfer-encoding", b"").lower():
        body = await _read_chunked(reader)
    elif b"content-length" in fields:
        body = await reader.readexactly(int(fields[b"content-length"]))
    else:
        body, keep = await reader.read(), False
    return PeerAnswer(status, headers, body), keep


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts = []
    while True:
        size = int((await reader.readline()).split(b";")[0].strip(), 16)
        if size == 0:
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
