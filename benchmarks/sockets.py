"""A crowd of live sockets on one web process: 1,000 sockets opened at once on ``manage.py web``
(beside the engine owner, ``manage.py demo``, and a private ``redis-server``, as
tests/usage/channel_support.py starts them), each subscribed to one of a user's page, the queue
tree or the group list.

Prints, per run and as medians of the runs:
- the time until every socket has its snapshot (the 10 s bound of docs/deployment.md);
- push latency p50/p99: from an allocation's acknowledgement at the owner to its update at each
  socket that watches the user (a third of them), over a few allocations;
- the web process's memory (RSS) with the crowd connected;
- Redis killed and started again under the crowd: the time from its return until every socket
  has a fresh snapshot.

    .venv/bin/python benchmarks/sockets.py [--sockets 1000] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.api.allocation_support import GiB
from tests.usage.channel_support import (
    CROWD_SCOPES,
    Deployment,
    PingingWebSocket,
    channel_deployment,
    open_crowd,
)

ALLOCATIONS = 10
BOUND_SECONDS = 10


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Listener:
    """Reads one socket for the whole run: when its snapshots and updates came."""

    def __init__(self, socket_: PingingWebSocket) -> None:
        self.socket = socket_
        self.snapshots: list[float] = []
        self.updates: list[tuple[float, int]] = []  # (arrival, alice's memory)
        self.task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        while True:
            message = await self.socket.receive_json(timeout=3600)
            now = time.perf_counter()
            if message["type"] == "snapshot":
                self.snapshots.append(now)
            elif message["type"] == "update" and message["scope"] == "user:alice":
                changed = message["changed"]
                memory = changed[0]["queues"]["resourceUsage"].get("memory", 0) if changed else 0
                self.updates.append((now, memory))


async def _all_snapshots_after(listeners: list[Listener], since: float) -> float:
    """Seconds from ``since`` until every socket has a snapshot later than it (bounded)."""
    deadline = since + 60
    while time.perf_counter() < deadline:
        latest = [max((t for t in ls.snapshots if t >= since), default=None) for ls in listeners]
        if all(t is not None for t in latest):
            return max(min(t for t in ls.snapshots if t >= since) for ls in listeners) - since
        await asyncio.sleep(0.05)
    missing = sum(1 for ls in listeners if not any(t >= since for t in ls.snapshots))
    print(f"  {missing} sockets had no snapshot 60 s after")
    return float("inf")


async def _run(deployment: Deployment, count: int, run: int) -> dict[str, float]:
    processes = {"web": deployment.web.process.pid, "owner": deployment.owner.process.pid,
                 "redis": deployment.redis.process.pid}
    cpu = {name: _cpu_seconds(pid) for name, pid in processes.items()}
    opened = time.perf_counter()
    sockets = await open_crowd(deployment, count, attempts=10)
    connected = time.perf_counter() - opened
    listeners = [Listener(socket_) for socket_ in sockets]
    try:
        first = await _all_snapshots_after(listeners, opened)
        print("  CPU seconds until then: " + ", ".join(
            f"{name} {_cpu_seconds(pid) - cpu[name]:.1f}" for name, pid in processes.items()))
        firsts = sorted(min(ls.snapshots, default=float("inf")) - opened for ls in listeners)
        print(f"  connected after {connected:.1f} s ({deployment.reopened} openings tried again,"
              f" as pages do); snapshots p50 {_percentile(firsts, .5):.1f} s,"
              f" p90 {_percentile(firsts, .9):.1f} s; {sum(len(ls.snapshots) for ls in listeners)}"
              " snapshots in all")
        rss = _rss_mib(deployment.web.process.pid)
        watchers = [ls for n, ls in enumerate(listeners) if CROWD_SCOPES[n % 3] == "user:alice"]
        latencies = []
        sent = []
        for n in range(ALLOCATIONS):
            # From the request: the update may well come before the answer does.
            sent.append(time.perf_counter())
            await deployment.allocate(f"bench-{run}-{n}", GiB)
            await asyncio.sleep(1.0)
        await asyncio.sleep(5)  # the last pushes, however late
        for ls in watchers:
            for n, at in enumerate(sent):
                arrived = [t for t, memory in ls.updates if memory >= (n + 1) * GiB and t >= at]
                if arrived:
                    latencies.append((min(arrived) - at) * 1000)
        lost = len(watchers) * ALLOCATIONS - len(latencies)
        deployment.redis.kill()
        await asyncio.sleep(1)
        await asyncio.to_thread(deployment.redis.start)
        back = time.perf_counter()
        again = await _all_snapshots_after(listeners, back)
    finally:
        for ls in listeners:
            ls.task.cancel()
            ls.socket.close()
    figures = {
        "all snapshots s": first, "push p50 ms": _percentile(latencies, 0.5),
        "push p99 ms": _percentile(latencies, 0.99), "web RSS MiB": rss,
        "fresh after Redis s": again,
    }
    print(f"run {run + 1}: {count} sockets; " + "; ".join(
        f"{name} {value:.1f}" for name, value in figures.items()
    ) + f" ({len(latencies)} pushes measured, {lost} missing)")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sockets", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results = []
    for run in range(args.runs):
        # A fresh deployment each run: the web process's memory is the crowd's alone.
        with tempfile.TemporaryDirectory(prefix="quotaweb-sockets-bench-") as folder, \
                channel_deployment(Path(folder)) as deployment:
            results.append(asyncio.run(_run(deployment, args.sockets, run)))
    print(f"medians of {args.runs} runs ({args.sockets} sockets on one web process; bound "
          f"{BOUND_SECONDS} s):")
    for name in results[0]:
        print(f"  {name:24s} {statistics.median(r[name] for r in results):9.1f}")


if __name__ == "__main__":
    main()
