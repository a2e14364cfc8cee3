"""The longest hold of an engine's lock while the usage sampler reads a partition, in-process.

    python benchmarks/sampler_holds.py [--queues 10111] [--users 10000] [--runs 5]

The site of issue 27 (``configs.wide_config``: 10,111 queues, 50,555 limit entries) with one
live allocation per user, round-robin over the leaves, each user in one of 500 groups. Every
allocation waits for whatever hold of the engine's lock is under way, so the longest hold is
the longest an allocation can wait for a sample. Printed for the sampler's read before issue 27
(a whole snapshot of users, groups and queues, one hold each) and after (``Engine.usage_rows``,
``READ_PER_HOLD`` rows per hold); medians of ``--runs``. A row is one user, group or queue
level, so one row may be large: the group wildcard's tree spans every queue in use.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from configs import wide_config
from scale import ENTRIES_PER_QUEUE, fanout_for, leaves

from trackers import Engine, parse_config
from trackers.gcpause import paused_gc
from trackers.ugm.engine import READ_PER_HOLD


class TimedLock:
    """The engine's lock, keeping how long each hold lasted (seconds)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._since = 0.0
        self.holds: list[float] = []

    def __enter__(self) -> TimedLock:
        self._lock.acquire()
        self._since = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.holds.append(time.perf_counter() - self._since)
        self._lock.release()


def whole_snapshot(engine: Engine) -> None:
    """The sampler's read before: three whole snapshots."""
    engine.users_usage()
    engine.groups_usage()
    engine.queues_usage()


def in_holds(engine: Engine) -> None:
    engine.usage_rows()


def measure(
    engine: Engine, read: Callable[[Engine], None], runs: int
) -> tuple[float, float, float, int]:
    """(longest hold, median hold, whole read, holds) in seconds, medians over ``runs``."""
    longest, typical, total, count = [], [], [], []
    for _ in range(runs):
        lock = engine._lock = TimedLock()  # type: ignore[assignment]
        started = time.perf_counter()
        # As the sampler reads (``usage_sample``): with the collector paused.
        with paused_gc():
            read(engine)
        total.append(time.perf_counter() - started)
        longest.append(max(lock.holds))
        typical.append(statistics.median(lock.holds))
        count.append(len(lock.holds))
    return (statistics.median(longest), statistics.median(typical), statistics.median(total),
            int(statistics.median(count)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queues", type=int, default=10_111)
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    fanout = fanout_for(args.queues)
    engine = Engine(parse_config(wide_config(fanout, ENTRIES_PER_QUEUE)).partitions[0])
    paths = leaves(fanout)
    for n in range(args.users):
        engine.restore(paths[n % len(paths)], f"app-{n}", f"user{n:05d}", [f"group{n % 500:03d}"],
                       {"memory": 2**20, "vcore": 100})
    summary = engine.summary()
    print(f"{summary['queues']:,} queues, {summary['users']:,} users (with named limits), "
          f"{summary['groups']:,} groups; {args.users:,} live allocations; medians of {args.runs}")
    for label, read in (("whole snapshot (before)", whole_snapshot),
                        (f"usage_rows, {READ_PER_HOLD} per hold (after)", in_holds)):
        longest, typical, total, holds = measure(engine, read, args.runs)
        print(f"  {label}: longest hold {longest * 1000:.2f} ms, median hold "
              f"{typical * 1000:.2f} ms, {holds:,} holds, read {total * 1000:.0f} ms")


if __name__ == "__main__":
    main()
