"""The allocation API over HTTP against the real ASGI server (daphne, ``manage.py demo``).

Prints, as medians of several runs:
- single allocate: round trips per second and p50/p99 latency, one client on a kept-alive
  connection (each allocation admitted by the engine and committed to the ledger before the
  answer), and the same for releases;
- batches: operations per second through ``allocations/batch``, in a steady state (10,000
  allocations stay live; each round allocates 1,000 and releases them again): batches of 1,000
  allocates, of 1,000 releases, of 500 of each; and two clients sending batches at once.

Targets on this machine: p50 under 5 ms for a single allocate; at least 20,000 operations/s
through batches of 1,000.

    .venv/bin/python benchmarks/api.py [--runs 3] [--singles 2000] [--batches 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.server_process import ServerProcess, free_port

# Many users in a few teams, caps high enough that the load is admitted: this measures the
# path, not denials.
CONFIG = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: eng
            resources:
              max: {memory: 100Ti, vcore: "1000000"}
            limits:
              - limit: everyone
                users: ["*"]
                maxresources: {memory: 10Ti}
                maxapplications: 100000
            queues:
              - name: ml
              - name: web
"""
ALLOCATIONS = "/api/v1/partitions/default/allocations"
TARGET_P50_MS = 5.0
TARGET_BATCH_OPS = 20_000


def _allocation(key: str, n: int) -> dict:
    return {
        "allocationKey": key, "applicationId": f"app-{n % 500}",
        "queuePath": "root.eng.ml" if n % 2 else "root.eng.web", "user": f"user{n % 200}",
        "groups": ["eng"], "resource": {"memory": 2**20, "vcore": 100},
    }


def _encoded(operations: list[dict]) -> bytes:
    return json.dumps({"operations": operations}).encode()


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def preload(server: ServerProcess, token: str, *, live: int) -> None:
    """Live allocations that stay for the whole benchmark, as a running cluster has."""
    connection = server.connection()
    for start in range(0, live, 1000):
        ops = [{"op": "allocate", **_allocation(f"live-{n}", n)}
               for n in range(start, min(live, start + 1000))]
        status, _ = server.request("POST", f"{ALLOCATIONS}/batch", _encoded(ops), token,
                                   connection)
        assert status == 200, status
    connection.close()


def singles(server: ServerProcess, token: str, *, count: int, run: int) -> dict[str, float]:
    connection = server.connection()
    latencies, releases = [], []
    keys = [f"s{run}-{n}" for n in range(count)]
    started = time.perf_counter()
    for n, key in enumerate(keys):
        t0 = time.perf_counter()
        status, _ = server.request("POST", ALLOCATIONS, _allocation(key, n), token, connection)
        latencies.append(time.perf_counter() - t0)
        assert status == 201, status
    elapsed = time.perf_counter() - started
    for key in keys:
        t0 = time.perf_counter()
        status, _ = server.request("DELETE", f"{ALLOCATIONS}/{key}", None, token, connection)
        releases.append(time.perf_counter() - t0)
        assert status == 204, status
    connection.close()
    return {
        "allocate_per_s": count / elapsed,
        "allocate_p50_ms": _percentile(latencies, 0.50) * 1000,
        "allocate_p99_ms": _percentile(latencies, 0.99) * 1000,
        "release_p50_ms": _percentile(releases, 0.50) * 1000,
    }


def batches(server: ServerProcess, token: str, *, count: int, run: int) -> dict[str, float]:
    """Steady state (the live set stays near its preloaded size): each round allocates a batch
    of 1,000, then releases it; and a mixed batch releases 500 and allocates 500."""
    connection = server.connection()
    # Bodies are encoded before the clock starts: the figure is the server's, not the client's.
    rounds = [
        (
            _encoded([{"op": "allocate", **_allocation(f"b{run}-{b}-{n}", n)}
                      for n in range(1000)]),
            _encoded([{"op": "release", "allocationKey": f"b{run}-{b}-{n}"}
                      for n in range(1000)]),
        )
        for b in range(count)
    ]
    timings = {"allocate": 0.0, "release": 0.0}
    for allocate, release in rounds:
        for kind, encoded in (("allocate", allocate), ("release", release)):
            t0 = time.perf_counter()
            status, body = server.request(
                "POST", f"{ALLOCATIONS}/batch", encoded, token, connection
            )
            timings[kind] += time.perf_counter() - t0
            assert status == 200, status
            assert all(r["status"] in (201, 204) for r in body["results"])
    mixed_elapsed = 0.0
    previous = [f"m{run}-seed-{n}" for n in range(500)]
    seed = [{"op": "allocate", **_allocation(key, n)} for n, key in enumerate(previous)]
    server.request("POST", f"{ALLOCATIONS}/batch", _encoded(seed), token, connection)
    for b in range(count):
        keys = [f"m{run}-{b}-{n}" for n in range(500)]
        encoded = _encoded(
            [{"op": "release", "allocationKey": key} for key in previous]
            + [{"op": "allocate", **_allocation(key, n)} for n, key in enumerate(keys)]
        )
        t0 = time.perf_counter()
        status, body = server.request("POST", f"{ALLOCATIONS}/batch", encoded, token, connection)
        mixed_elapsed += time.perf_counter() - t0
        assert status == 200, status
        assert all(r["status"] in (201, 204) for r in body["results"])
        previous = keys
    release = [{"op": "release", "allocationKey": key} for key in previous]
    server.request("POST", f"{ALLOCATIONS}/batch", _encoded(release), token, connection)
    connection.close()
    return {
        "batch_allocate_ops_per_s": count * 1000 / timings["allocate"],
        "batch_release_ops_per_s": count * 1000 / timings["release"],
        "batch_mixed_ops_per_s": count * 1000 / mixed_elapsed,
    }


