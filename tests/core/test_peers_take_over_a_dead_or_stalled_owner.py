"""Real ``manage.py serve`` peers on one private PostgreSQL: they share the partitions (and the
quota trees) out; when an owner is killed (SIGKILL) another peer admits for its partitions
within seconds, its engine holding every allocation the dead one acknowledged; when an owner is
stopped (SIGSTOP) for longer than its lease it is taken over, and once resumed it acknowledges
nothing more for the partition it lost (its writes are refused by the fence, or it already knows
it lost the lease) and serves it as a non-owner. Afterwards the ledger holds every acknowledged
allocation and the new owner's engine counts exactly the ledger. A peer stopped with SIGTERM
hands its units on before it exits.

PostgreSQL's binaries are needed (the server is the test's own, ``tests.postgres_server``)."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator

import psycopg
import pytest

from tests.api.allocation_support import usage_expected, usage_served
from tests.database_load import Answer, exchange
from tests.postgres_server import PostgresServer, peers_missing
from tests.server_process import ServerProcess, peers_start, peers_stop

pytestmark = pytest.mark.skipif(peers_missing() is not None, reason=str(peers_missing()))

PARTITIONS = ("alpha", "beta", "gamma")
UNITS = {*PARTITIONS, "quota-trees"}
PEERS_YAML = "partitions:\n" + "".join(
    f"  - name: {name}\n    queues:\n      - name: root\n        queues:\n          - name: load\n"
    for name in PARTITIONS
)
LEASE_MS = 1000
# How long a test waits for something that takes a round or a lease (bounds, not targets: the
# figures are benchmarks/failover.py's).
SETTLE_SECONDS = 20


class Peers:
    def __init__(self, database: PostgresServer, url: str, servers: list[ServerProcess],
                 token: str) -> None:
        self.database, self.url, self.servers, self.token = database, url, servers, token

    def owns(self, server: ServerProcess) -> set[str]:
        status, health = server.request("GET", "/healthz")
        assert status == 200, health
        return set(health["owns"])

    def wait_for(self, what, description: str) -> None:
        ends = time.monotonic() + SETTLE_SECONDS
        while time.monotonic() < ends:
            if what():
                return
            time.sleep(0.05)
        raise AssertionError(f"not within {SETTLE_SECONDS} s: {description}")

    def spread(self, servers: list[ServerProcess]) -> list[set[str]]:
        """Each peer's units once they hold every unit between them, two each."""
        def shared() -> bool:
            owned = [self.owns(server) for server in servers]
            return (set().union(*owned) == UNITS and sum(map(len, owned)) == len(UNITS)
                    and all(len(units) == len(UNITS) // len(servers) for units in owned))

        self.wait_for(shared, "the units shared out evenly")
        return [self.owns(server) for server in servers]

    def allocate(self, server: ServerProcess, partition: str, key: str) -> Answer:
        return exchange(server, "POST", f"/api/v1/partitions/{partition}/allocations",
                        token=self.token, body=allocation_body(key))

    def ledger(self, partition: str) -> set[str]:
        with psycopg.connect(self.url, autocommit=True) as connection:
            return {key for (key,) in connection.execute(
                "SELECT key FROM allocations_allocation WHERE partition = %s", [partition]
            ).fetchall()}


def allocation_body(key: str) -> dict:
    return {"allocationKey": key, "applicationId": f"app-{key}", "queuePath": "root.load",
            "user": "u1", "groups": [], "resource": {"memory": 1024}}


@pytest.fixture
def peers(tmp_path) -> Iterator[Peers]:
    database = PostgresServer()
    servers: list[ServerProcess] = []
    try:
        database.start()
        url = database.create_database()
        servers, token = peers_start(
            tmp_path, url, count=2, config_yaml=PEERS_YAML,
            env={"QUOTAWEB_LEASE_MS": str(LEASE_MS)},
        )
        yield Peers(database, url, servers, token)
    finally:
        peers_stop(servers)
        database.close()


def test_a_killed_owners_partitions_are_served_by_the_survivor(peers):
    first, second = peers.servers
    owned_first, owned_second = peers.spread([first, second])
    assert owned_first | owned_second == UNITS
    partition = sorted(owned_first & set(PARTITIONS))[0]

    acknowledged = []
    for number in range(20):
        answer = peers.allocate(first, partition, f"k{number}")
        assert answer.status == 201, answer.body
        acknowledged.append(f"k{number}")
    # Through the peer that does not own it: answered by the owner (core.forwarding).
    elsewhere = peers.allocate(second, partition, "via-second")
    assert elsewhere.status == 201, elsewhere.body
    acknowledged.append("via-second")

    first.kill()
    peers.wait_for(lambda: peers.allocate(second, partition, "after").status == 201,
                   "the survivor admitting for the dead owner's partition")
    acknowledged.append("after")

    assert partition in peers.owns(second)
    assert peers.ledger(partition) == set(acknowledged)
    served = usage_served(second, peers.token, partition)
    assert served == usage_expected([allocation_body(key) for key in acknowledged])


def test_a_stalled_owner_is_taken_over_and_acknowledges_nothing_after(peers):
    first, second = peers.servers
    owned_first, _ = peers.spread([first, second])
    partition = sorted(owned_first & set(PARTITIONS))[0]

    # A client allocating through the owner the whole time: some requests are caught by the
    # stop halfway, and are answered only once it resumes.
    answers: dict[str, int] = {}
    stop = threading.Event()

    def client() -> None:
        number = 0
        while not stop.is_set():
            key = f"c{number}"
            answers[key] = peers.allocate(first, partition, key).status
            number += 1

    thread = threading.Thread(target=client)
    thread.start()
    try:
        peers.wait_for(lambda: len(answers) >= 20, "the client's first answers")
        first.process.send_signal(signal.SIGSTOP)
        stopped = time.monotonic()
        peers.wait_for(lambda: partition in peers.owns(second),
                       "the other peer taking the stalled owner's partition")
        assert time.monotonic() - stopped >= LEASE_MS / 1000 * 0.9
        taken = [f"t{number}" for number in range(5)]
        for key in taken:
            assert peers.allocate(second, partition, key).status == 201
        first.process.send_signal(signal.SIGCONT)
        # The woken peer admits nothing itself: its write is refused by the fence (or it knows
        # it lost the lease), and the request is then answered by the new owner, or 503.
        resumed = peers.allocate(first, partition, "after-resume")
        assert resumed.status in (201, 503), resumed.body
        if resumed.status == 201:
            taken.append("after-resume")
        peers.wait_for(lambda: partition not in peers.owns(first),
                       "the resumed peer dropping the partition it lost")
    finally:
        stop.set()
        thread.join(timeout=60)

    acknowledged = {key for key, status in answers.items() if status == 201}
    refused = {key for key, status in answers.items() if status == 503}
    assert acknowledged
    assert set(answers) == acknowledged | refused
    stored = peers.ledger(partition)
    # Every acknowledged allocation is stored, and nothing a caller was refused, nor the
    # request made after the resume.
    assert acknowledged | set(taken) == stored
    served = usage_served(second, peers.token, partition)
    assert served == usage_expected([allocation_body(key) for key in stored])


def test_a_peer_stopped_with_sigterm_hands_its_units_on_before_it_exits(peers):
    first, second = peers.servers
    owned_first, _ = peers.spread([first, second])
    partition = sorted(owned_first & set(PARTITIONS))[0]
    assert peers.allocate(first, partition, "before").status == 201

    assert first.stop(signal.SIGTERM) == 0
    log = first.log_text()
    for unit in owned_first:
        assert f"handed {unit} on" in log
    peers.wait_for(lambda: peers.owns(second) == UNITS, "the other peer owning every unit")
    assert peers.allocate(second, partition, "after").status == 201
    assert peers.ledger(partition) == {"before", "after"}
