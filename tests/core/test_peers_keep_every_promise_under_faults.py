"""Three real ``manage.py serve`` peers on a private PostgreSQL, with clients allocating and
releasing through all of them at random while one peer is killed (SIGKILL) and started again,
another is stopped (SIGSTOP) for longer than its lease and resumed, and the third is cut off
PostgreSQL (a TCP proxy between it and the database resets every connection and refuses new
ones) and let back.

Each client is one user who sends one request at a time, retrying a request whose answer was
lost or was a 503 (after its Retry-After, on a peer picked at random) until it gets an answer.
So each client knows exactly what was acknowledged, in order, and the checker reads the whole
history afterwards:

- every acknowledged allocation not released since is in the ledger, and in the usage its
  partition's owner serves; nothing whose release was acknowledged is;
- the user's cap (8 allocations per partition) held at every point of the history: the
  allocations a client holds acknowledged never exceed it;
- no answer was anything but a documented one (no 500), and every 503 named a Retry-After.

A peer that lost its lease and admitted anyway would show as an acknowledged allocation
missing from the ledger or from its new owner's usage (the fence refuses its write), or as a
cap exceeded (two owners admitting against half the usage each).
"""

from __future__ import annotations

import http.client
import json
import random
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import psycopg
import pytest

from tests.postgres_server import PostgresServer, peers_missing
from tests.server_process import ServerProcess, peers_start, peers_stop
from tests.tcp_proxy import TcpProxy

pytestmark = pytest.mark.skipif(peers_missing() is not None, reason=str(peers_missing()))

PARTITIONS = ("alpha", "beta", "gamma")
CAP = 8
CONFIG = "partitions:\n" + "".join(
    f"  - name: {name}\n    queues:\n      - name: root\n        queues:\n"
    f"          - name: load\n            limits:\n              - users: ['*']\n"
    f"                maxresources: {{memory: '{CAP}'}}\n"
    for name in PARTITIONS
)
LEASE_MS = 1000
CLIENTS = 3
# One request's retries end after this long: far beyond any fault of the test.
REQUEST_SECONDS = 30
# Answers a client may get; anything else (a 500, a 400) fails the test.
DOCUMENTED = {200, 201, 204, 404, 409, 503}


@dataclass
class Client:
    user: str
    token: str
    servers: list[ServerProcess]
    live: dict[str, set[str]] = field(default_factory=lambda: {p: set() for p in PARTITIONS})
    released: dict[str, set[str]] = field(default_factory=lambda: {p: set() for p in PARTITIONS})
    # Allocations whose outcome never became known (retries ran out): may or may not be stored.
    unknown: dict[str, set[str]] = field(default_factory=lambda: {p: set() for p in PARTITIONS})
    most_held: int = 0
    answers: list[int] = field(default_factory=list)
    undocumented: list[str] = field(default_factory=list)
    count: int = 0

    def send(self, method: str, path: str, body: dict | None) -> int | None:
        """The request until it is answered with something other than a 503 (None: never)."""
        ends = time.monotonic() + REQUEST_SECONDS
        while time.monotonic() < ends:
            server = random.choice(self.servers)
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=3)
            try:
                connection.request(method, path, json.dumps(body).encode() if body else None, {
                    "Authorization": f"Token {self.token}", "Content-Type": "application/json",
                })
                response = connection.getresponse()
                text = response.read()
            except OSError:
                time.sleep(0.05)
                continue
            finally:
                connection.close()
            self.answers.append(response.status)
            if response.status not in DOCUMENTED:
                self.undocumented.append(f"{method} {path}: {response.status} {text[:300]!r}")
                return response.status
            if response.status == 503:
                retry_after = response.getheader("Retry-After")
                if retry_after is None:
                    self.undocumented.append(f"{method} {path}: 503 without Retry-After")
                time.sleep(min(float(retry_after or 1), 0.2))
                continue
            return response.status
        return None

    def step(self) -> None:
        partition = random.choice(PARTITIONS)
        live = self.live[partition]
        if live and (len(live) >= CAP + 2 or random.random() < 0.4):
            key = random.choice(sorted(live))
            status = self.send("DELETE", f"/api/v1/partitions/{partition}/allocations/{key}",
                               None)
            if status in (204, 404):  # 404: an earlier try, whose answer was lost, released it
                live.discard(key)
                self.released[partition].add(key)
            return
        self.count += 1
        key = f"{self.user}-{self.count}"
        status = self.send("POST", f"/api/v1/partitions/{partition}/allocations", {
            "allocationKey": key, "applicationId": f"app-{key}", "queuePath": "root.load",
            "user": self.user, "resource": {"memory": 1},
        })
        if status in (200, 201):
            live.add(key)
            self.most_held = max(self.most_held, len(live))
        elif status is None:
            self.unknown[partition].add(key)

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            self.step()