def batches_pipelined(
    server: ServerProcess, token: str, *, count: int, run: int, clients: int = 2
) -> dict[str, float]:
    """``clients`` connections sending batches of 1,000 allocates at once, as a scheduler with
    more than one worker would: one prepares its next batch while the server runs another."""
    def client(number: int) -> None:
        connection = server.connection()
        for encoded in bodies[number]:
            status, _ = server.request("POST", f"{ALLOCATIONS}/batch", encoded, token, connection)
            assert status == 200, status
        connection.close()

    bodies = [
        [_encoded([{"op": "allocate", **_allocation(f"p{run}-{number}-{b}-{n}", n)}
                   for n in range(1000)]) for b in range(count)]
        for number in range(clients)
    ]
    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    connection = server.connection()
    for number in range(clients):
        for b in range(count):
            release = [{"op": "release", "allocationKey": f"p{run}-{number}-{b}-{n}"}
                       for n in range(1000)]
            server.request("POST", f"{ALLOCATIONS}/batch", _encoded(release), token, connection)
    connection.close()
    return {"batch_pipelined_ops_per_s": clients * count * 1000 / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--singles", type=int, default=2000)
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--live", type=int, default=10_000,
                        help="allocations kept live through the benchmark (default 10,000)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quotaweb-api-bench-") as folder:
        server = ServerProcess(Path(folder), free_port(), config_yaml=CONFIG)
        server.start()
        try:
            server.wait_ready()
            token = server.token("admin")
            # Warm-up: first requests load code paths and fill caches.
            singles(server, token, count=200, run=-1)
            preload(server, token, live=args.live)
            figures: dict[str, list[float]] = {}
            for run in range(args.runs):
                for name, value in {
                    **singles(server, token, count=args.singles, run=run),
                    **batches(server, token, count=args.batches, run=run),
                    **batches_pipelined(server, token, count=args.batches // 2, run=run),
                }.items():
                    figures.setdefault(name, []).append(value)
        finally:
            server.close()
    median = {name: statistics.median(values) for name, values in figures.items()}
    print(f"allocation API over HTTP (daphne, SQLite ledger), {args.live:,} allocations live "
          f"throughout; medians of {args.runs} runs")
    print(f"  single allocate        {median['allocate_per_s']:9,.0f} round trips/s")
    print(f"  single allocate p50    {median['allocate_p50_ms']:9.2f} ms   "
          f"({median['allocate_p50_ms'] / TARGET_P50_MS:.2f} of the {TARGET_P50_MS:g} ms target)")
    print(f"  single allocate p99    {median['allocate_p99_ms']:9.2f} ms")
    print(f"  single release p50     {median['release_p50_ms']:9.2f} ms")
    print(f"  batches of 1,000 allocates  {median['batch_allocate_ops_per_s']:9,.0f} ops/s   "
          f"({median['batch_allocate_ops_per_s'] / TARGET_BATCH_OPS:.2f}x the "
          f"{TARGET_BATCH_OPS:,} ops/s target)")
    print(f"  batches of 1,000 releases   {median['batch_release_ops_per_s']:9,.0f} ops/s")
    print(f"  batches of 500 releases + 500 allocates "
          f"{median['batch_mixed_ops_per_s']:9,.0f} ops/s")
    print(f"  batches of 1,000 allocates, 2 clients at once "
          f"{median['batch_pipelined_ops_per_s']:9,.0f} ops/s   "
          f"({median['batch_pipelined_ops_per_s'] / TARGET_BATCH_OPS:.2f}x the target)")
    for name, values in sorted(figures.items()):
        print(f"    {name}: " + ", ".join(f"{value:,.2f}" for value in values))


if __name__ == "__main__":
    main()
