"""A small websocket client on asyncio streams, for tests that talk to a real server process.

autobahn's asyncio client cannot be imported where Django has loaded daphne (which picks
Twisted for txaio), and the stack has no other client. Text frames only, client-masked, enough
for JSON messages.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import struct
from typing import Any


class WebSocket:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, host: str, port: int, path: str, *, origin: str) -> WebSocket:
        reader, writer = await asyncio.open_connection(host, port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n\r\n"
        ).encode())
        status = await reader.readline()
        if b" 101 " not in status:
            raise ConnectionError(f"handshake refused: {status!r}")
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        return cls(reader, writer)

    async def send_json(self, message: Any) -> None:
        payload = json.dumps(message).encode()
        mask = os.urandom(4)
        length = len(payload)
        if length < 126:
            header = struct.pack("!BB", 0x81, 0x80 | length)
        elif length < 65536:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, length)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, length)
        masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
        self.writer.write(header + mask + masked)
        await self.writer.drain()

    async def receive_json(self, timeout: float) -> Any:
        return json.loads(await asyncio.wait_for(self._frame(), timeout))

    async def receive_news(self, timeout: float) -> Any:
        """The next message that is not the server's heartbeat (one comes every 2 s)."""
        while (message := await self.receive_json(timeout)) == {"type": "heartbeat"}:
            pass
        return message

    async def _frame(self) -> bytes:
        while True:
            first, second = await self.reader.readexactly(2)
            length = second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", await self.reader.readexactly(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", await self.reader.readexactly(8))
            payload = await self.reader.readexactly(length)
            if first & 0x0F == 0x8:
                raise ConnectionError("closed by the server")
            if first & 0x0F == 0x1:
                return payload

    def close(self) -> None:
        self.writer.close()
