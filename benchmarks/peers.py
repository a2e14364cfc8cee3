"""Throughput of single allocates and of batches over six partitions with 1, 2 and 3 ``serve``
peers on this machine (issue 25).

For each peer count, real ``manage.py serve`` peers (production settings) share a fresh database
on one private PostgreSQL (``tests.postgres_server``). Once every unit (the six partitions and the
quota trees) has an owner, the clients read ``GET /api/v1/owners`` and send each request straight
to the owner of its partition, so the figures need no forwarding between peers and measure what
the owners themselves can do. ``--clients`` threads per partition, each on its own kept-alive
connection, send for ``--seconds``:

- single allocates (``POST /api/v1/partitions/{p}/allocations``), one after another;
- batches of ``--batch`` allocates (``POST .../allocations/batch``).

Prints, per peer count and kind, allocations admitted per second (all partitions together),
requests per second, p50 and p99 of a request's round trip, and any answer other than success.
On one machine the peers share its cores with each other, PostgreSQL and the clients: more peers
show what the partitioning costs or buys here; with one machine per peer each owner would have
cores of its own.

    .venv/bin/python benchmarks/peers.py [--peers 1 2 3] [--seconds 5] [--clients 2]
        [--batch 100] [--lease-ms 2000]
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.database_load import percentile
from tests.postgres_server import PostgresServer, postgres_missing
from tests.server_process import ServerProcess, peers_start, peers_stop

PARTITIONS = tuple(f"p{number}" for number in range(1, 7))
UNITS = {*PARTITIONS, "quota-trees"}
YAML = "partitions:\n" + "".join(
    f"  - name: {name}\n    queues:\n      - name: root\n        queues:\n          - name: load\n"
    for name in PARTITIONS
)
WAIT_SECONDS = 120


def _body(key: str) -> dict:
    return {"allocationKey": key, "applicationId": f"app-{key}", "queuePath": "root.load",
            "user": "u1", "groups": [], "resource": {"memory": 1}}


def _shared(peers: list[ServerProcess]) -> None:
    """Until every unit has one owner and each peer holds its even share."""
    ends = time.monotonic() + WAIT_SECONDS
    floor = len(UNITS) // len(peers)
    while time.monotonic() < ends:
        held = [peer.owns() for peer in peers]
        if (set().union(*held) == UNITS and sum(map(len, held)) == len(UNITS)
                and all(floor <= len(units) <= floor + 1 for units in held)):
            return
        time.sleep(0.1)
    raise SystemExit("gave up waiting for the units to be shared out")


def _owners(peers: list[ServerProcess], token: str) -> dict[str, ServerProcess]:
    """Each partition's owner, as ``GET /api/v1/owners`` names it."""
    status, owners = peers[0].request("GET", "/api/v1/owners", token=token)
    assert status == 200, owners
    by_address = {peer["name"]: peer["address"] for peer in owners["peers"]}
    by_port = {peer.port: peer for peer in peers}
    return {
        partition: by_port[int(by_address[lease["owner"]].rsplit(":", 1)[1])]
        for partition, lease in owners["partitions"].items() if partition in PARTITIONS
    }


def _run(owners: dict[str, ServerProcess], token: str, *, kind: str, clients: int,
         seconds: float, batch: int) -> dict:
    """Every partition's clients sending to its owner for ``seconds``: the figures."""
    latencies: list[float] = []
    admitted = [0]
    unexpected: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(len(owners) * clients + 1)
    headers = {"Content-Type": "application/json", "Authorization": f"Token {token}"}

    def client(partition: str, server: ServerProcess, number: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        mine: list[float] = []
        count, sent = 0, 0
        start.wait()
        ends = time.monotonic() + seconds
        while time.monotonic() < ends:
            prefix = f"{kind}-{partition}-{number}-{sent}"
            if kind == "single":
                path = f"/api/v1/partitions/{partition}/allocations"
                body = _body(prefix)
            else:
                path = f"/api/v1/partitions/{partition}/allocations/batch"
                body = {"operations": [{"op": "allocate", **_body(f"{prefix}-{n}")}
                                       for n in range(batch)]}
            sent += 1
            began = time.perf_counter()
            connection.request("POST", path, json.dumps(body).encode(), headers)
            response = connection.getresponse()
            data = response.read()
            mine.append(time.perf_counter() - began)
            if response.status in (200, 201):
                count += 1 if kind == "single" else batch
            else:
                with lock:
                    unexpected.append(f"{response.status} {data[:200]!r}")
        connection.close()
        with lock:
            latencies.extend(mine)
            admitted[0] += count

    threads = [threading.Thread(target=client, args=(partition, server, number))
               for partition, server in owners.items() for number in range(clients)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.monotonic()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    return {
        "kind": kind, "allocations_per_second": round(admitted[0] / elapsed, 1),
        "requests_per_second": round(len(latencies) / elapsed, 1),
        "p50_ms": round(percentile(latencies, 0.5) * 1000, 2) if latencies else None,
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 2) if latencies else None,
        "unexpected": len(unexpected), "first_unexpected": unexpected[:3],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=2, help="clients per partition")
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--lease-ms", type=int, default=2000)
    args = parser.parse_args()
    missing = postgres_missing()
    if missing:
        print(f"skipped: {missing}")
        return 0
    folder = Path(tempfile.mkdtemp(prefix="quotaweb-peers-"))
    database = PostgresServer()
    try:
        database.start()
        for count in args.peers:
            url = database.create_database(f"peers{count}")
            peers, token = peers_start(
                folder / f"run{count}", url, count=count, config_yaml=YAML,
                env={"QUOTAWEB_LEASE_MS": str(args.lease_ms)},
            )
            try:
                _shared(peers)
                owners = _owners(peers, token)
                for kind in ("single", "batch"):
                    figures = _run(owners, token, kind=kind, clients=args.clients,
                                   seconds=args.seconds, batch=args.batch)
                    print(json.dumps({"peers": count, "partitions": len(PARTITIONS),
                                      "clients": args.clients * len(PARTITIONS), **figures}),
                          flush=True)
            finally:
                peers_stop(peers)
        return 0
    finally:
        database.close()


if __name__ == "__main__":
    sys.exit(main())
