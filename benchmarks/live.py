"""Live pushes under load: 200 sockets connected while the engine takes 5,000 allocations/s.

A real server (``manage.py demo`` on a SQLite file, simulator off) takes a steady load through
the batch API: every 100 ms a batch of 500 new allocations and 500 releases of older ones. A
probe user gets one allocation every 100 ms through the single-allocation API; 20 of the sockets
watch that user, the others watch other users, groups, the queue tree, all users and the events
feed, as open pages would. Push latency is the time from the probe allocation's acknowledgement
to the first update showing it, at each probe socket.

Prints p50/p99 push latency (and per third of the run, to show whether a backlog grows),
messages received per second over all sockets, and the server's CPU use. Targets: p99 under
300 ms, no growing backlog.

    .venv/bin/python benchmarks/live.py [--seconds 20] [--sockets 200] [--rate 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autobahn.asyncio.websocket import WebSocketClientFactory, WebSocketClientProtocol

from tests.server_process import ServerProcess, free_port

GROUPS = 10
USERS = 200
CONFIG = f"""\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: eng
            resources:
              max: {{memory: 1000Ti, vcore: "10000000"}}
            limits:
              - limit: teams
                groups: [{", ".join(f"team{g}" for g in range(GROUPS))}]
                maxresources: {{memory: 100Ti}}
              - limit: everyone
                users: ["*"]
                maxresources: {{memory: 10Ti}}
            queues:
              - name: ml
              - name: web
