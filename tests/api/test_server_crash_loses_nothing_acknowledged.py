"""A real server process is killed (SIGKILL) while a client allocates and releases; after a
restart (and a second kill in the middle of loading) usage equals the sum of the acknowledged,
unreleased allocations, user by user and queue by queue.

The server runs on its own SQLite file in a temporary folder, whatever database the suite uses:
it is a separate process started the way ``bash bin/run`` starts it (``manage.py demo``).
"""

from __future__ import annotations

import random
import threading
import time

from tests.api.allocation_support import usage_expected, usage_served
from tests.configs import CAPPED_YAML
from tests.server_process import ServerProcess, free_port

USERS = ["alice", "bob", "carol", "dave"]


class Client:
    """Allocates and releases until the server dies; keeps what was acknowledged."""

    def __init__(self, server: ServerProcess, token: str) -> None:
        self.server, self.token = server, token
        self.live: dict[str, dict] = {}
        self.in_flight: tuple[str, str, dict | None] | None = None
        self.acknowledged = 0

    def run(self, stop: threading.Event) -> None:
        rng = random.Random(7)
        step = 0
        while not stop.is_set():
            step += 1
            if self.live and rng.random() < 0.4:
                key = rng.choice(sorted(self.live))
                if not self._send("DELETE", key, None):
                    return
                continue
            user = rng.choice(USERS)
            body = {
                "allocationKey": f"k{step}", "applicationId": f"{user}-app{rng.randrange(2)}",
                "queuePath": rng.choice(["root.eng", "root.eng.ml", "root.ops"]),
                "user": user, "groups": ["ml"],
                "resource": {"memory": rng.randrange(1, 64) * 2**20},
            }
            if not self._send("POST", body["allocationKey"], body):
                return

    def _send(self, method: str, key: str, body: dict | None) -> bool:
        path = "/api/v1/partitions/default/allocations"
        self.in_flight = (method, key, body)
        try:
            status, _ = self.server.request(
                method, path if method == "POST" else f"{path}/{key}", body, self.token
            )
        except OSError:
            return False  # the server is gone: this operation's fate is unknown
        self.in_flight = None
        self._settle(method, key, body, status)
        return True

    def _settle(self, method: str, key: str, body: dict | None, status: int) -> None:
        if method == "POST" and status in (200, 201):
            self.live[key] = body
            self.acknowledged += 1
        elif method == "DELETE" and status in (204, 404):
            self.live.pop(key, None)
        else:
            assert status == 409, (method, key, status)

    def resolve_in_flight(self) -> None:
        """The operation cut off by the kill is sent again: keys make the retry safe (an
        allocation stored before the kill answers 200, a release done before it answers 404)."""
        if self.in_flight is None:
            return
        method, key, body = self.in_flight
        path = "/api/v1/partitions/default/allocations"
        status, _ = self.server.request(
            method, path if method == "POST" else f"{path}/{key}", body, self.token
        )
        self._settle(method, key, body, status)


def test_a_killed_server_comes_back_with_every_acknowledged_allocation(tmp_path):
    server = ServerProcess(tmp_path, free_port(), config_yaml=CAPPED_YAML)
    server.start()
    try:
        server.wait_ready()
        token = server.token("admin")
        client = Client(server, token)
        stop = threading.Event()
        worker = threading.Thread(target=client.run, args=(stop,))
        worker.start()
        time.sleep(1.5)
        server.kill()  # mid-load: the client is still sending
        worker.join(timeout=30)
        assert client.acknowledged > 20, "too few allocations to show anything"

        server.start()
        time.sleep(0.4)
        server.kill()  # again, while it loads the configuration and the ledger
        server.start()
        server.wait_ready()
        client.resolve_in_flight()
        assert usage_served(server, token) == usage_expected(client.live.values())
    finally:
        server.close()

