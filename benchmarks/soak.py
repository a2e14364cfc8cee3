"""Soak: minutes of mixed load against the real server, as a busy site has it all at once.

A real server (``manage.py demo``, simulator off, debug off unless ``--debug``, the usage
sampler every second) on a SQLite file, or on a fresh PostgreSQL database with
``--database-url``, takes at the same time:
- allocations and releases through the single-allocation API at a paced total rate (``--rate``,
  split over ``--clients`` threads on kept-alive connections), each client keeping about
  ``--live`` allocations live; some requests hit user, group and queue limits, and a denial (409
  with a quota reason) is a normal answer;
- one batch client sending small mixed batches (``--batch-size`` every ``--batch-every`` s);
- one admin applying a change every ``--apply-every`` s, cycling through a PUT of an alternate
  whole config, a queue PATCH, a limit PATCH and a rollback to the version the PUT made (each
  answered 200 with a new version);
- ``--sockets`` live sockets subscribed to users, groups, queues, events and single users,
  counting what they receive.

Prints, for the measured window (after ``--warmup`` s): count, p50, p99 and max latency per kind
(allocate, release, batch, each apply kind and all applies), errors by kind (5xx, connection
errors, time-outs, unexpected statuses, denials for anything but a quota rule, ERROR lines in the
server's log, closed sockets), the server's RSS and live allocations at the start and the end of
the window, messages the sockets received, and CPU use. Latency is from sending a request to its
answer; a client whose request stalls skips the slots it missed (no burst to catch up).

Exits 1 on any error, a closed socket, a client/server disagreement on the live allocations, or a
missed target of issue 9 (apply p99 under 1 s, allocate p99 under 50 ms); 0 otherwise.

    .venv/bin/python benchmarks/soak.py [--seconds 180] [--rate 200] [--apply-every 3]
        [--sockets 50] [--database-url postgres://postgres@127.0.0.1:5432/postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import itertools
import json
import os
import random
import re
import struct
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.server_process import ServerProcess, free_port, postgres_database
from tests.ws_client import WebSocket

PARTITION = "default"
ALLOCATIONS = f"/api/v1/partitions/{PARTITION}/allocations"
QUOTA_REASONS = frozenset({
    "userQuota", "groupQuota", "queueQuota", "maxApplications", "queueMaxApplications",
})
TARGET_APPLY_P99_S = 1.0
TARGET_ALLOCATE_P99_MS = 50.0
GiB = 2**30
USERS = 100  # user0 .. user99; user0-4 capped tightly, user90-99 in the interns group
INTERNS = range(90, 100)

# Two documents with the same queues and different limits: a PUT alternates between them.
# Denials come from the capped users (userQuota), the interns' group cap on running applications
# (maxApplications), and the small ops queue (queueQuota, queueMaxApplications).
_CONFIG = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: eng
            resources:
              max: {{memory: 2000Gi, vcore: "100000"}}
            limits:
              - limit: capped
                users: [user0, user1, user2, user3, user4]
                maxresources: {{memory: {capped}}}
              - limit: everyone
                users: ["*"]
                maxresources: {{memory: {everyone}}}
              - limit: interns
                groups: [interns]
                maxapplications: {interns}
            queues:
              - name: ml
                maxapplications: 100000
              - name: web
          - name: ops
            maxapplications: {ops_apps}
            resources:
              max: {{memory: {ops_memory}, vcore: "100000"}}
"""
CONFIG_A = _CONFIG.format(capped="3Gi", everyone="60Gi", interns=6, ops_apps=30,
                          ops_memory="40Gi")
CONFIG_B = _CONFIG.format(capped="4Gi", everyone="50Gi", interns=8, ops_apps=25,
                          ops_memory="48Gi")
APPLY_KINDS = ("put", "queue", "limit", "rollback")


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