@pytest.fixture
def site(tmp_path) -> Iterator[tuple[str, list[ServerProcess], TcpProxy, str]]:
    database = PostgresServer()
    servers: list[ServerProcess] = []
    proxy = None
    try:
        database.start()
        url = database.create_database()
        # The third peer reaches PostgreSQL through the proxy alone.
        proxy = TcpProxy(database.port)
        servers, token = peers_start(
            tmp_path, url, count=3, config_yaml=CONFIG,
            env={"QUOTAWEB_LEASE_MS": str(LEASE_MS)},
            database_urls={3: url.replace(f":{database.port}/", f":{proxy.port}/")},
        )
        yield url, servers, proxy, token
    finally:
        peers_stop(servers)
        if proxy is not None:
            proxy.close()
        database.close()


def owner_of(servers: list[ServerProcess], partition: str) -> ServerProcess:
    ends = time.monotonic() + 20
    while time.monotonic() < ends:
        for server in servers:
            status, health = server.request("GET", "/healthz")
            if status == 200 and partition in health.get("owns", []):
                return server
        time.sleep(0.1)
    raise AssertionError(f"nobody owns {partition} within 20 s")


def epochs(url: str) -> dict[str, int]:
    with psycopg.connect(url, autocommit=True) as connection:
        return dict(connection.execute("SELECT unit, epoch FROM leases_lease").fetchall())


def held_before_fault(server: ServerProcess, url: str) -> dict[str, int]:
    """The units ``server`` owns (once it owns one) and their epochs now: a fault of it must
    move each of them on."""
    ends = time.monotonic() + 20
    while time.monotonic() < ends:
        status, health = server.request("GET", "/healthz")
        if status == 200 and health.get("owns"):
            now = epochs(url)
            return {unit: now[unit] for unit in health["owns"]}
        time.sleep(0.1)
    raise AssertionError("the peer to fault owns nothing within 20 s")


def assert_moved_on(url: str, held: dict[str, int], fault: str) -> None:
    now = epochs(url)
    assert all(now[unit] > epoch for unit, epoch in held.items()), (fault, held, now)


def memory_served(server: ServerProcess, token: str, partition: str) -> dict[str, int]:
    status, users = server.request("GET", f"/ws/v1/partition/{partition}/usage/users",
                                   token=token)
    assert status == 200, users
    served = {}
    for user in users:
        used = user["queues"].get("resourceUsage") or {}
        if used.get("memory"):
            served[user["userName"]] = used["memory"]
    return served


def test_every_acknowledged_answer_holds_through_kill_pause_and_cut(site):
    url, servers, proxy, token = site
    killed, paused, cut = servers
    clients = [Client(f"user{n}", token, servers) for n in range(CLIENTS)]
    stop = threading.Event()
    threads = [threading.Thread(target=c.run, args=(stop,), daemon=True) for c in clients]
    for thread in threads:
        thread.start()
    lease = LEASE_MS / 1000
    try:
        time.sleep(2)
        held = held_before_fault(killed, url)
        killed.kill()
        killed.process.wait(10)
        time.sleep(1)
        assert_moved_on(url, held, "SIGKILL")
        killed.start("serve")
        killed.wait_ready()
        time.sleep(2)
        held = held_before_fault(paused, url)
        paused.process.send_signal(signal.SIGSTOP)
        time.sleep(3 * lease)
        assert_moved_on(url, held, "SIGSTOP")
        paused.process.send_signal(signal.SIGCONT)
        time.sleep(2)
        held = held_before_fault(cut, url)
        proxy.cut()
        time.sleep(3 * lease)
        assert_moved_on(url, held, "cut off PostgreSQL")
        proxy.mend()
        time.sleep(3)
    finally:
        stop.set()
        for thread in threads:
            thread.join(REQUEST_SECONDS + 5)

    undocumented = [line for c in clients for line in c.undocumented]
    assert not undocumented, undocumented
    assert sum(c.answers.count(201) for c in clients) > 50, "the load hardly ran"
    for client in clients:
        assert client.most_held <= CAP, (client.user, client.most_held)
    with psycopg.connect(url, autocommit=True) as connection:
        rows = connection.execute(
            'SELECT partition, key, "user" FROM allocations_allocation'
        ).fetchall()
    stored = {p: {key for partition, key, _ in rows if partition == p} for p in PARTITIONS}
    for partition in PARTITIONS:
        acknowledged = set().union(*(c.live[partition] for c in clients))
        released = set().union(*(c.released[partition] for c in clients))
        unknown = set().union(*(c.unknown[partition] for c in clients))
        assert acknowledged <= stored[partition], acknowledged - stored[partition]
        assert not released & stored[partition], released & stored[partition]
        assert stored[partition] <= acknowledged | unknown, (
            stored[partition] - acknowledged - unknown)
        owner = owner_of(servers, partition)
        expected = Counter(user for stored_in, _, user in rows if stored_in == partition)
        assert memory_served(owner, token, partition) == expected
