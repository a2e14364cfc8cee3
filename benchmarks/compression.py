"""Bytes on the wire of the big pages and JSON reads, plain and gzip-compressed
(quotaweb.compression), and the server time each way (medians).

The data of ``benchmarks/pages.py`` (10,000 users with live allocations, SQLite in a temporary
directory), or with ``--wide`` a tree of 2,111 queues (``benchmarks/configs.py``, 5 limit entries
each) and no allocations, read through Django's test ``Client`` logged in as a viewer, without
and with ``Accept-Encoding: gzip`` in turns. The compressed body must decompress to the plain
one's length.

Run: ``.venv/bin/python benchmarks/compression.py [--runs 7] [--wide]``.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import time

from configs import wide_config
from django.core.management import call_command
from django.test import Client
from pages import load, viewer_client  # sets up Django on its temporary database

from quotaweb.config.services import config_apply
from quotaweb.core.services import engines_start

READS = [
    ("home page", "/"),
    ("usage overview", "/usage/default/"),
    ("users, first page", "/usage/default/users/"),
    ("config queue tree", "/config/"),
    ("YAML page", "/config/yaml/"),
    ("/ws/v1 queues", "/ws/v1/partition/default/queues"),
    ("/ws/v1 user usage", "/ws/v1/partition/default/usage/users"),
    ("/api/v1 queues", "/api/v1/partitions/default/queues/"),
]


def timed(client: Client, path: str, runs: int) -> tuple[list[float], list[float], bytes, bytes]:
    """Server times plain and compressed, taken in turns so both see the same machine, and the
    last answer of each."""
    times: tuple[list[float], list[float]] = ([], [])
    answers: list = [None, None]
    for _ in range(runs):
        for index, headers in enumerate(({}, {"HTTP_ACCEPT_ENCODING": "gzip"})):
            started = time.perf_counter()
            response = client.get(path, **headers)
            times[index].append(time.perf_counter() - started)
            if response.status_code != 200:
                raise SystemExit(f"{path} answered {response.status_code}")
            answers[index] = response
    plain, compressed = answers
    if compressed.headers.get("Content-Encoding") != "gzip":
        raise SystemExit(f"{path} was not compressed")
    # Same length, not same bytes: each answer has its own CSRF mask and "as of" time.
    if len(gzip.decompress(compressed.content)) != len(plain.content):
        raise SystemExit(f"{path} decompressed is not the plain answer's length")
    return times[0], times[1], plain.content, compressed.content


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--wide", action="store_true", help="2,111 queues instead of 10,000 users")
    args = parser.parse_args()
    runs = max(3, args.runs)
    if args.wide:
        call_command("migrate", verbosity=0, interactive=False)
        config_apply(yaml_text=wide_config((10, 10, 20), 5), author=None, base_version=None)
        engines_start()
        print("2,111 queues, 10,555 limit entries, no allocations")
    else:
        load()
        print("10,000 users, 20,000 allocations, 3 queues")
    client = viewer_client()
    client.get("/")  # warm-up: templates and URL patterns
    print(f"{'':<20} {'plain':>10} {'gzip':>10} {'ratio':>6}   server time p50 plain / gzip")
    for label, path in READS:
        if args.wide and "users" in path:
            continue
        plain_times, gzip_times, plain, compressed = timed(client, path, runs)
        print(f"{label:<20} {len(plain) / 1024:7.1f} KB {len(compressed) / 1024:7.1f} KB "
              f"{len(plain) / len(compressed):5.1f}x   "
              f"{statistics.median(plain_times) * 1000:6.1f} ms / "
              f"{statistics.median(gzip_times) * 1000:6.1f} ms")


if __name__ == "__main__":
    main()
