"""Real ``manage.py serve`` peers on one private PostgreSQL (and Redis for the sockets): a request
sent to a peer that does not own its partition is answered by the owner, exactly as the owner
answers it, and what it changes is in the owner's engine and ledger; pages, YuniKorn reads and
live sockets of every partition work through every peer; during a handoff a request waits for the
new owner, or answers 503 with Retry-After naming a peer that does not answer; a client's own
``Quotaweb-Forwarded-By`` header only keeps its request from being forwarded.

PostgreSQL's binaries are needed (the server is the test's own, ``tests.postgres_server``)."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import secrets
import signal
import socket
import time
import uuid
from collections.abc import Iterator
from urllib.parse import urlencode, urlparse

import pytest

from tests.api.allocation_support import usage_expected, usage_served
from tests.core.test_peers_take_over_a_dead_or_stalled_owner import (
    PARTITIONS,
    PEERS_YAML,
    Peers,
    allocation_body,
)
from tests.postgres_server import PostgresServer, peers_missing
from tests.server_process import ServerProcess, peers_start, peers_stop
from tests.ws_client import WebSocket

pytestmark = pytest.mark.skipif(peers_missing() is not None, reason=str(peers_missing()))

REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
LEASE_MS = 1000
PASSWORD = "a-long-enough-password-1"


def _redis_up() -> bool:
    address = urlparse(REDIS_URL)
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex((address.hostname or "127.0.0.1", address.port or 6379)) == 0


@pytest.fixture
def peers(tmp_path) -> Iterator[Peers]:
    if not _redis_up():
        pytest.skip(f"Redis is not reachable at {REDIS_URL}")
    database = PostgresServer()
    servers: list[ServerProcess] = []
    # One site: the same secret (sessions made on one peer are good on another) and channels;
    # the production statement bound (the test settings' is 30 s), which bounds a forward's wait.
    shared = {"QUOTAWEB_SECRET_KEY": secrets.token_urlsafe(50), "REDIS_URL": REDIS_URL,
              "QUOTAWEB_DB_STATEMENT_TIMEOUT_MS": "2000",
              "QUOTAWEB_CHANNEL_PREFIX": f"fwd-test-{uuid.uuid4().hex[:8]}",
              "QUOTAWEB_LEASE_MS": str(LEASE_MS)}
    try:
        database.start()
        url = database.create_database()
        servers, token = peers_start(tmp_path, url, count=2, config_yaml=PEERS_YAML, env=shared)
        yield Peers(database, url, servers, token)
    finally:
        peers_stop(servers)
        database.close()


def _owned_by_first(peers: Peers) -> str:
    first, second = peers.servers
    owned_first, _ = peers.spread([first, second])
    return sorted(owned_first & set(PARTITIONS))[0]


def _exchange(server: ServerProcess, method: str, path: str, *, body: bytes | None = None,
              headers: dict[str, str] | None = None, timeout: float = 30
              ) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    try:
        connection.request(method, path, body, headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def _api(peers: Peers, server: ServerProcess, method: str, path: str, data=None,
         **extra: str) -> tuple[int, dict[str, str], bytes]:
    headers = {"Content-Type": "application/json", "Authorization": f"Token {peers.token}",
               **extra}
    return _exchange(server, method, path, body=None if data is None else json.dumps(
        data).encode(), headers=headers)


# Headers that differ between two answers of the same content (the clock, the connection).
_VARYING = {"date", "server", "connection", "content-length"}


def _same(one, other) -> None:
    assert one[0] == other[0]
    assert one[2] == other[2]
    assert ({k: v for k, v in one[1].items() if k not in _VARYING}
            == {k: v for k, v in other[1].items() if k not in _VARYING})


def test_an_allocation_through_a_non_owner_gets_the_owners_exact_answer(peers):
    first, second = peers.servers
    partition = _owned_by_first(peers)
    path = f"/api/v1/partitions/{partition}/allocations"

    forwarded = _api(peers, second, "POST", path, allocation_body("k1"))
    assert forwarded[0] == 201, forwarded
    assert json.loads(forwarded[2])["allocationKey"] == "k1"
    # The owner stored it and counts it.
    assert peers.ledger(partition) == {"k1"}
    assert usage_served(first, peers.token, partition) == usage_expected([allocation_body("k1")])
    # The same request again (the key known): the owner's answer, byte for byte, whichever
    # peer it was sent to; so is a refusal of the contract.
    _same(_api(peers, second, "POST", path, allocation_body("k1")),
          _api(peers, first, "POST", path, allocation_body("k1")))
    bad = {**allocation_body("k2"), "resource": {"memory": -1}}
    refused = _api(peers, second, "POST", path, bad)
    assert refused[0] == 400
    _same(refused, _api(peers, first, "POST", path, bad))
    assert peers.ledger(partition) == {"k1"}

    metrics = _exchange(second, "GET", "/metrics")[2].decode()
    assert re.search(r'quotaweb_forwarded_requests_total\{kind="allocate",outcome="answered"\} '
                     r"[1-9]", metrics), metrics
    assert 'quotaweb_forward_seconds_count{kind="allocate"}' in metrics


def test_a_release_and_a_batch_through_a_non_owner(peers):
    first, second = peers.servers
    partition = _owned_by_first(peers)
    base = f"/api/v1/partitions/{partition}/allocations"
    assert _api(peers, second, "POST", base, allocation_body("one"))[0] == 201

    batch = _api(peers, second, "POST", f"{base}/batch", {"operations": [
        {"op": "allocate", **allocation_body("two")},
        {"op": "allocate", **allocation_body("three")},
        {"op": "release", "allocationKey": "one"},
    ]})
    assert batch[0] == 200, batch
    assert [result["status"] for result in json.loads(batch[2])["results"]] == [201, 201, 204]
    released = _api(peers, second, "DELETE", f"{base}/two")
    assert released[0] == 204
    assert released[2] == b""
    assert _api(peers, second, "DELETE", f"{base}/two")[0] == 404

    assert peers.ledger(partition) == {"three"}
    assert usage_served(first, peers.token, partition) == usage_expected(
        [allocation_body("three")]
    )


def _log_in(server: ServerProcess) -> str:
    """A session cookie, signed in through ``server``'s login form."""
    connection = server.connection()
    try:
        connection.request("GET", "/accounts/login/")
        page = connection.getresponse()
        html = page.read().decode()
        cookie = page.getheader("Set-Cookie").split(";", 1)[0]
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
        connection.request("POST", "/accounts/login/", urlencode({
            "username": "admin", "password": PASSWORD, "csrfmiddlewaretoken": token,
        }), {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie})
        answer = connection.getresponse()
        answer.read()
        assert answer.status == 302, answer.status
        return next(part.split(";", 1)[0] for part in answer.getheader("Set-Cookie").split(", ")
                    if part.startswith("sessionid="))
    finally:
        connection.close()