class Stats:
    """Latencies (seconds) by kind, counted only while ``measuring``; errors at any time."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.measuring = False
        self.latencies: dict[str, list[float]] = {}
        self.errors: Counter[str] = Counter()
        self.error_samples: dict[str, str] = {}
        self.denials: Counter[str] = Counter()
        self.slots_skipped = 0
        self.socket_messages: Counter[str] = Counter()
        self.sockets_open = 0
        self.sockets_closed: list[str] = []

    def latency(self, kind: str, seconds: float) -> None:
        if self.measuring:
            self.latencies.setdefault(kind, []).append(seconds)

    def error(self, kind: str, sample: str) -> None:
        with self.lock:
            self.errors[kind] += 1
            self.error_samples.setdefault(kind, sample[:300])

    def denied(self, reason: str) -> None:
        if self.measuring:
            with self.lock:
                self.denials[reason] += 1


class Client:
    """One kept-alive connection; every request is timed and judged by ``expected``."""

    def __init__(self, server: ServerProcess, token: str, stats: Stats, timeout: float) -> None:
        self.server, self.token, self.stats, self.timeout = server, token, stats, timeout
        self.connection = server.connection(timeout=timeout)

    def request(self, kind: str, method: str, path: str, body=None, *, expected=(200,),
                also: tuple[str, ...] = ()) -> tuple[int | None, object]:
        started = time.perf_counter()
        try:
            status, answer = self.server.request(method, path, body, self.token, self.connection)
        except TimeoutError as error:
            self._reconnect()
            # Counted in the latencies too (as the time waited): a stall must show in p99 and max.
            for name in (kind, *also):
                self.stats.latency(name, time.perf_counter() - started)
            self.stats.error(f"{kind}: time-out", f"no answer within {self.timeout:g} s: {error}")
            return None, None
        except (OSError, http.client.HTTPException, ValueError) as error:
            self._reconnect()
            self.stats.error(f"{kind}: connection", repr(error))
            return None, None
        elapsed = time.perf_counter() - started
        for name in (kind, *also):
            self.stats.latency(name, elapsed)
        if status == 409 and isinstance(answer, dict) and answer.get("error") == "denied":
            if answer.get("reason") in QUOTA_REASONS:
                self.stats.denied(answer["reason"])
            else:
                self.stats.error(f"{kind}: denied, not a quota rule", json.dumps(answer))
        elif status >= 500:
            self.stats.error(f"{kind}: {status}", json.dumps(answer))
        elif status not in expected:
            self.stats.error(f"{kind}: unexpected {status}", json.dumps(answer))
        return status, answer

    def _reconnect(self) -> None:
        self.connection.close()
        self.connection = self.server.connection(timeout=self.timeout)

    def close(self) -> None:
        self.connection.close()


def _allocation(key: str, rng: random.Random) -> dict:
    n = rng.randrange(USERS)
    user = f"user{n}"
    intern = n in INTERNS
    if rng.random() < 0.1:
        queue, application = "root.ops", f"ops-app-{rng.randrange(40)}"
    else:
        queue = "root.eng.ml" if n % 2 else "root.eng.web"
        # Interns start many small applications, so their group's cap on running ones bites.
        application = f"app-{user}-{rng.randrange(12 if intern else 3)}"
    return {
        "allocationKey": key, "applicationId": application, "queuePath": queue, "user": user,
        "groups": ["interns"] if intern else ["eng"],
        "resource": {"memory": GiB, "vcore": 100},
    }


class Paced:
    """Slots every ``interval`` s from now; a client that fell more than a second behind skips
    the slots it missed instead of sending them all at once."""

    def __init__(self, interval: float, stats: Stats) -> None:
        self.interval, self.stats = interval, stats
        self.next_at = time.perf_counter() + random.random() * interval

    def wait(self, stop: threading.Event) -> bool:
        now = time.perf_counter()
        if self.next_at < now - 1.0:
            skipped = int((now - self.next_at) / self.interval)
            if self.stats.measuring:
                self.stats.slots_skipped += skipped
            self.next_at += skipped * self.interval
        if self.next_at > now and stop.wait(self.next_at - now):
            return False
        self.next_at += self.interval
        return not stop.is_set()


def _allocator(server, token, stats: Stats, args, number: int, live: deque, stop) -> None:
    """Allocate and release at ``rate / clients`` per second, keeping about ``--live`` live:
    release the oldest when at ``--live``, else allocate (so denials make more attempts)."""
    client = Client(server, token, stats, args.timeout)
    rng = random.Random(number)
    pace = Paced(args.clients / args.rate, stats)
    serial = itertools.count()
    while pace.wait(stop):
        if live and len(live) >= args.live:
            key = live.popleft()
            status, _ = client.request("release", "DELETE", f"{ALLOCATIONS}/{key}",
                                       expected=(204,))
            if status is None:
                live.appendleft(key)  # not known whether it went: tried again later
        else:
            key = f"c{number}-{next(serial)}"
            status, _ = client.request("allocate", "POST", ALLOCATIONS, _allocation(key, rng),
                                       expected=(201,))
            if status in (201, 200) or status is None:
                live.append(key)  # a time-out may have been admitted: its release tells
    client.close()


def _batcher(server, token, stats: Stats, args, live: deque, stop) -> None:
    """Small mixed batches: half allocations, half releases of the oldest live ones."""
    client = Client(server, token, stats, args.timeout)
    rng = random.Random(-1)
    pace = Paced(args.batch_every, stats)
    serial = itertools.count()
    half = max(1, args.batch_size // 2)
    while pace.wait(stop):
        releases = [live.popleft() for _ in range(min(half, len(live)))] \
            if len(live) >= args.live else []
        keys = [f"b-{next(serial)}" for _ in range(args.batch_size - len(releases))]
        operations = [{"op": "release", "allocationKey": key} for key in releases]
        operations += [{"op": "allocate", **_allocation(key, rng)} for key in keys]
        status, answer = client.request("batch", "POST", f"{ALLOCATIONS}/batch",
                                        {"operations": operations})
        if status != 200:
            live.extendleft(reversed(releases))
            if status is None:
                live.extend(keys)
            continue
        for operation, result in zip(operations, answer["results"], strict=True):
            code = result["status"]
            if operation["op"] == "allocate" and code in (200, 201):
                live.append(operation["allocationKey"])
            elif operation["op"] == "release" and code == 204:
                pass
            elif code == 409 and result.get("reason") in QUOTA_REASONS:
                stats.denied(result["reason"])
            else:
                stats.error(f"batch {operation['op']}: {code}", json.dumps(result))
    client.close()


def _admin(server, token, stats: Stats, args, stop, versions: list[int]) -> None:
    """A change every ``--apply-every`` s: PUT the other document, PATCH a queue, PATCH a
    limit, roll back to the version the PUT made; each must answer 200 with a new version."""
    client = Client(server, token, stats, args.timeout)
    pace = Paced(args.apply_every, stats)
    put_version = None
    for n in itertools.count():
        if not pace.wait(stop):
            break
        kind = APPLY_KINDS[n % len(APPLY_KINDS)]
        if kind == "put":
            yaml = CONFIG_B if (n // len(APPLY_KINDS)) % 2 == 0 else CONFIG_A
            request = ("PUT", "/api/v1/config", {"yaml": yaml, "comment": f"soak {n}"})
        elif kind == "queue":
            request = ("PATCH", f"/api/v1/partitions/{PARTITION}/queues/root.eng.ml/",
                       {"max_applications": 100000 + n, "comment": f"soak {n}"})
        elif kind == "limit":
            # Everyone's cap, a little different every time (always a new version).
            request = ("PATCH", f"/api/v1/partitions/{PARTITION}/queues/root.eng/limits/1/",
                       {"max_resources": {"memory": f"{50 * 1024 + n}Mi"}, "comment": f"soak {n}"})
        else:
            if put_version is None:
                continue
            request = ("POST", f"/api/v1/config/versions/{put_version}/rollback",
                       {"comment": f"soak {n}"})
        status, answer = client.request(f"apply: {kind}", *request, also=("apply",))
        if status == 200:
            number = answer["version"]
            if versions and number <= versions[-1]:
                stats.error(f"apply: {kind}: no new version",
                            f"answered version {number} after {versions[-1]}")
            versions.append(number)
            if kind == "put":
                put_version = number
    client.close()


async def _socket(port: int, token: str, scope: str, stats: Stats, stop: asyncio.Event) -> None:
    try:
        ws = await WebSocket.connect(
            "127.0.0.1", port, f"/ws/usage/{PARTITION}/?token={token}",
            origin=f"http://127.0.0.1:{port}",
        )
        await ws.send_json({"type": "subscribe", "scope": scope})
    except (OSError, ConnectionError) as error:
        stats.sockets_closed.append(f"{scope}: not opened ({error})")
        return
    stats.sockets_open += 1
    receiving = asyncio.ensure_future(_receive(ws, scope, stats, time.perf_counter()))
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait({receiving, stopping}, return_when=asyncio.FIRST_COMPLETED)
    for task in (receiving, stopping):
        task.cancel()
    await asyncio.gather(receiving, stopping, return_exceptions=True)
    ws.close()


async def _receive(ws: WebSocket, scope: str, stats: Stats, started: float) -> None:
    """Count the messages; answer the server's pings (daphne drops a socket that leaves a ping
    unanswered for 30 s, and ``tests.ws_client`` only reads text frames)."""
    reader, writer = ws.reader, ws.writer
    parts: list[bytes] = []
    try:
        while True:
            first, second = await reader.readexactly(2)
            length = second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", await reader.readexactly(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", await reader.readexactly(8))
            payload = await reader.readexactly(length)
            opcode = first & 0x0F
            if opcode == 0x9:  # ping: a pong with the same payload (at most 125 bytes)
                mask = os.urandom(4)
                writer.write(struct.pack("!BB", 0x8A, 0x80 | len(payload)) + mask
                             + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
                continue
            if opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                raise ConnectionError(f"closed by the server, code {code}")
            if opcode in (0x0, 0x1):
                parts.append(payload)
                if not first & 0x80:  # more fragments follow
                    continue
                message = json.loads(b"".join(parts))
                parts.clear()
                kind = message.get("type", "?")
                if stats.measuring:
                    stats.socket_messages[kind] += 1
                if kind == "error":
                    stats.error("socket: error message", json.dumps(message))
    except (ConnectionError, asyncio.IncompleteReadError, OSError) as error:
        at = time.perf_counter() - started
        stats.sockets_closed.append(f"{scope}: {error!r}")
        stats.error("socket: closed", f"{scope}, {at:.0f} s after it opened: {error!r}")


def _scopes(count: int) -> list[str]:
    mix = ["users", "groups", "queues", "events", "user:user7", "user:user0", "user:user95",
           "group:interns", "group:eng", "user:user42"]
    return (mix * (count // len(mix) + 1))[:count]


def _sockets_thread(port: int, token: str, count: int, stats: Stats) -> tuple:
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()

    async def main() -> None:
        await asyncio.gather(*(_socket(port, token, scope, stats, stop)
                               for scope in _scopes(count)))

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    return thread, lambda: loop.call_soon_threadsafe(stop.set)


def _rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _live_on_server(server: ServerProcess, stats: Stats) -> int | None:
    """``quotaweb_live_allocations`` of /metrics; None (and an error) when it does not answer."""
    connection = server.connection(timeout=30)
    try:
        connection.request("GET", "/metrics")
        text = connection.getresponse().read().decode()
    except (OSError, http.client.HTTPException) as error:
        stats.error("metrics: no answer", repr(error))
        return None
    finally:
        connection.close()
    found = re.search(rf'^quotaweb_live_allocations\{{partition="{PARTITION}"\}} (\S+)$', text,
                      re.MULTILINE)
    return int(float(found.group(1))) if found else None


def _prefill(server: ServerProcess, token: str, lives: list[deque], args) -> None:
    """Each client starts with about ``--live`` allocations, so the window is a steady state."""
    rng = random.Random(12345)
    connection = server.connection(timeout=60)
    for number, live in enumerate(lives):
        operations = [{"op": "allocate", **_allocation(f"p{number}-{n}", rng)}
                      for n in range(args.live)]
        status, answer = server.request("POST", f"{ALLOCATIONS}/batch",
                                        {"operations": operations}, token, connection)
        assert status == 200, (status, answer)
        live.extend(op["allocationKey"] for op, result in zip(operations, answer["results"],
                                                              strict=True)
                     if result["status"] == 201)
    connection.close()


def _log_errors(path: Path) -> list[str]:
    """The server's ERROR/CRITICAL log lines and exception lines (its level is WARNING)."""
    lines = path.read_text(errors="replace").splitlines()
    return [line for line in lines
            if re.search(r" (ERROR|CRITICAL) |^\w+(\.\w+)*(Error|Exception): ", line)]


