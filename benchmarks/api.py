"""The allocation API over HTTP against the real server (``manage.py serve``, daphne), each
figure also as a ratio to a floor measured in the same run on the same machine.

Prints, as medians of several runs, each ratio taken within its run from work interleaved in
blocks of a few seconds (floor and single allocates in turns of 200 requests; one slice of the
engine's increases before each batch round), so that a machine whose speed drifts, as a shared
one does, moves both sides of a ratio alike:
- the floor: the same server (daphne, set up as ``manage.py serve`` sets it up: the same server
  class, options and access log; ``floor_server.py``) serving ``floor_app.py``, an ASGI app that
  only reads the body and answers, one client on a kept-alive connection, p50/p99 per round
  trip; and the
  engine's own increase rate (``engine.py``'s scenario of a random user per operation);
- single allocate: round trips per second and p50/p99 latency, one client on a kept-alive
  connection (each allocation admitted by the engine and committed to the ledger before the
  answer), as ratios to the floor's p50/p99, and the same for releases;
- batches: operations per second through ``allocations/batch``, in a steady state (10,000
  allocations stay live; each round allocates 1,000 and releases them again): batches of 1,000
  allocates (as a ratio to the engine's increase rate), of 1,000 releases, of 500 of each; and
  two clients sending batches at once.

Targets (issue 15): single allocate p50 within 3x of the floor's p50, p99 within 5x of its p99;
batches of 1,000 allocates at 0.8x or more of the engine's increase rate.

    .venv/bin/python benchmarks/api.py [--runs 3] [--singles 2000] [--batches 20]
        [--database-url postgres://postgres@127.0.0.1:5432/quotaweb]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine import build_world, make_ops, timed_increases

from tests.server_process import ServerProcess, free_port, postgres_database
from trackers import Engine

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
TARGET_P50_RATIO = 3.0
TARGET_P99_RATIO = 5.0
TARGET_BATCH_RATIO = 0.8
ENGINE_OPS = 100_000
SINGLES_BLOCK = 200
BENCHMARKS = Path(__file__).resolve().parent


def _allocation(key: str, n: int) -> dict:
    return {
        "allocationKey": key, "applicationId": f"app-{n % 500}",
        "queuePath": "root.eng.ml" if n % 2 else "root.eng.web", "user": f"user{n % 200}",
        "groups": ["eng"], "resource": {"memory": 2**20, "vcore": 100},
    }


def _encoded(operations: list[dict]) -> bytes:
    return json.dumps({"operations": operations}).encode()


def _post(
    connection: http.client.HTTPConnection, path: str, body: bytes, token: str
) -> tuple[int, bytes]:
    """One POST of an encoded body: the status and the answer's bytes, not yet decoded (the
    clock stops when the server's answer is in, not when this client has parsed it)."""
    connection.request("POST", path, body, {
        "Content-Type": "application/json", "Authorization": f"Token {token}",
    })
    response = connection.getresponse()
    return response.status, response.read()


def _all_done(status: int, answer: bytes) -> None:
    assert status == 200, status
    assert all(r["status"] in (201, 204) for r in json.loads(answer)["results"])


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