def test_yunikorn_reads_and_pages_of_a_partition_owned_elsewhere(peers):
    first, second = peers.servers
    partition = _owned_by_first(peers)
    assert peers.allocate(first, partition, "k1").status == 201

    for path in (f"/ws/v1/partition/{partition}/queues",
                 f"/ws/v1/partition/{partition}/usage/users"):
        through = _api(peers, second, "GET", path)
        assert through[0] == 200
        _same(through, _api(peers, first, "GET", path))

    session = _log_in(second)
    for path in (f"/usage/{partition}/", f"/usage/{partition}/users/u1/",
                 f"/elastic/{partition}/"):
        status, headers, html = _exchange(second, "GET", path, headers={"Cookie": session})
        assert status == 200, (path, status)
        assert headers["content-type"].startswith("text/html")
        assert "content-security-policy" in headers
        assert partition in html.decode()
    # The user's page shows the allocation the owner holds.
    status, _, html = _exchange(second, "GET", f"/usage/{partition}/users/u1/",
                                headers={"Cookie": session})
    assert "root.load" in html.decode()


def test_every_peers_overview_names_every_partition_and_links_to_it(peers):
    first, second = peers.servers
    partition = _owned_by_first(peers)
    session = _log_in(second)

    status, _, home = _exchange(second, "GET", "/", headers={"Cookie": session})

    assert status == 200
    page = home.decode()
    assert f'data-elsewhere="{partition}"' in page
    assert "Served by peer <strong>peer1</strong>" in page
    assert f'href="/usage/{partition}/"' in page
    # Every other partition is second's own, shown live as before.
    assert page.count('data-view="overview"') == len(PARTITIONS) - len(
        peers.owns(first) & set(PARTITIONS))
    # The usage pages' partition switcher names all of them, wherever served.
    status, _, overview = _exchange(second, "GET", f"/usage/{partition}/",
                                    headers={"Cookie": session})
    assert status == 200
    assert all(f'/usage/{name}/"' in overview.decode() for name in PARTITIONS)


