"""The "channel" deployment for fault tests: a private ``redis-server`` (tests/redis_server.py),
one engine owner (``manage.py demo``) and one ``manage.py web`` process on it, and a websocket
client that answers the server's pings (as a browser does) so it may stay idle for minutes."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.api.allocation_support import body
from tests.configs import CAPPED_YAML
from tests.redis_server import RedisServer, redis_server_or_skip
from tests.server_process import ServerProcess, free_port
from tests.ws_client import WebSocket

# Any one wait of these tests; each is a bound, not a measure.
WAIT_SECONDS = 60


class PingingWebSocket(WebSocket):
    """Answers pings with pongs (daphne closes a socket whose pings go unanswered)."""

    async def _frame(self) -> bytes:
        while True:
            first, second = await self.reader.readexactly(2)
            length = second & 0x7F
            if length == 126:
                length = int.from_bytes(await self.reader.readexactly(2), "big")
            elif length == 127:
                length = int.from_bytes(await self.reader.readexactly(8), "big")
            payload = await self.reader.readexactly(length)
            opcode = first & 0x0F
            if opcode == 0x8:
                raise ConnectionError("closed by the server")
            if opcode == 0x9:
                mask = b"\x00\x00\x00\x00"  # a zero mask: the payload goes as it is
                self.writer.write(bytes([0x8A, 0x80 | len(payload)]) + mask + payload)
                await self.writer.drain()
            elif opcode == 0x1:
                return payload

    async def next_of(self, kind: str, timeout: float = WAIT_SECONDS) -> dict[str, Any]:
        """The next message of type ``kind`` within ``timeout``; others are passed over."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            message = await self.receive_json(timeout=max(0.1, deadline - loop.time()))
            if message.get("type") == kind:
                return message


@dataclass
class Deployment:
    redis: RedisServer
    owner: ServerProcess
    web: ServerProcess
    token: str
    # Openings tried again by open_crowd (a reset under load)
    reopened: int = 0

    async def socket(self, scope: str = "user:alice") -> PingingWebSocket:
        """A socket on the web process, subscribed to ``scope``, its snapshot received."""
        socket_ = await PingingWebSocket.connect(
            "127.0.0.1", self.web.port, f"/ws/usage/default/?token={self.token}",
            origin=f"http://127.0.0.1:{self.web.port}",
        )
        await socket_.send_json({"type": "subscribe", "scope": scope})
        snapshot = await socket_.next_of("snapshot")
        assert snapshot["scope"] == scope
        return socket_

    async def allocate(self, key: str, memory: int) -> None:
        status, answer = await asyncio.to_thread(
            self.owner.request, "POST", "/api/v1/partitions/default/allocations",
            body(key, memory=memory), self.token,
        )
        assert status == 201, answer

    def logs(self) -> str:
        for server in (self.owner, self.web):
            server.log.flush()
        return "".join(
            Path(server.log.name).read_text(errors="replace") for server in (self.owner, self.web)
        )


def alice_memory(update: dict[str, Any]) -> int:
    """Alice's memory (root queue) in a ``user:alice`` snapshot or an update."""
    node = update["changed"][0] if update.get("type") == "update" else update["data"]
    if not node:
        return 0
    return node["queues"]["resourceUsage"].get("memory", 0)


@contextmanager
def channel_deployment(folder: Path) -> Iterator[Deployment]:
    binary = redis_server_or_skip()
    redis = RedisServer(folder, binary)
    started: list[ServerProcess] = []
    try:
        redis.start()
        env = {
            "REDIS_URL": redis.url, "QUOTAWEB_ENGINE_OWNER": "channel",
            "QUOTAWEB_CHANNEL_PREFIX": f"qw-fault-{uuid.uuid4().hex[:8]}",
            # The recovery lines are INFO: the log shows what the processes went through.
            "QUOTAWEB_LOG_LEVEL": "INFO",
        }
        owner = ServerProcess(folder, free_port(), config_yaml=CAPPED_YAML, env=env)
        started.append(owner)
        owner.start("demo")
        owner.wait_ready()  # first: it migrates the database the web process reads
        web = ServerProcess(folder, free_port(), config_yaml=CAPPED_YAML, env=env)
        started.append(web)
        web.start("web")
        web.wait_listening()
        yield Deployment(redis, owner, web, owner.token("admin"))
    finally:
        for server in started:
            server.close()
        redis.close()


# The scopes a crowd of pages follows: a user's page, the queue tree, the group list.
CROWD_SCOPES = ("user:alice", "queues", "groups")


async def open_crowd(
    deployment: Deployment, count: int, *, attempts: int = 1
) -> list[PingingWebSocket]:
    """``count`` sockets opened on the web process at once, each subscribed to one of
    ``CROWD_SCOPES`` (in turn), their snapshots not yet read. A refused or reset opening is
    tried again up to ``attempts`` times in all, after 0.25-1 s as a page does."""

    async def one(n: int) -> PingingWebSocket:
        for attempt in range(attempts):
            try:
                socket_ = await PingingWebSocket.connect(
                    "127.0.0.1", deployment.web.port,
                    f"/ws/usage/default/?token={deployment.token}",
                    origin=f"http://127.0.0.1:{deployment.web.port}",
                )
                break
            except (ConnectionError, asyncio.IncompleteReadError):
                if attempt == attempts - 1:
                    raise
                deployment.reopened += 1
                await asyncio.sleep(random.uniform(0.25, 1.0))
        await socket_.send_json({"type": "subscribe", "scope": CROWD_SCOPES[n % 3]})
        return socket_

    return list(await asyncio.gather(*(one(n) for n in range(count))))


async def snapshots_within(sockets: list[PingingWebSocket], seconds: float) -> int:
    """How many of ``sockets`` got a snapshot within ``seconds`` (counted together)."""

    async def got_one(socket_: PingingWebSocket) -> bool:
        try:
            await socket_.next_of("snapshot", timeout=seconds)
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            return False
        return True

    return sum(await asyncio.gather(*(got_one(socket_) for socket_ in sockets)))