@contextlib.contextmanager
def floor_server(port: int):
    """``floor_app.py`` served as ``manage.py serve`` serves quotaweb (``floor_server.py``): what
    any request costs on this server, as quotaweb sets it up, and machine."""
    process = subprocess.Popen(
        [sys.executable, "floor_server.py", str(port)],
        cwd=BENCHMARKS, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                http.client.HTTPConnection("127.0.0.1", port, timeout=1).connect()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise AssertionError("the floor server did not start") from None
                time.sleep(0.1)
        yield port
    finally:
        process.kill()
        process.wait(timeout=30)


def _floor_block(
    server: ServerProcess, connection: http.client.HTTPConnection, *, start: int, count: int
) -> list[float]:
    """The single-allocate client loop, as it is, against the floor app: round trip times."""
    latencies = []
    for n in range(start, start + count):
        t0 = time.perf_counter()
        status, _ = server.request("POST", ALLOCATIONS, _allocation(f"f{n}", n), "", connection)
        latencies.append(time.perf_counter() - t0)
        assert status == 201, status
    return latencies


def engine_rate(world, *, run: int) -> float:
    """``engine.py``'s increase rate (a random user per operation, ``ENGINE_OPS`` increases on
    a fresh engine), per second."""
    partition, users, home, member = world
    ops = make_ops(users, home, member, ENGINE_OPS, seed=run)
    seconds, _ = timed_increases(Engine(partition), ops)
    return ENGINE_OPS / seconds


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


def singles(
    server: ServerProcess, token: str, floor_port: int, *, count: int, run: int,
    block: int = SINGLES_BLOCK,
) -> dict[str, float]:
    """Single allocates, then their releases, one client on a kept-alive connection, in blocks
    of ``block`` each preceded by a block of the floor's: the ratios compare round trips made
    in the same few seconds, whatever else the machine is doing then."""
    connection = server.connection()
    floor_connection = http.client.HTTPConnection("127.0.0.1", floor_port, timeout=30)
    floor_latencies, latencies, releases = [], [], []
    keys = [f"s{run}-{n}" for n in range(count)]
    elapsed = 0.0
    for start in range(0, count, block):
        floor_latencies += _floor_block(server, floor_connection, start=start, count=block)
        started = time.perf_counter()
        for n in range(start, min(count, start + block)):
            t0 = time.perf_counter()
            status, _ = server.request(
                "POST", ALLOCATIONS, _allocation(keys[n], n), token, connection
            )
            latencies.append(time.perf_counter() - t0)
            assert status == 201, status
        elapsed += time.perf_counter() - started
    for start in range(0, count, block):
        floor_latencies += _floor_block(server, floor_connection, start=start, count=block)
        for key in keys[start:start + block]:
            t0 = time.perf_counter()
            status, _ = server.request("DELETE", f"{ALLOCATIONS}/{key}", None, token, connection)
            releases.append(time.perf_counter() - t0)
            assert status == 204, status
    connection.close()
    floor_connection.close()
    floor_p50, floor_p99 = _percentile(floor_latencies, 0.50), _percentile(floor_latencies, 0.99)
    return {
        "floor_p50_ms": floor_p50 * 1000,
        "floor_p99_ms": floor_p99 * 1000,
        "allocate_per_s": count / elapsed,
        "allocate_p50_ms": _percentile(latencies, 0.50) * 1000,
        "allocate_p99_ms": _percentile(latencies, 0.99) * 1000,
        "release_p50_ms": _percentile(releases, 0.50) * 1000,
        "allocate_p50_ratio": _percentile(latencies, 0.50) / floor_p50,
        "allocate_p99_ratio": _percentile(latencies, 0.99) / floor_p99,
        "release_p50_ratio": _percentile(releases, 0.50) / floor_p50,
    }


def batches(
    server: ServerProcess, token: str, world, *, count: int, run: int
) -> dict[str, float]:
    """Steady state (the live set stays near its preloaded size): each round allocates a batch
    of 1,000, then releases it; and a mixed batch releases 500 and allocates 500. The engine's
    own rate, ``engine.py``'s scenario as it is (``ENGINE_OPS`` increases on a fresh engine, a
    random user each), is measured in this process right before the batches and right after
    them, and averaged: the ratio compares work done within the same few seconds."""
    connection = server.connection()
    # Bodies are encoded before the clock starts and answers decoded after it stops: the figure
    # is the server's, not the client's.
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
    engine_before = engine_rate(world, run=run)
    for allocate, release in rounds:
        for kind, encoded in (("allocate", allocate), ("release", release)):
            t0 = time.perf_counter()
            status, answer = _post(connection, f"{ALLOCATIONS}/batch", encoded, token)
            timings[kind] += time.perf_counter() - t0
            _all_done(status, answer)
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
        status, answer = _post(connection, f"{ALLOCATIONS}/batch", encoded, token)
        mixed_elapsed += time.perf_counter() - t0
        _all_done(status, answer)
        previous = keys
    release = [{"op": "release", "allocationKey": key} for key in previous]
    server.request("POST", f"{ALLOCATIONS}/batch", _encoded(release), token, connection)
    connection.close()
    engine = (engine_before + engine_rate(world, run=run)) / 2
    return {
        "engine_increase_per_s": engine,
        "batch_allocate_ops_per_s": count * 1000 / timings["allocate"],
        "batch_release_ops_per_s": count * 1000 / timings["release"],
        "batch_mixed_ops_per_s": count * 1000 / mixed_elapsed,
        "batch_allocate_ratio": count * 1000 / timings["allocate"] / engine,
        "batch_release_ratio": count * 1000 / timings["release"] / engine,
        "batch_mixed_ratio": count * 1000 / mixed_elapsed / engine,
    }


def batches_pipelined(
    server: ServerProcess, token: str, *, count: int, run: int, clients: int = 2
) -> dict[str, float]:
    """``clients`` connections sending batches of 1,000 allocates at once, as a scheduler with
    more than one worker would: one prepares its next batch while the server runs another."""
    def client(number: int) -> None:
        connection = server.connection()
        for encoded in bodies[number]:
            _all_done(*_post(connection, f"{ALLOCATIONS}/batch", encoded, token))
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
    parser.add_argument("--database-url", default=None,
                        help="a PostgreSQL server's URL: the ledger in a database of its own "
                             "there (default: SQLite)")
    args = parser.parse_args()
    world = build_world()
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="quotaweb-api-bench-")))
        database_url = (stack.enter_context(postgres_database(args.database_url))
                        if args.database_url else None)
        server = ServerProcess(folder, free_port(), config_yaml=CONFIG,
                               database_url=database_url, production=True)
        server.migrate()
        token = server.create_admin("admin", "bench-admin-password-1")
        floor_port = stack.enter_context(floor_server(free_port()))
        server.start("serve")
        try:
            server.wait_ready()
            # Warm-up: first requests load code paths and fill caches.
            singles(server, token, floor_port, count=200, run=-1)
            preload(server, token, live=args.live)
            figures: dict[str, list[float]] = {}
            for run in range(args.runs):
                run_figures = {
                    **singles(server, token, floor_port, count=args.singles, run=run),
                    **batches(server, token, world, count=args.batches, run=run),
                }
                pipelined = batches_pipelined(server, token, count=args.batches // 2, run=run)
                run_figures.update(pipelined, batch_pipelined_ratio=(
                    pipelined["batch_pipelined_ops_per_s"] / run_figures["engine_increase_per_s"]
                ))
                for name, value in run_figures.items():
                    figures.setdefault(name, []).append(value)
        finally:
            server.close()
    median = {name: statistics.median(values) for name, values in figures.items()}
    ledger = "PostgreSQL" if args.database_url else "SQLite"
    print(f"allocation API over HTTP (manage.py serve: daphne, {ledger} ledger), "
          f"{args.live:,} allocations live throughout; medians of {args.runs} runs, each ratio "
          f"taken within its run")
    print(f"  floor: the same server (daphne as serve sets it up), trivial ASGI app, p50 "
          f"{median['floor_p50_ms']:.3f} ms, p99 "
          f"{median['floor_p99_ms']:.3f} ms; engine increases "
          f"{median['engine_increase_per_s']:,.0f}/s")
    print(f"  single allocate        {median['allocate_per_s']:9,.0f} round trips/s")
    print(f"  single allocate p50    {median['allocate_p50_ms']:9.3f} ms   "
          f"{median['allocate_p50_ratio']:.2f}x the floor (target {TARGET_P50_RATIO:g}x)")
    print(f"  single allocate p99    {median['allocate_p99_ms']:9.3f} ms   "
          f"{median['allocate_p99_ratio']:.2f}x the floor (target {TARGET_P99_RATIO:g}x)")
    print(f"  single release p50     {median['release_p50_ms']:9.3f} ms   "
          f"{median['release_p50_ratio']:.2f}x the floor")
    for label, name in (
        ("batches of 1,000 allocates", "batch_allocate"),
        ("batches of 1,000 releases", "batch_release"),
        ("batches of 500 releases + 500 allocates", "batch_mixed"),
        ("batches of 1,000 allocates, 2 clients at once", "batch_pipelined"),
    ):
        print(f"  {label:<47} {median[name + '_ops_per_s']:9,.0f} ops/s   "
              f"{median[name + '_ratio']:.2f}x the engine's increases")
    print(f"  (target for batches of 1,000 allocates: {TARGET_BATCH_RATIO:g}x the engine's "
          f"increases)")
    for name, values in sorted(figures.items()):
        print(f"    {name}: " + ", ".join(f"{value:,.3f}" for value in values))


if __name__ == "__main__":
    main()