def run(args, database_url: str | None, folder: Path) -> int:
    stats = Stats()
    env = {"QUOTAWEB_TREND_SAMPLE_SECONDS": "1"}
    if not args.debug:
        # As deployed. With debug on, Django logs every query, up to 9,000 per connection, and
        # nothing resets the logs of the pooled request threads: that would show as growth.
        env.update({"QUOTAWEB_DEBUG": "0", "QUOTAWEB_SECRET_KEY": "soak-" + os.urandom(16).hex()})
    server = ServerProcess(folder, free_port(), config_yaml=CONFIG_A, database_url=database_url,
                           env=env)
    server.start()
    try:
        server.wait_ready()
        token = server.token("admin")
        pid = server.process.pid
        lives = [deque() for _ in range(args.clients + 1)]
        _prefill(server, token, lives, args)
        stop = threading.Event()
        versions: list[int] = []
        sockets, stop_sockets = _sockets_thread(server.port, token, args.sockets, stats)
        workers = [
            threading.Thread(target=_allocator, args=(server, token, stats, args, n, lives[n],
                                                      stop), name=f"allocator-{n}",
                             daemon=True)
            for n in range(args.clients)
        ]
        workers.append(threading.Thread(target=_batcher, name="batcher", daemon=True,
                                        args=(server, token, stats, args, lives[-1], stop)))
        workers.append(threading.Thread(target=_admin, name="admin", daemon=True,
                                        args=(server, token, stats, args, stop, versions)))
        for worker in workers:
            worker.start()
        time.sleep(args.warmup)

        rss_start, live_start = _rss_bytes(pid), _live_on_server(server, stats)
        cpu_start, own_start = _cpu_seconds(pid), os.times()
        stats.measuring = True
        started = time.perf_counter()
        rss_every: list[int] = []  # each 30 s of the window, to tell a trend from a step
        while (left := started + args.seconds - time.perf_counter()) > 0:
            time.sleep(min(30.0, left))
            if left > 30.0:
                rss_every.append(_rss_bytes(pid))
        stats.measuring = False
        elapsed = time.perf_counter() - started
        rss_end, live_end = _rss_bytes(pid), _live_on_server(server, stats)
        cpu = _cpu_seconds(pid) - cpu_start
        own = os.times()
        own_cpu = own.user + own.system - own_start.user - own_start.system
        rss_peak = next(int(line.split()[1]) * 1024 for line in
                        Path(f"/proc/{pid}/status").read_text().splitlines()
                        if line.startswith("VmHWM:"))

        stop.set()
        for worker in workers:
            worker.join(timeout=args.timeout + 5)
        stuck = [worker.name for worker in workers if worker.is_alive()]
        stop_sockets()
        sockets.join(timeout=10)
        client_live = sum(len(live) for live in lives)
        server_live = _live_on_server(server, stats)
        log_errors = _log_errors(Path(server.log.name))
    finally:
        server.close()

    for line in log_errors:
        stats.error("server log", line)
    database = "PostgreSQL" if database_url else "SQLite"
    return _report(args, stats, database=database, elapsed=elapsed, rss=(rss_start, rss_end,
                   rss_peak, rss_every), live=(live_start, live_end), cpu=cpu, own_cpu=own_cpu,
                   versions=versions, stuck=stuck, client_live=client_live,
                   server_live=server_live, log_errors=log_errors)


