"""What the interpreter's switch interval costs a database write made beside a busy event loop.

The server's event loop keeps the interpreter while it works; a thread back from SQLite (the
ledger's writer, a request thread) must take it again before it can go on, and CPython lets it
only once the switch interval has passed. This measures exactly that, without the server: one
thread busy with Python work (the loop's stand-in) while another commits small SQLite writes
(six ledger-sized rows, WAL, ``synchronous=FULL``, as the ledger writes them), once per interval.
Prints, per interval, the medians over the runs of each run's write p50 and p99 and of the busy
thread's work done, as a ratio to the first interval's in the same run.

    .venv/bin/python benchmarks/switch_interval.py [--runs 5] [--seconds 2]
        [--intervals 5 1 0.5]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import threading
import time

ROWS = 6


def one_run(interval_ms: float, seconds: float, folder: str) -> tuple[float, float, int]:
    """(write p50 ms, write p99 ms, the busy thread's rounds) with ``interval_ms``."""
    sys.setswitchinterval(interval_ms / 1000)
    path = os.path.join(folder, f"ledger-{interval_ms}-{time.monotonic_ns()}.db")
    stop = threading.Event()
    latencies: list[float] = []

    def writer() -> None:
        database = sqlite3.connect(path, isolation_level=None)
        database.execute("PRAGMA journal_mode=WAL")
        database.execute("PRAGMA synchronous=FULL")
        database.execute("CREATE TABLE ledger (key TEXT PRIMARY KEY, row TEXT)")
        statement = "INSERT INTO ledger VALUES " + ",".join(["(?, ?)"] * ROWS)
        number = 0
        while not stop.is_set():
            values = [v for n in range(ROWS) for v in (f"{number}-{n}", "x" * 200)]
            started = time.perf_counter()
            database.execute(statement, values)
            latencies.append(time.perf_counter() - started)
            number += 1
            time.sleep(0.001)  # the next group gathers meanwhile
        database.close()

    thread = threading.Thread(target=writer)
    thread.start()
    rounds = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        sum(range(200))
        rounds += 1
    stop.set()
    thread.join()
    ordered = sorted(latencies)
    return (ordered[len(ordered) // 2] * 1000,
            ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--intervals", type=float, nargs="+", default=[5.0, 1.0, 0.5],
                        help="switch intervals in ms (default 5, CPython's, then 1 and 0.5)")
    args = parser.parse_args()
    figures: dict[float, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory(prefix="quotaweb-switch-bench-") as folder:
        for _ in range(args.runs):
            first_rounds = None
            for interval in args.intervals:
                p50, p99, rounds = one_run(interval, args.seconds, folder)
                first_rounds = first_rounds or rounds
                values = figures.setdefault(interval, {"p50": [], "p99": [], "work": []})
                values["p50"].append(p50)
                values["p99"].append(p99)
                values["work"].append(rounds / first_rounds)
    print(f"a small SQLite write beside a busy thread, by switch interval; medians of "
          f"{args.runs} runs of {args.seconds:g} s")
    print(f"  {'interval':>9} {'write p50':>10} {'write p99':>10} {'busy work':>10}")
    for interval, values in figures.items():
        print(f"  {interval:>6g} ms {statistics.median(values['p50']):7.2f} ms "
              f"{statistics.median(values['p99']):7.2f} ms "
              f"{statistics.median(values['work']):9.2f}x")


if __name__ == "__main__":
    main()
