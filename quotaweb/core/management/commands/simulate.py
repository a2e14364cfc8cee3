"""``python manage.py simulate``: the demo's simulated load against one partition, on demand.

By default it drives a running server over HTTP with an API token (``--url``, ``--token``), so the
load goes to the engines that server owns. ``--in-process`` starts engines in this process
instead, for a standalone try-out: never run it while a server uses the same database, since two
processes with engines of their own give contradictory answers (docs/design.md, "The engines
and their owner"). On SQLite it claims the database's engines first (``core.ownership``), so
beside a running server it is refused before it migrates or loads anything.
Either way it releases what it allocated before it exits.
"""

from __future__ import annotations

import argparse
import os
import threading
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from quotaweb.config.services import ConfigRejected
from quotaweb.core.ownership import ownership_claim
from quotaweb.core.services import engines_start
from quotaweb.core.simulator import (
    DEFAULT_USERS,
    MAX_USERS,
    HttpTarget,
    InProcessTarget,
    LoadAborted,
    PartitionGone,
    Simulator,
    Target,
    drive,
    rate_argument,
)

DEFAULT_URL = "http://127.0.0.1:8000"
TOKEN_ENV = "QUOTAWEB_API_TOKEN"
REPORT_SECONDS = 10.0

ERR_DURATION = "must be a number of seconds, 0 (until Ctrl-C) or more, not {value!r}"
ERR_USERS = f"must be a whole number from 0 to {MAX_USERS}, not {{value!r}}"
ERR_TOKEN_REQUIRED = (
    f"a running server needs an API token: --token KEY or ${TOKEN_ENV} (make one with "
    "`python manage.py drf_create_token <quota admin>` on the server), or use --in-process"
)
ERR_IN_PROCESS_HTTP = (
    "--in-process runs engines of its own; --url and --token are for a running server"
)
ERR_PARTITION = "partition {partition!r} is not configured {where}; it has: {partitions}"
ERR_CONFIG_READ = "Cannot read the configuration {path}: {error}"
ERR_CONFIG_INVALID = "The configuration {path} is not valid:"
MSG_INTERRUPTED = "Interrupted: releasing the applications still running."


def duration_argument(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise argparse.ArgumentTypeError(ERR_DURATION.format(value=text))
    return seconds


def users_argument(text: str) -> int:
    if not text.isdigit() or int(text) > MAX_USERS:
        raise argparse.ArgumentTypeError(ERR_USERS.format(value=text))
    return int(text)


class Command(BaseCommand):
    help = (
        "Send simulated scheduler load to one partition: users with bursty applications, some "
        "asking beyond their limits. Drives a running server over HTTP (--url, --token of a "
        "quota admin); --in-process starts engines of its own for a standalone try-out and must "
        "not run while a server uses the same database."
    )

    def add_arguments(self, parser):
        parser.add_argument("--partition", default="default", help="partition to load")
        parser.add_argument(
            "--rate", type=rate_argument, default=50.0,
            help="operations per second: allocations and application releases (default 50)",
        )
        parser.add_argument(
            "--duration", type=duration_argument, default=60.0,
            help="seconds to run, then release everything (default 60; 0: until Ctrl-C)",
        )
        parser.add_argument("--seed", type=int, default=None,
                            help="the same seed and configuration give the same load")
        parser.add_argument(
            "--users", type=users_argument, default=DEFAULT_USERS,
            help=f"generated users (user-01 ...) beside those named in limits "
                 f"(default {DEFAULT_USERS})",
        )
        parser.add_argument("--url", default=None, help=f"the server (default {DEFAULT_URL})")
        parser.add_argument(
            "--token", default=None,
            help=f"a quota admin's API token (default: ${TOKEN_ENV})",
        )
        parser.add_argument(
            "--in-process", action="store_true",
            help="start this process's own engines on the database instead of using a server",
        )

    def handle(self, *args, partition, rate, duration, seed, users, url, token, in_process,
               **options):
        if in_process:
            if url is not None or token is not None:
                raise CommandError(ERR_IN_PROCESS_HTTP)
            target: Target = self._in_process(partition)
            where = "in this process"
        else:
            url = url or DEFAULT_URL
            target = self._http(url=url, token=token or os.environ.get(TOKEN_ENV, ""),
                                partition=partition)
            where = f"on {url}"
        simulator = Simulator(target, rate=rate, seed=seed, users=users)
        until = "until Ctrl-C" if duration == 0 else f"for {duration:g} s"
        self.stdout.write(
            f"Simulating {rate:g} operations/s on partition {partition} {where} {until}."
        )
        self.stdout.flush()
        try:
            try:
                self._run(simulator, duration=duration, started=time.monotonic())
            except KeyboardInterrupt:
                self.stdout.write(MSG_INTERRUPTED)
            simulator.drain()
        except LoadAborted as error:
            raise CommandError(str(error)) from None
        finally:
            if isinstance(target, HttpTarget):
                target.close()
        self.stdout.write(self.style.SUCCESS(f"Done: {simulator.stats.summary()}."))

    def _run(self, simulator: Simulator, *, duration: float, started: float) -> None:
        stop = threading.Event()
        end = None if duration == 0 else started + duration
        while end is None or time.monotonic() < end:
            chunk = REPORT_SECONDS if end is None else min(REPORT_SECONDS, end - time.monotonic())
            drive([simulator], stop=stop, duration=max(0.0, chunk))
            self.stdout.write(
                f"  {time.monotonic() - started:5.0f} s: {simulator.stats.summary()}, "
                f"{simulator.live_applications} applications running"
            )
            self.stdout.flush()

    def _in_process(self, partition: str) -> InProcessTarget:
        ownership_claim(command="manage.py simulate --in-process", address=None)
        call_command("migrate", interactive=False, verbosity=0)
        path = settings.QUOTAWEB_CONFIG
        try:
            gateway = engines_start(config_path=path)
        except OSError as error:
            raise CommandError(ERR_CONFIG_READ.format(path=path, error=error)) from error
        except ConfigRejected as error:
            lines = [ERR_CONFIG_INVALID.format(path=path)]
            lines += [f"  [{e['code']}] {e['path']}: {e['message']}" for e in error.errors]
            raise CommandError("\n".join(lines)) from error
        if partition not in gateway.partitions():
            raise CommandError(ERR_PARTITION.format(
                partition=partition, where="here", partitions=", ".join(gateway.partitions())
            ))
        return InProcessTarget(partition)

    def _http(self, *, url: str, token: str, partition: str) -> HttpTarget:
        if not token:
            raise CommandError(ERR_TOKEN_REQUIRED)
        try:
            target = HttpTarget(url=url, token=token, partition=partition)
        except ValueError as error:
            raise CommandError(str(error)) from None
        # Read the configuration once now: a bad address, token or partition is told before
        # any load is sent.
        try:
            target.config()
        except LoadAborted as error:
            target.close()
            raise CommandError(str(error)) from None
        except PartitionGone:
            target.close()
            raise CommandError(ERR_PARTITION.format(
                partition=partition, where=f"on {url}", partitions=", ".join(target.partitions)
            )) from None
        return target