def test_a_socket_on_any_peer_follows_a_partition_owned_elsewhere(peers):
    first, second = peers.servers
    partition = _owned_by_first(peers)

    async def scenario() -> tuple[dict, dict]:
        live = await WebSocket.connect(
            "127.0.0.1", second.port, f"/ws/usage/{partition}/?token={peers.token}",
            origin=f"http://127.0.0.1:{second.port}",
        )
        try:
            await live.send_json({"type": "subscribe", "scope": "user:u1"})
            snapshot = await live.receive_news(timeout=10)
            answer = await asyncio.to_thread(peers.allocate, first, partition, "k1")
            assert answer.status == 201
            update = await live.receive_news(timeout=10)
            return snapshot, update
        finally:
            live.close()

    snapshot, update = asyncio.run(scenario())
    assert (snapshot["type"], snapshot["scope"]) == ("snapshot", "user:u1")
    assert update["type"] == "update"
    assert update["changed"][0]["queues"]["resourceUsage"] == {"memory": 1024}


def test_a_socket_follows_its_partition_to_the_new_owner(peers):
    first, second = peers.servers
    partition = _owned_by_first(peers)

    async def scenario() -> list[dict]:
        live = await WebSocket.connect(
            "127.0.0.1", second.port, f"/ws/usage/{partition}/?token={peers.token}",
            origin=f"http://127.0.0.1:{second.port}",
        )
        try:
            await live.send_json({"type": "subscribe", "scope": "user:u1"})
            seen = [await live.receive_news(timeout=10)]
            await asyncio.to_thread(first.kill)
            # The survivor takes the partition; the socket asks it for a fresh snapshot (it
            # may say it is stale first), then hears its updates.
            while (message := await live.receive_news(timeout=20))["type"] == "stale":
                pass
            seen.append(message)
            answer = await asyncio.to_thread(peers.allocate, second, partition, "k1")
            assert answer.status == 201
            while True:
                message = await live.receive_news(timeout=10)
                if message["type"] == "update":
                    seen.append(message)
                    return seen
        finally:
            live.close()

    before, after, update = asyncio.run(scenario())
    assert (before["type"], after["type"]) == ("snapshot", "snapshot")
    assert update["changed"][0]["queues"]["resourceUsage"] == {"memory": 1024}
    assert partition in peers.owns(second)


def test_a_request_during_a_handoff_waits_for_the_new_owner(peers):
    first, second = peers.servers
    partition = _owned_by_first(peers)
    assert peers.allocate(second, partition, "before").status == 201

    first.kill()
    started = time.monotonic()
    answer = peers.allocate(second, partition, "during")
    # Waited for the survivor to take the partition (a round), not refused.
    assert answer.status == 201, answer.body
    assert time.monotonic() - started < 10
    assert partition in peers.owns(second)
    assert peers.ledger(partition) == {"before", "during"}


def test_an_owner_that_does_not_answer_is_a_503_naming_it(peers):
    first, second = peers.servers
    partition = _owned_by_first(peers)
    first.process.send_signal(signal.SIGSTOP)
    try:
        started = time.monotonic()
        answer = peers.allocate(second, partition, "frozen")
        waited = time.monotonic() - started
        assert answer.status == 503, answer.body
        assert answer.retry_after
        body = json.loads(answer.body)
        assert (body["error"], body["owner"]) == ("not_owner", "peer1")
        assert "peer1" in body["message"]
        # Bounded: the owner's own bounds and a margin, never a hang.
        assert waited < 15
        # Meanwhile the lease ran out and the other peer took the partition over.
        peers.wait_for(lambda: partition in peers.owns(second), "the takeover")
        assert peers.allocate(second, partition, "after").status == 201
    finally:
        first.process.send_signal(signal.SIGCONT)
    # The request the frozen owner got is refused by the fence when it wakes, never stored.
    peers.wait_for(lambda: partition not in peers.owns(first), "the woken peer letting go")
    assert peers.ledger(partition) == {"after"}


def test_a_forged_hop_header_bypasses_nothing(peers):
    first, second = peers.servers
    partition = _owned_by_first(peers)
    path = f"/api/v1/partitions/{partition}/allocations"
    forged = {"Quotaweb-Forwarded-By": "peer1"}

    # No credentials: refused at either peer, forwarded or not.
    for server in (first, second):
        status, _, _ = _exchange(server, "POST", path, body=json.dumps(
            allocation_body("x")).encode(), headers={"Content-Type": "application/json",
                                                     **forged})
        assert status == 401
    # Good credentials at the peer that does not own it: answered there (not forwarded),
    # 503 naming the owner, nothing stored.
    status, headers, body = _api(peers, second, "POST", path, allocation_body("y"), **forged)
    assert status == 503
    assert headers["retry-after"]
    assert json.loads(body)["owner"] == "peer1"
    assert peers.ledger(partition) == set()