"""
ALLOCATIONS = "/api/v1/partitions/default/allocations"
PROBE = "probe"
TARGET_P99_MS = 300


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


class Stats:
    def __init__(self) -> None:
        self.messages = 0
        self.acks: list[tuple[int, float]] = []  # (probe total after the allocation, ack time)
        self.latencies: list[tuple[float, float]] = []  # (ack time, latency)
        self.lock = threading.Lock()


class Socket(WebSocketClientProtocol):
    def onOpen(self) -> None:
        self.sendMessage(json.dumps({"type": "subscribe", "scope": self.factory.scope}).encode())
        self.seen = 0  # how many probe acknowledgements this socket has seen pushed

    def onMessage(self, payload: bytes, is_binary: bool) -> None:
        now = time.perf_counter()
        stats: Stats = self.factory.stats
        stats.messages += 1
        if self.factory.scope != f"user:{PROBE}":
            return
        message = json.loads(payload)
        if message.get("type") != "update" or not message["changed"]:
            return
        total = message["changed"][0]["queues"].get("resourceUsage", {}).get("memory", 0)
        with stats.lock:
            acks = list(stats.acks)
        while self.seen < len(acks) and acks[self.seen][0] <= total:
            stats.latencies.append((acks[self.seen][1], now - acks[self.seen][1]))
            self.seen += 1


def _scopes(count: int) -> list[str]:
    mix = ([f"user:{PROBE}"] * 20 + [f"user:user{n}" for n in range(100)]
           + [f"group:team{n % GROUPS}" for n in range(40)] + ["queues"] * 20 + ["users"] * 10
           + ["events"] * 10)
    return (mix * (count // len(mix) + 1))[:count]


async def _sockets(port: int, token: str, scopes: list[str], stats: Stats, stop: asyncio.Event):
    loop = asyncio.get_running_loop()
    transports = []
    for scope in scopes:
        factory = WebSocketClientFactory(
            f"ws://127.0.0.1:{port}/ws/usage/default/?token={token}",
            origin=f"http://127.0.0.1:{port}",
        )
        factory.protocol = Socket
        factory.scope = scope
        factory.stats = stats
        transport, _ = await loop.create_connection(factory, "127.0.0.1", port)
        transports.append(transport)
    await stop.wait()
    for transport in transports:
        transport.close()


def _load(server: ServerProcess, token: str, rate: int, stop: threading.Event, run: int) -> None:
    """Batches of rate/10 allocations and as many releases, every 100 ms."""
    connection = server.connection()
    per_tick = rate // 10
    live: list[str] = []
    tick = 0
    next_at = time.perf_counter()
    while not stop.is_set():
        keys = [f"l{run}-{tick}-{n}" for n in range(per_tick)]
        ops = [
            {"op": "allocate", "allocationKey": key, "applicationId": f"app-{n % 400}",
             "queuePath": "root.eng.ml" if n % 2 else "root.eng.web", "user": f"user{n % USERS}",
             "groups": [f"team{n % GROUPS}"], "resource": {"memory": 2**20, "vcore": 10}}
            for n, key in enumerate(keys)
        ]
        ops += [{"op": "release", "allocationKey": key} for key in live[:per_tick]]
        live = live[per_tick:] + keys
        status, _ = server.request("POST", f"{ALLOCATIONS}/batch", {"operations": ops}, token,
                                   connection)
        assert status == 200, status
        tick += 1
        next_at += 0.1
        time.sleep(max(0.0, next_at - time.perf_counter()))
    if live:
        server.request("POST", f"{ALLOCATIONS}/batch",
                       {"operations": [{"op": "release", "allocationKey": k} for k in live]},
                       token, connection)
    connection.close()


def _probe(
    server: ServerProcess, token: str, stats: Stats, stop: threading.Event, run: int
) -> None:
    connection = server.connection()
    # Earlier runs' probe allocations stay: this run's totals start above them.
    base = run * 10**12
    if run:
        server.request("POST", ALLOCATIONS, {
            "allocationKey": f"probe-base-{run}", "applicationId": f"probe-app-{run}",
            "queuePath": "root.eng.ml", "user": PROBE, "groups": [],
            "resource": {"memory": base - _probe_total(server, token)},
        }, token, connection)
    n = 0
    while not stop.is_set():
        n += 1
        body = {"allocationKey": f"probe-{run}-{n}", "applicationId": f"probe-app-{run}",
                "queuePath": "root.eng.ml", "user": PROBE, "groups": [],
                "resource": {"memory": 2**20}}
        status, _ = server.request("POST", ALLOCATIONS, body, token, connection)
        acked = time.perf_counter()
        assert status == 201, status
        with stats.lock:
            stats.acks.append((base + n * 2**20, acked))
        time.sleep(0.1)
    connection.close()


def _probe_total(server: ServerProcess, token: str) -> int:
    status, user = server.request("GET", f"/ws/v1/partition/default/usage/user/{PROBE}",
                                  token=token)
    return user["queues"].get("resourceUsage", {}).get("memory", 0) if status == 200 else 0


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--sockets", type=int, default=200)
    parser.add_argument("--rate", type=int, default=5000, help="allocations per second")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="quotaweb-live-bench-") as folder:
        server = ServerProcess(Path(folder), free_port(), config_yaml=CONFIG)
        server.env["QUOTAWEB_SIMULATOR"] = "0"
        server.start()
        try:
            server.wait_ready()
            token = server.token("admin")
            for run in range(args.runs):
                stats = Stats()
                figures = asyncio.run(_run(server, token, args, stats, run))
                results.append(_report(args, stats, *figures))
        finally:
            server.close()
    print(f"medians of {args.runs} runs:")
    for name in results[0]:
        print(f"  {name:28s} {statistics.median(r[name] for r in results):9.1f}")


async def _run(server: ServerProcess, token: str, args, stats: Stats, run: int):
    stop_sockets = asyncio.Event()
    sockets = asyncio.create_task(
        _sockets(server.port, token, _scopes(args.sockets), stats, stop_sockets)
    )
    await asyncio.sleep(2)  # every socket connected and subscribed
    stop = threading.Event()
    workers = [threading.Thread(target=_load, args=(server, token, args.rate, stop, run)),
               threading.Thread(target=_probe, args=(server, token, stats, stop, run))]
    cpu_before, messages_before = _cpu_seconds(server.process.pid), stats.messages
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    await asyncio.sleep(args.seconds)
    stop.set()
    elapsed = time.perf_counter() - started
    cpu = _cpu_seconds(server.process.pid) - cpu_before
    messages = stats.messages - messages_before
    for worker in workers:
        await asyncio.to_thread(worker.join)
    await asyncio.sleep(1)  # the last pushes
    stop_sockets.set()
    await sockets
    return elapsed, cpu, messages


def _report(args, stats: Stats, elapsed: float, cpu: float, messages: int) -> dict[str, float]:
    latencies = [latency * 1000 for _, latency in stats.latencies]
    print(f"live pushes: {args.sockets} sockets, {args.rate:,} allocations/s (+ as many "
          f"releases) for {args.seconds:g} s; {len(stats.acks)} probe allocations")
    p50, p99 = _percentile(latencies, 0.5), _percentile(latencies, 0.99)
    print(f"  push latency p50 {p50:7.1f} ms   p99 {p99:7.1f} ms   ({p99 / TARGET_P99_MS:.2f} of "
          f"the {TARGET_P99_MS} ms target; {len(latencies)} measurements)")
    ordered = sorted(stats.latencies)
    thirds = [ordered[i * len(ordered) // 3:(i + 1) * len(ordered) // 3] for i in range(3)]
    print("  p50 by third of the run: " + ", ".join(
        f"{statistics.median(latency * 1000 for _, latency in part):.1f} ms"
        for part in thirds if part))
    print(f"  messages received       {messages / elapsed:9,.0f} per second (all sockets)")
    print(f"  server CPU              {100 * cpu / elapsed:9.0f} % of one core")
    return {"push p50 ms": p50, "push p99 ms": p99, "messages per second": messages / elapsed,
            "server CPU % of one core": 100 * cpu / elapsed}


if __name__ == "__main__":
    main()