def _count(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def _report(args, stats: Stats, *, database, elapsed, rss, live, cpu, own_cpu, versions, stuck,
            client_live, server_live, log_errors) -> int:
    mb = 1024 * 1024
    ops = sum(len(stats.latencies.get(kind, [])) for kind in ("allocate", "release"))
    print(f"soak on {database}: {elapsed:.0f} s measured after {args.warmup:g} s of warm-up; "
          f"{args.rate:g} allocate/release per s asked over {args.clients} clients "
          f"({ops / elapsed:.1f} done, {stats.slots_skipped} slots skipped), a batch of "
          f"{args.batch_size} every {args.batch_every:g} s, an apply every {args.apply_every:g} s, "
          f"{args.sockets} sockets, usage sampled every second")
    print()
    print("| kind | count | p50 ms | p99 ms | max ms |")
    print("| --- | ---: | ---: | ---: | ---: |")
    order = ["allocate", "release", "batch", "apply", *(f"apply: {k}" for k in APPLY_KINDS)]
    for kind in order + sorted(set(stats.latencies) - set(order)):
        values = stats.latencies.get(kind, [])
        if not values:
            continue
        print(f"| {kind} | {len(values):,} | {_percentile(values, 0.5) * 1000:.1f} | "
              f"{_percentile(values, 0.99) * 1000:.1f} | {max(values) * 1000:.1f} |")
    print()
    errors = sum(stats.errors.values())
    print(f"errors: {errors}" + ("" if errors else " (none)"))
    for kind, count in sorted(stats.errors.items()):
        print(f"  {kind}: {count}   e.g. {stats.error_samples[kind]}")
    print("denials (quota answers, normal): " + (", ".join(
        f"{reason} {count:,}" for reason, count in sorted(stats.denials.items())) or "none"))
    trend = ", ".join(f"{value / mb:.1f}" for value in (rss[0], *rss[3], rss[1]))
    print(f"server RSS: {rss[0] / mb:.1f} MB at the start, {rss[1] / mb:.1f} MB at the end "
          f"({(rss[1] - rss[0]) / mb:+.1f} MB; peak {rss[2] / mb:.1f} MB; every 30 s: {trend})")
    print("  held by design, bounded: each partition's engine change log (up to 200,000 "
          "entries, about 24 bytes each, then halved) and its 10,000 recent events (full after "
          "the warm-up at the default rate)")
    print(f"live allocations: {_count(live[0])} at the start, {_count(live[1])} at the end ("
          + (f"{live[1] - live[0]:+,}" if None not in live else "?") + ")")
    print(f"after the load stopped: {_count(server_live)} live on the server, {client_live:,} "
          f"held by the clients")
    messages = sum(stats.socket_messages.values())
    print(f"sockets: {stats.sockets_open} opened, {len(stats.sockets_closed)} closed; "
          f"{messages:,} messages received ({messages / elapsed:.0f}/s: " + ", ".join(
              f"{kind} {count:,}" for kind, count in sorted(stats.socket_messages.items()))
          + ")")
    print(f"config versions applied: {len(versions)} (up to version "
          f"{versions[-1] if versions else '-'})")
    print(f"CPU: server {100 * cpu / elapsed:.0f} % of one core, load generator "
          f"{100 * own_cpu / elapsed:.0f} %")
    if log_errors:
        print("server log, first ERROR lines:")
        for line in log_errors[:12]:
            print(f"  {line[:300]}")

    failures = []
    if errors:
        failures.append(f"{errors} errors")
    if stats.sockets_closed:
        failures.append(f"{len(stats.sockets_closed)} sockets closed")
    if stuck:
        failures.append(f"clients still waiting at the end: {', '.join(stuck)}")
    timed_out = any("time-out" in kind or "connection" in kind for kind in stats.errors)
    if client_live != server_live and not timed_out:
        failures.append(f"live allocations disagree: server {server_live}, clients {client_live}")
    targets = (("apply", TARGET_APPLY_P99_S), ("allocate", TARGET_ALLOCATE_P99_MS / 1000))
    for kind, target in targets:
        values = stats.latencies.get(kind)
        if not values:
            failures.append(f"no {kind} answered in the window")
        elif (p99 := _percentile(values, 0.99)) >= target:
            failures.append(f"{kind} p99 {p99 * 1000:,.1f} ms, target under {target * 1000:g} ms")
    print()
    print("verdict: " + ("ok (targets: apply p99 < 1 s, allocate p99 < 50 ms, no errors)"
                         if not failures else "FAILED: " + "; ".join(failures)))
    return 1 if failures else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=180, help="measured window")
    # A minute: at the default rate the 10,000 recent events a partition keeps (memory bounded by
    # design) fill within it, so the window's memory shows growth, not that filling.
    parser.add_argument("--warmup", type=float, default=60)
    parser.add_argument("--rate", type=float, default=200,
                        help="single allocations + releases per second, all clients together")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--live", type=int, default=250,
                        help="allocations each client keeps live (about)")
    parser.add_argument("--batch-size", type=int, default=20)
    parser.add_argument("--batch-every", type=float, default=0.5)
    parser.add_argument("--apply-every", type=float, default=3)
    parser.add_argument("--sockets", type=int, default=50)
    parser.add_argument("--timeout", type=float, default=30, help="per request, seconds")
    parser.add_argument("--debug", action="store_true",
                        help="run the server with QUOTAWEB_DEBUG on (as the tests and bin/run do)")
    parser.add_argument("--database-url", default=None,
                        help="a PostgreSQL server URL (a fresh database is made on it and "
                             "dropped); default a SQLite file")
    args = parser.parse_args()
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="quotaweb-soak-")))
        database_url = None
        if args.database_url:
            database_url = stack.enter_context(postgres_database(args.database_url))
        code = run(args, database_url, folder)
    sys.exit(code)


if __name__ == "__main__":
    main()
