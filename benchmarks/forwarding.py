"""A forwarded single allocate against a direct one, in the same run (issue 25: p50 ratio at
most 1.5x).

Two real ``manage.py serve`` peers (production settings) share one private PostgreSQL
(``tests.postgres_server``). The allocations go to one partition, alternately to its owner
(direct) and to the other peer (forwarded to the owner over HTTP, ``core.forwarding``), each
client on one kept-alive connection, so both kinds see the same load. Prints the p50 and p99
of each and the ratio of the p50s.

``--redis`` also times what the Redis channel layer would cost as the transport instead: a
request and its answer (an allocation body each way) between two coroutines of this process
through Redis (``REDIS_URL``, default the loopback's), two list pushes and two blocking pops,
against the forwarded allocate's extra time over the direct one.

    .venv/bin/python benchmarks/forwarding.py [--requests 2000] [--redis]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.database_load import percentile
from tests.postgres_server import PostgresServer, postgres_missing
from tests.server_process import ServerProcess, peers_start, peers_stop

PARTITIONS = ("alpha", "beta", "gamma")
YAML = "partitions:\n" + "".join(
    f"  - name: {name}\n    queues:\n      - name: root\n        queues:\n          - name: load\n"
    for name in PARTITIONS
)
WAIT_SECONDS = 60


def _allocate(connection: http.client.HTTPConnection, partition: str, key: str,
              token: str) -> float:
    body = json.dumps({"allocationKey": key, "applicationId": f"app-{key}",
                       "queuePath": "root.load", "user": "u1", "groups": [],
                       "resource": {"memory": 1}}).encode()
    started = time.perf_counter()
    connection.request("POST", f"/api/v1/partitions/{partition}/allocations", body, {
        "Content-Type": "application/json", "Authorization": f"Token {token}",
    })
    answer = connection.getresponse()
    data = answer.read()
    seconds = time.perf_counter() - started
    if answer.status != 201:
        raise SystemExit(f"allocation {key}: {answer.status} {data!r}")
    return seconds


def _figures(seconds: list[float]) -> dict[str, float]:
    return {"p50_ms": round(statistics.median(seconds) * 1000, 3),
            "p99_ms": round(percentile(seconds, 0.99) * 1000, 3)}


async def _redis_round_trips(url: str, count: int) -> list[float]:
    from channels_redis.core import RedisChannelLayer

    layer = RedisChannelLayer(hosts=[url], prefix=f"bench-{uuid.uuid4().hex[:8]}")
    message = {"type": "forward", "body": b"x" * 160}
    asked = await layer.new_channel()
    answered = await layer.new_channel()

    async def owner() -> None:
        while True:
            request = await layer.receive(asked)
            await layer.send(answered, {"type": "answer", "body": request["body"]})

    serving = asyncio.create_task(owner())
    seconds = []
    try:
        for _ in range(count):
            started = time.perf_counter()
            await layer.send(asked, message)
            await layer.receive(answered)
            seconds.append(time.perf_counter() - started)
    finally:
        serving.cancel()
        await asyncio.gather(serving, return_exceptions=True)
        await layer.flush()
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="of each kind")
    parser.add_argument("--redis", action="store_true")
    args = parser.parse_args()
    missing = postgres_missing()
    if missing:
        print(f"skipped: {missing}")
        return 0
    folder = Path(tempfile.mkdtemp(prefix="quotaweb-forwarding-"))
    database = PostgresServer()
    peers: list[ServerProcess] = []
    try:
        database.start()
        url = database.create_database()
        peers, token = peers_start(
            folder, url, count=2, config_yaml=YAML,
            env={"QUOTAWEB_DB_STATEMENT_TIMEOUT_MS": "2000"},
        )
        ends = time.monotonic() + WAIT_SECONDS
        while not all(peer.owns() & set(PARTITIONS) for peer in peers):
            if time.monotonic() > ends:
                raise SystemExit("the partitions were not shared out")
            time.sleep(0.1)
        owner, other = peers
        partition = sorted(owner.owns() & set(PARTITIONS))[0]
        direct, forwarded = owner.connection(), other.connection()
        # Warm both paths (connections, the token cache, the owner's connection to itself).
        for number in range(50):
            _allocate(direct, partition, f"warm-d{number}", token)
            _allocate(forwarded, partition, f"warm-f{number}", token)
        times: dict[str, list[float]] = {"direct": [], "forwarded": []}
        for number in range(args.requests):
            times["direct"].append(_allocate(direct, partition, f"d{number}", token))
            times["forwarded"].append(_allocate(forwarded, partition, f"f{number}", token))
        result = {kind: _figures(seconds) for kind, seconds in times.items()}
        result["p50_ratio"] = round(statistics.median(times["forwarded"])
                                    / statistics.median(times["direct"]), 3)
        result["forwarding_p50_extra_ms"] = round(
            (statistics.median(times["forwarded"]) - statistics.median(times["direct"])) * 1000,
            3,
        )
        if args.redis:
            redis_url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
            trips = asyncio.run(_redis_round_trips(redis_url, args.requests))
            result["redis_channel_round_trip"] = _figures(trips)
        print(json.dumps({"requests": args.requests, "partition": partition, **result}))
        return 0
    finally:
        peers_stop(peers)
        database.close()


if __name__ == "__main__":
    sys.exit(main())
