"""``python manage.py serve``: the production engine owner.

One process, in this order: refuse debug mode (unless ``--allow-debug``); take its port and
claim the database's engines (``core.ownership``: a busy port, or a SQLite database another
process owns, is refused before anything is read or loaded); refuse a database whose
migrations are not all applied (it names the command to run: serve never migrates on its own,
so an upgrade's migrations run once, when the operator says so); load the engines from the
active configuration version (``engines_start``: the ledger's live allocations, the elastic
quota settings, the quota trees); start the engine owner's background threads (the engine
channel in channel mode, the usage sampler, the elastic worker); serve with daphne.

On PostgreSQL the process is a peer (``core.peers``): it claims its name
(``QUOTAWEB_NODE_NAME``, default its address) once the migrations are known to be applied,
loads only the configuration, and owns the partitions (and the quota trees) it takes leases on,
rebuilt from the ledger as it takes them; the first round of leases runs before it serves, and
on SIGTERM, after the drain, it hands every unit on. It creates
no login and runs no simulator (``manage.py demo`` is the try-out that does).

On SIGTERM (or Ctrl-C) it stops accepting connections, lets the requests in flight finish (up to
``--drain-seconds``), then exits 0; a second signal stops at once.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.db.utils import Error as DatabaseError

from quotaweb.config.selectors import active_version
from quotaweb.core.ownership import listen_address, ownership_claim, port_claim
from quotaweb.core.peers import PeerLeases
from quotaweb.core.serving import (
    LISTEN_BACKLOG,
    engines_start_for,
    owner_threads_start,
    port_number,
    serve,
    site_url,
)
from quotaweb.leases.store import NameTaken

SAMPLE_CONFIG = Path(settings.BASE_DIR) / "quotaweb" / "samples" / "queues.yaml"
DEFAULT_DRAIN_SECONDS = 25.0
ERR_DEBUG = (
    "Debug mode is on (QUOTAWEB_DEBUG): it shows tracebacks and settings to anyone who causes an "
    "error and keeps every query in memory. Turn it off for a server (unset QUOTAWEB_DEBUG or set "
    "it to 0), or pass --allow-debug to serve with it anyway."
)
ERR_UNMIGRATED = (
    "The database has {count} unapplied migration(s) ({names}). Run\n"
    "    python manage.py migrate\n"
    "with the same environment (DATABASE_URL), then start serve again."
)
ERR_DATABASE = "Cannot reach the database ({database}): {error}"
MSG_PEER = (
    "Peer {name}: partitions are shared with the other peers of this database through leases "
    "of {seconds:g} s"
)
MSG_IMPORTED = "The database held no configuration: imported {path} as version 1."
WARN_SAMPLE = (
    "That is the bundled sample configuration. Replace it with yours: the configuration pages, "
    "PUT /api/v1/config, or manage.py import_config (a running server loads an imported version "
    "at its next start)."
)


def drain_seconds(text: str) -> float:
    seconds = float(text)
    if not 0 <= seconds <= 3600:
        raise ValueError(text)
    return seconds


def unapplied_migrations(alias: str = DEFAULT_DB_ALIAS) -> list[str]:
    """``app.name`` of every migration not applied to the database, in the order migrate would
    apply them."""
    executor = MigrationExecutor(connections[alias])
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return [f"{migration.app_label}.{migration.name}" for migration, _backwards in plan]


def database_label(alias: str = DEFAULT_DB_ALIAS) -> str:
    """Which database, without its password."""
    database = settings.DATABASES[alias]
    if "sqlite" in database["ENGINE"]:
        return f"SQLite {database['NAME']}"
    host = database.get("HOST") or "localhost"
    port = f":{database['PORT']}" if database.get("PORT") else ""
    return f"PostgreSQL {database['NAME']} on {host}{port}"


class Command(BaseCommand):
    help = (
        "Serve quotaweb in production: load the engines from the database and serve with daphne "
        "(no demo logins, no simulator; migrate first)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1", help="interface to listen on")
        parser.add_argument("--port", type=port_number, default=8000, help="TCP port (1-65535)")
        parser.add_argument(
            "--config", default=None,
            help=(
                "queue configuration YAML, imported as version 1 while the database has no "
                "configuration yet (default: QUOTAWEB_CONFIG, else the bundled sample); "
                "ignored once a version is stored"
            ),
        )
        parser.add_argument(
            "--drain-seconds", type=drain_seconds, default=DEFAULT_DRAIN_SECONDS,
            help=(
                "on SIGTERM or Ctrl-C, how long requests in flight may take to finish before "
                f"the server stops anyway (default {DEFAULT_DRAIN_SECONDS:g})"
            ),
        )
        parser.add_argument(
            "--proxy-headers", action="store_true",
            help=(
                "take the client's address from X-Forwarded-For (and -Port, -Proto), for the "
                "access log; only behind a proxy that sets them"
            ),
        )
        parser.add_argument(
            "--allow-debug", action="store_true",
            help="serve even though QUOTAWEB_DEBUG is on (never on a shared machine)",
        )

    def handle(
        self, *args, host, port, config, drain_seconds, proxy_headers, allow_debug, **options
    ):
        if settings.DEBUG and not allow_debug:
            raise CommandError(ERR_DEBUG)
        with port_claim(host=host, port=port, backlog=LISTEN_BACKLOG) as listening:
            ownership = ownership_claim(
                command="manage.py serve", address=listen_address(host, port),
                lease=connections[DEFAULT_DB_ALIAS].vendor == "postgresql",
            )
            self.serve_owned(
                host=host, port=port, config=config, drain_seconds=drain_seconds,
                proxy_headers=proxy_headers, listening=listening, ownership=ownership,
            )

    def serve_owned(
        self, *, host, port, config, drain_seconds, proxy_headers, listening, ownership
    ) -> None:
        """Everything after the claims: check the migrations, load the engines, serve."""
        try:
            missing = unapplied_migrations()
        except DatabaseError as exc:
            raise CommandError(ERR_DATABASE.format(database=database_label(), error=exc)) from exc
        if missing:
            shown = ", ".join(missing[:5]) + (f", ... ({len(missing) - 5} more)"
                                              if len(missing) > 5 else "")
            raise CommandError(ERR_UNMIGRATED.format(count=len(missing), names=shown))

        leases = ownership.leases
        if leases is not None:
            try:
                leases.open()
            except NameTaken as exc:
                raise CommandError(str(exc)) from None
            except psycopg.Error as exc:
                raise CommandError(
                    ERR_DATABASE.format(database=database_label(), error=exc)
                ) from exc
        config_path = config or settings.QUOTAWEB_CONFIG
        importing = active_version() is None
        self.stdout.write(f"Database: {database_label()}")
        engines_start_for(config_path, self.stdout.write, leased=leases is not None)
        peers = None
        if leases is not None:
            self.stdout.write(MSG_PEER.format(name=leases.name, seconds=leases.ttl_ms / 1000))
            peers = PeerLeases(store=leases, write=self.stdout.write)
            peers.start()
        if importing:
            self.stdout.write(MSG_IMPORTED.format(path=config_path))
            if Path(config_path).resolve() == SAMPLE_CONFIG.resolve():
                self.stderr.write(self.style.WARNING(WARN_SAMPLE))
        owner = owner_threads_start(self.stdout.write, ownership=ownership)
        self.stdout.write(self.style.SUCCESS(f"quotaweb is serving at {site_url(host, port)}"))
        self.stdout.write(f"Health check: {site_url(host, port)}healthz")
        self.stdout.write(
            f"Stop with SIGTERM or Ctrl-C (requests in flight get up to {drain_seconds:g} s)."
        )
        self.stdout.flush()
        try:
            serve(
                host=host, port=port, drain_seconds=drain_seconds, proxy_headers=proxy_headers,
                listening=listening,
            )
        finally:
            if peers is not None:
                # The requests in flight have drained: hand every partition on, so the other
                # peers take them within a round instead of after the lease.
                peers.stop()
            owner.stop()
        self.stdout.write("Stopped.")
