"""A rolling restart of three ``serve`` peers on a private PostgreSQL fails no request: while a
client allocates and releases continuously, each peer in turn is stopped with SIGTERM (it
drains, hands its units on and exits 0) and started again. Every request of the client ends in
success; what it meets on the way is only what a client is told to retry:

- a 503 with ``Retry-After`` (the partition is moving, or its owner is draining): retried after
  that many seconds, on another peer;
- a 503 ``not_owner`` naming the owner's address (a peer that does not own the partition, while
  requests are not forwarded): sent there at once;
- a refused connection (the stopped peer no longer listens): sent to another peer at once, as
  a load balancer does (nothing was sent, so nothing can have happened).

Anything else (another status, a 503 without ``Retry-After``, a connection lost after the
request was sent, a request not done within its bound) is a failed request. Afterwards the
ledger holds exactly the allocations the client was told are live, and each partition's owner
counts exactly them."""

from __future__ import annotations

import json
import random
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import psycopg
import pytest

from tests.api.allocation_support import usage_expected, usage_served
from tests.core.test_peers_take_over_a_dead_or_stalled_owner import (
    PARTITIONS,
    PEERS_YAML,
    UNITS,
    Peers,
    allocation_body,
)
from tests.database_load import exchange
from tests.postgres_server import PostgresServer, peers_missing
from tests.server_process import ServerProcess, peers_start, peers_stop

pytestmark = pytest.mark.skipif(peers_missing() is not None, reason=str(peers_missing()))

LEASE_MS = 1000
# A request not done within this (its retries included) counts as failed.
REQUEST_BOUND_SECONDS = 30
# How long the client runs between two restarts, so that each restart meets steady traffic.
BETWEEN_RESTARTS_SECONDS = 2.0


@dataclass
class Client:
    """Allocates and releases at random through the peers until ``stop``; ``live`` is what it
    was told is allocated now, ``failures`` every request that failed."""

    servers: list[ServerProcess]
    token: str
    stop: threading.Event = field(default_factory=threading.Event)
    live: dict[str, str] = field(default_factory=dict)  # key -> partition
    failures: list[str] = field(default_factory=list)
    done: int = 0
    retried: int = 0
    # Where each partition was last said to be served: {partition: port}.
    owners: dict[str, int] = field(default_factory=dict)

    def run(self) -> None:
        chance = random.Random(25)
        number = 0
        while not self.stop.is_set():
            if self.live and chance.random() < 0.4:
                key = chance.choice(sorted(self.live))
                partition = self.live[key]
                if self.request(partition, "DELETE",
                                f"/api/v1/partitions/{partition}/allocations/{key}", None, 204):
                    del self.live[key]
            else:
                key, partition = f"k{number}", chance.choice(PARTITIONS)
                number += 1
                if self.request(partition, "POST", f"/api/v1/partitions/{partition}/allocations",
                                allocation_body(key), 201):
                    self.live[key] = partition
            self.done += 1

    def request(self, partition: str, method: str, path: str, body: dict | None,
                expected: int) -> bool:
        """One request of the client, retried as its answers allow; whether it succeeded."""
        ends = time.monotonic() + REQUEST_BOUND_SECONDS
        port = self.owners.get(partition) or random.choice(self.servers).port
        seen: list[str] = []
        while time.monotonic() < ends:
            server = next(s for s in self.servers if s.port == port)
            others = [s.port for s in self.servers if s.port != port]
            try:
                answer = exchange(server, method, path, token=self.token, body=body)
            except ConnectionRefusedError:
                seen.append(f"{port}: refused")
                port = random.choice(others)
                continue
            except OSError as error:
                self.failures.append(f"{method} {path}: {error!r} after {seen}")
                return False
            if answer.status == expected:
                self.owners[partition] = port
                self.retried += bool(seen)
                return True
            if answer.status != 503 or not answer.retry_after:
                self.failures.append(
                    f"{method} {path}: {answer.status} {answer.body[:300]!r} after {seen}")
                return False
            data = json.loads(answer.body)
            seen.append(f"{port}: 503 {data['error']}")
            owner = data.get("address", "")
            if data["error"] == "not_owner" and owner and not owner.endswith(f":{port}"):
                port = int(owner.rsplit(":", 1)[1])
                continue
            time.sleep(float(answer.retry_after))
            port = random.choice(others)
        self.failures.append(f"{method} {path}: not done in {REQUEST_BOUND_SECONDS} s: {seen}")
        return False


@pytest.fixture
def peers(tmp_path) -> Iterator[Peers]:
    database = PostgresServer()
    servers: list[ServerProcess] = []
    try:
        database.start()
        url = database.create_database()
        servers, token = peers_start(
            tmp_path, url, count=3, config_yaml=PEERS_YAML,
            env={"QUOTAWEB_LEASE_MS": str(LEASE_MS)},
        )
        yield Peers(database, url, servers, token)
    finally:
        peers_stop(servers)
        database.close()


def all_owned(peers: Peers) -> None:
    """Until every unit has one owner among the running peers, each holding one or two."""
    def owned() -> bool:
        held = [peers.owns(server) for server in peers.servers]
        return (set().union(*held) == UNITS and sum(map(len, held)) == len(UNITS)
                and all(1 <= len(units) <= 2 for units in held))

    peers.wait_for(owned, "every unit owned, one or two a peer")


def test_a_rolling_restart_under_load_fails_no_request(peers):
    all_owned(peers)
    client = Client(peers.servers, peers.token)
    thread = threading.Thread(target=client.run)
    thread.start()
    try:
        time.sleep(BETWEEN_RESTARTS_SECONDS)
        for server in peers.servers:
            before = client.done
            assert server.stop(signal.SIGTERM) == 0
            server.start("serve")
            server.wait_ready()
            all_owned(peers)
            time.sleep(BETWEEN_RESTARTS_SECONDS)
            assert client.done > before, "the client made no progress across a restart"
    finally:
        client.stop.set()
        thread.join(timeout=REQUEST_BOUND_SECONDS + 10)
    assert not thread.is_alive()

    assert client.failures == []
    assert client.done >= 20
    # The restarts were met: some requests found their partition moved and were retried.
    assert client.retried > 0
    with psycopg.connect(peers.url, autocommit=True) as connection:
        stored = dict(connection.execute(
            "SELECT key, partition FROM allocations_allocation").fetchall())
    assert stored == client.live
    status, owners = peers.servers[0].request("GET", "/api/v1/owners", token=peers.token)
    assert status == 200
    for partition in PARTITIONS:
        address = owners["partitions"][partition]["owner"]
        owner = next(s for s in peers.servers
                     if f"peer{peers.servers.index(s) + 1}" == address)
        bodies = [allocation_body(key) for key, where in client.live.items()
                  if where == partition]
        assert usage_served(owner, peers.token, partition) == usage_expected(bodies)
