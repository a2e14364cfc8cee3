"""A configuration version answered 200 through one ``serve`` peer binds every peer at once:
an allocation sent right after the answer to the peer that owns the partition (the other one)
is judged by the new limits, never by the old ones. Real processes on a private PostgreSQL.

The apply's own peer owns nothing of the partition; the owner switches because the apply waits
for it to confirm the version (``PeerLeases.applied``), and the database would refuse its rows
under the old version anyway (``quotaweb_version_fence``, shown here on its own too).

Elastic settings and quota tree changes are made by the owner of their unit (a peer that does
not own it answers 503 ``not_owner`` and changes nothing), so their 200 comes after the owner's
engine has them: shown here for the elastic settings as they stand without forwarding.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import psycopg
import pytest

from tests.core.test_peers_take_over_a_dead_or_stalled_owner import (
    LEASE_MS,
    PARTITIONS,
    Peers,
)
from tests.database_load import exchange
from tests.postgres_server import PostgresServer, peers_missing
from tests.server_process import ServerProcess, peers_start, peers_stop

pytestmark = pytest.mark.skipif(peers_missing() is not None, reason=str(peers_missing()))

MEMORY = 1024  # what ``allocation_body`` asks for


def config_yaml(load_max: int) -> str:
    """Every partition with a ``root.load`` queue whose memory is capped at ``load_max``."""
    return "partitions:\n" + "".join(
        f"  - name: {name}\n    queues:\n      - name: root\n        queues:\n"
        f"          - name: load\n            resources:\n              max:\n"
        f"                memory: {load_max}\n"
        for name in PARTITIONS
    )


@pytest.fixture
def peers(tmp_path) -> Iterator[Peers]:
    database = PostgresServer()
    servers: list[ServerProcess] = []
    try:
        database.start()
        url = database.create_database()
        servers, token = peers_start(
            tmp_path, url, count=2, config_yaml=config_yaml(100 * MEMORY),
            env={"QUOTAWEB_LEASE_MS": str(LEASE_MS)},
        )
        yield Peers(database, url, servers, token)
    finally:
        peers_stop(servers)
        database.close()


def put_config(server: ServerProcess, token: str, yaml_text: str) -> int:
    status, answer = server.request("GET", "/api/v1/config", token=token)
    assert status == 200, answer
    status, answer = server.request("PUT", "/api/v1/config", token=token, body={
        "yaml": yaml_text, "base_version": answer["version"],
    })
    assert status == 200, answer
    return answer["version"]


def owned_by_second(peers: Peers) -> str:
    first, second = peers.servers
    _, owned = peers.spread([first, second])
    return sorted(owned & set(PARTITIONS))[0]


def test_an_allocation_right_after_an_apply_elsewhere_is_judged_by_the_new_limits(peers):
    first, second = peers.servers
    partition = owned_by_second(peers)
    for round_number in range(3):
        # Room for one more allocation, then an apply through the other peer that leaves
        # none: the allocation sent to the owner right after the 200 is denied.
        used = peers.allocate(second, partition, f"before-{round_number}")
        assert used.status == 201, used.body
        held = round_number + 1
        put_config(first, peers.token, config_yaml(held * MEMORY + MEMORY // 2))
        after = peers.allocate(second, partition, f"after-{round_number}")
        assert after.status == 409, after.body
        assert json.loads(after.body)["error"] == "denied"
        # And room again through the other way round: the owner admits at once.
        put_config(first, peers.token, config_yaml(100 * MEMORY))
    assert peers.ledger(partition) == {f"before-{number}" for number in range(3)}


def test_the_database_refuses_rows_admitted_under_a_version_no_longer_active(peers):
    """The fence on its own: a ledger row naming the version before is refused whoever sends
    it, one naming the active version is stored."""
    first, _ = peers.servers
    partition = owned_by_second(peers)
    old = put_config(first, peers.token, config_yaml(50 * MEMORY))
    new = put_config(first, peers.token, config_yaml(60 * MEMORY))
    with psycopg.connect(peers.url, autocommit=True) as connection:
        epoch = connection.execute(
            "SELECT epoch FROM leases_lease WHERE unit = %s", [partition]
        ).fetchone()[0]

        def insert(key: str, version: int) -> None:
            connection.execute(
                "INSERT INTO allocations_allocation (partition, key, application_id, "
                "queue_path, \"user\", groups, resource, \"group\", created, epoch, "
                "config_version) VALUES (%s, %s, 'app', 'root.load', 'u1', '[]', "
                "'{\"memory\": 1}', '', now(), %s, %s)",
                [partition, key, epoch, version],
            )

        with pytest.raises(psycopg.Error) as refused:
            insert("stale", old)
        assert refused.value.sqlstate == "QWF02"
        insert("current", new)
    assert "stale" not in peers.ledger(partition)
    assert "current" in peers.ledger(partition)


def test_an_elastic_setting_is_changed_by_its_owner_before_the_answer(peers):
    first, second = peers.servers
    partition = owned_by_second(peers)
    path = f"/api/v1/partitions/{partition}/elastic/settings"
    status, answer = second.request("GET", f"/api/v1/partitions/{partition}/elastic",
                                    token=peers.token)
    assert status == 200
    assert answer["enabled"] is False, answer

    # Sent to the peer that does not own the partition: its owner makes the change.
    elsewhere = exchange(first, "PUT", path, token=peers.token, body={"enabled": True})

    assert elsewhere.status == 200, elsewhere.body
    assert json.loads(elsewhere.body)["enabled"] is True
    status, answer = second.request("GET", f"/api/v1/partitions/{partition}/elastic",
                                    token=peers.token)
    assert status == 200
    assert answer["enabled"] is True, answer
