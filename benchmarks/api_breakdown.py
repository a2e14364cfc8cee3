"""Where a single allocate's time goes, without HTTP: the ASGI application called in-process.

Prints medians (microseconds) of single allocates through Django's stack alone and through the
lean path in front of it (``quotaweb.api.lean``), and of the parts on their own: the allocation
service (engine admission and ledger commit) in a request thread, the engine's admission without
the ledger, one hop to a request thread and back, and a raw ``sqlite3`` INSERT and COMMIT with the
ledger's settings (WAL, ``synchronous=FULL``). The figures in docs/design.md, "The allocation hot
path", come from it. SQLite only; 10,000 allocations live.

    .venv/bin/python benchmarks/api_breakdown.py [--calls 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from api import ALLOCATIONS, CONFIG, _allocation

LIVE = 10_000


async def _post(app, path: str, body: bytes, token: str) -> int:
    """One POST through the ASGI ``app``; its status."""
    sent: list[dict] = []
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict:
        if pending:
            return pending.pop()
        # Django listens for a disconnect while it answers: the client stays.
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    await app({
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
        "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                    (b"authorization", f"Token {token}".encode()),
                    (b"content-length", str(len(body)).encode())],
    }, receive, send)
    return sent[0]["status"]


def _median_us(seconds: list[float]) -> float:
    return statistics.median(seconds) * 1e6


def prepare(folder: Path) -> str:
    """A migrated database, the engines started, an admin; the admin's token."""
    # The ASGI module sets Django up; the models come after it.
    import quotaweb.asgi  # noqa: F401  isort: skip
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import connections
    from rest_framework.authtoken.models import Token

    from quotaweb.core.services import engines_start

    call_command("migrate", verbosity=0)
    engines_start(config_path=folder / "queues.yaml")
    admin = User.objects.create_superuser("admin", "admin@example.org", "bench-password-1")
    token = Token.objects.create(user=admin).key
    # The requests run in the handler's threads, with connections of their own.
    connections.close_all()
    return token


async def measure(calls: int, token: str) -> dict[str, float]:
    from quotaweb.allocations import services
    from quotaweb.asgi import application, django_asgi_app
    from quotaweb.engine.gateway import engines_get

    for start in range(0, LIVE, 1000):
        operations = [{"op": "allocate", **_allocation(f"live-{n}", n)}
                      for n in range(start, start + 1000)]
        body = json.dumps({"operations": operations}).encode()
        assert await _post(application, f"{ALLOCATIONS}/batch", body, token) == 200
    figures: dict[str, float] = {}
    for label, app in (("through Django's stack", django_asgi_app),
                       ("through the lean path", application)):
        times = []
        for n in range(calls):
            body = json.dumps(_allocation(f"{label[-4:]}-{n}", n)).encode()
            t0 = time.perf_counter()
            assert await _post(app, ALLOCATIONS, body, token) == 201
            times.append(time.perf_counter() - t0)
        figures[f"single allocate {label}"] = _median_us(times[calls // 10:])
    loop = asyncio.get_running_loop()

    def service(n: int) -> float:
        request = services.allocation_request(_allocation(f"service-{n}", n))
        t0 = time.perf_counter()
        services.allocation_create(partition="default", request=request)
        return time.perf_counter() - t0

    times = [await loop.run_in_executor(django_asgi_app.pool, service, n) for n in range(calls)]
    figures["the service: admission and ledger commit"] = _median_us(times[calls // 10:])
    gateway = engines_get()
    times = []
    for n in range(calls):
        request = services.allocation_request(_allocation(f"engine-{n}", n))
        t0 = time.perf_counter()
        gateway.allocate("default", request, write=lambda stored, deleted: None)
        times.append(time.perf_counter() - t0)
    figures["the engine's admission (gateway, no ledger)"] = _median_us(times)
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        await loop.run_in_executor(django_asgi_app.pool, time.perf_counter)
        times.append(time.perf_counter() - t0)
    figures["one hop to a request thread and back"] = _median_us(times)
    return figures


def raw_commit(calls: int, folder: Path) -> float:
    connection = sqlite3.connect(folder / "raw.sqlite3", isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("CREATE TABLE ledger (key TEXT PRIMARY KEY, body TEXT)")
    times = []
    for n in range(calls):
        t0 = time.perf_counter()
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("INSERT INTO ledger VALUES (?, ?)", (f"k{n}", "x" * 200))
        connection.execute("COMMIT")
        times.append(time.perf_counter() - t0)
    connection.close()
    return _median_us(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quotaweb-breakdown-") as name:
        folder = Path(name)
        (folder / "queues.yaml").write_text(CONFIG, encoding="utf-8")
        os.environ.pop("DATABASE_URL", None)
        os.environ.update({
            "QUOTAWEB_DATA_DIR": str(folder), "QUOTAWEB_DEBUG": "0",
            "QUOTAWEB_SECRET_KEY": "benchmark-only-secret-key-" + "x" * 30,
            "QUOTAWEB_LOG_LEVEL": "WARNING", "QUOTAWEB_CONFIG": str(folder / "queues.yaml"),
        })
        figures = asyncio.run(measure(args.calls, prepare(folder)))
        figures["raw sqlite3 INSERT and COMMIT (WAL, synchronous=FULL)"] = raw_commit(
            args.calls, folder
        )
    print(f"a single allocate in-process, {LIVE:,} allocations live; medians of "
          f"{args.calls:,} calls")
    for label, value in figures.items():
        print(f"  {value:8.0f} us  {label}")


if __name__ == "__main__":
    main()
