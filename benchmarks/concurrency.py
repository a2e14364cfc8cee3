"""Single allocates from several kept-alive clients at once against the real server
(``manage.py serve``), each figure beside the floor's (``floor_app.py`` on the same server,
``floor_server.py``) measured in the same run.

For 1, 4 and 16 clients (threads of this process, each on its own kept-alive connection), in
turns of a few seconds: the floor, then quotaweb's single allocates (each admitted by the engine
and committed to the ledger before its answer), then a batch releasing them so that the live set
stays the same. Prints, as medians of several runs, round trips per second, p50 and p99 of each
round trip, and quotaweb's rate as a ratio to the floor's rate taken within each run.

Targets (issue 24): at 16 clients at least 0.5x the floor's rate with p99 under 20 ms; the
1-client p50 no worse than before group commit (docs/benchmarks.md).

    .venv/bin/python benchmarks/concurrency.py [--runs 3] [--seconds 3] [--clients 1 4 16]
        [--database-url postgres://postgres@127.0.0.1:5432/quotaweb]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from api import (
    ALLOCATIONS,
    CONFIG,
    _allocation,
    _encoded,
    _percentile,
    _post,
    floor_server,
    preload,
)

from tests.server_process import ServerProcess, free_port, postgres_database

TARGET_RATE_RATIO = 0.5
TARGET_P99_MS = 20.0


def _clients(
    port: int, token: str, bodies: list[list[bytes]], *, seconds: float, status: int
) -> tuple[float, list[float], int]:
    """Each client sends its bodies one after another on its own kept-alive connection until
    ``seconds`` have passed: (elapsed seconds, round trip times, requests answered)."""
    latencies: list[list[float]] = [[] for _ in bodies]
    start = threading.Barrier(len(bodies) + 1)

    def client(number: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.connect()
        mine = latencies[number]
        start.wait()
        deadline = time.perf_counter() + seconds
        for body in bodies[number]:
            t0 = time.perf_counter()
            answered, _ = _post(connection, ALLOCATIONS, body, token)
            mine.append(time.perf_counter() - t0)
            assert answered == status, answered
            if t0 > deadline:
                break
        connection.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(len(bodies))]
    for thread in threads:
        thread.start()
    start.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    every = [value for values in latencies for value in values]
    return elapsed, every, len(every)


def turn(
    server: ServerProcess, token: str, floor_port: int, *, clients: int, seconds: float,
    run: int, most: int,
) -> dict[str, float]:
    """One turn of the floor and one of quotaweb with ``clients`` clients, then the release of
    what quotaweb allocated."""
    keys = [[f"c{clients}-{run}-{c}-{n}" for n in range(most)] for c in range(clients)]
    bodies = [
        [_encoded_one(key, c * most + n) for n, key in enumerate(mine)]
        for c, mine in enumerate(keys)
    ]
    floor_elapsed, floor_latencies, floor_count = _clients(
        floor_port, "", bodies, seconds=seconds, status=201
    )
    elapsed, latencies, count = _clients(server.port, token, bodies, seconds=seconds, status=201)
    connection = server.connection()
    # Every key sent is released whether or not it was answered in time: a batch's unknown
    # keys are answered one by one and change nothing.
    sent = [key for mine in keys for key in mine]
    for start in range(0, len(sent), 1000):
        ops = [{"op": "release", "allocationKey": key} for key in sent[start:start + 1000]]
        status, _ = _post(connection, f"{ALLOCATIONS}/batch", _encoded(ops), token)
        assert status == 200, status
    connection.close()
    floor_rate, rate = floor_count / floor_elapsed, count / elapsed
    return {
        "floor_per_s": floor_rate,
        "floor_p50_ms": _percentile(floor_latencies, 0.50) * 1000,
        "floor_p99_ms": _percentile(floor_latencies, 0.99) * 1000,
        "allocate_per_s": rate,
        "allocate_p50_ms": _percentile(latencies, 0.50) * 1000,
        "allocate_p99_ms": _percentile(latencies, 0.99) * 1000,
        "rate_ratio": rate / floor_rate,
    }


def _encoded_one(key: str, n: int) -> bytes:
    return json.dumps(_allocation(key, n)).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--live", type=int, default=10_000,
                        help="allocations kept live through the benchmark (default 10,000)")
    parser.add_argument("--database-url", default=None,
                        help="a PostgreSQL server's URL: the ledger in a database of its own "
                             "there (default: SQLite)")
    args = parser.parse_args()
    # Enough bodies that no client runs out within its turn (about 5,000 round trips a second
    # at most here, shared by the clients).
    most = int(args.seconds * 6000) + 100
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="quotaweb-concurrency-bench-")))
        database_url = (stack.enter_context(postgres_database(args.database_url))
                        if args.database_url else None)
        server = ServerProcess(folder, free_port(), config_yaml=CONFIG,
                               database_url=database_url, production=True)
        server.migrate()
        token = server.create_admin("admin", "bench-admin-password-1")
        floor_port = stack.enter_context(floor_server(free_port()))
        server.start("serve")
        figures: dict[int, dict[str, list[float]]] = {}
        try:
            server.wait_ready()
            preload(server, token, live=args.live)
            # Warm-up: first requests load code paths and fill caches.
            turn(server, token, floor_port, clients=4, seconds=1, run=-1, most=most)
            for run in range(args.runs):
                for clients in args.clients:
                    run_figures = turn(server, token, floor_port, clients=clients,
                                       seconds=args.seconds, run=run, most=most // clients)
                    for name, value in run_figures.items():
                        figures.setdefault(clients, {}).setdefault(name, []).append(value)
        finally:
            server.close()
    ledger = "PostgreSQL" if args.database_url else "SQLite"
    print(f"single allocates from concurrent kept-alive clients (manage.py serve: daphne, "
          f"{ledger} ledger), {args.live:,} allocations live; medians of {args.runs} runs of "
          f"{args.seconds:g} s, each ratio taken within its run")
    print(f"  {'clients':>7}  {'floor/s':>8} {'p50 ms':>7} {'p99 ms':>7}   "
          f"{'allocs/s':>8} {'p50 ms':>7} {'p99 ms':>7}   ratio")
    for clients, values in figures.items():
        median = {name: statistics.median(v) for name, v in values.items()}
        print(f"  {clients:>7}  {median['floor_per_s']:8,.0f} {median['floor_p50_ms']:7.2f} "
              f"{median['floor_p99_ms']:7.2f}   {median['allocate_per_s']:8,.0f} "
              f"{median['allocate_p50_ms']:7.2f} {median['allocate_p99_ms']:7.2f}   "
              f"{median['rate_ratio']:.2f}x")
    print(f"  (targets at 16 clients: {TARGET_RATE_RATIO:g}x the floor's rate, p99 under "
          f"{TARGET_P99_MS:g} ms)")
    for clients, values in figures.items():
        for name, series in values.items():
            print(f"    {clients} clients {name}: " + ", ".join(f"{v:,.3f}" for v in series))


if __name__ == "__main__":
    main()
