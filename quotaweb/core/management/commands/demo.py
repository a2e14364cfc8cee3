"""``python manage.py demo``: migrate, ensure the demo logins, load the active config into engines,
serve with daphne.

The first run imports the sample (or ``--config``) as version 1; later runs start from the active
version in the database.

Everything happens in one process and in this order, so the engines exist before the first request
and are the very engines the server uses (no autoreloader, no second process). First of all it
takes its port and claims the database's engines (``core.ownership``): a busy port, or a SQLite
database another process owns, is refused before anything is migrated, loaded or simulated.
Unless turned off (``--no-simulator``, ``QUOTAWEB_SIMULATOR=0``), a simulator thread sends
allocations and releases to those engines through the allocation services, so the pages are live
at once; it stops with the server. A fresh database is also given a cluster total per partition
(elastic quota stays off), a quota tree and a forest (``quotaweb.core.demo_seed``), and a second,
gentler simulator adds and releases consumers on them and reports elastic demand
(``quotaweb.core.tree_simulator``); without simulators nothing is seeded.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from quotaweb.accounts.roles import ROLE_ADMIN, ROLE_VIEWER
from quotaweb.accounts.services import DemoLogin, accounts_demo_ensure
from quotaweb.core.demand_simulator import DEFAULT_DEMAND_RATE
from quotaweb.core.demo_seed import demo_seed
from quotaweb.core.ownership import listen_address, ownership_claim, port_claim
from quotaweb.core.serving import (
    LISTEN_BACKLOG,
    engines_start_for,
    owner_threads_start,
    port_number,
    serve,
    site_url,
)
from quotaweb.core.simulator import DEFAULT_RATE, rate_argument, simulator_start
from quotaweb.core.tree_simulator import DEFAULT_TREE_RATE, TreeSimulatorThread
from quotaweb.env import env_bool

WARN_DEFAULT_PASSWORDS = (
    "Debug is off but a demo login uses its published default password: set "
    "QUOTAWEB_DEMO_ADMIN_PASSWORD and QUOTAWEB_DEMO_VIEWER_PASSWORD before anyone else can reach "
    "this server."
)

SIMULATOR_ENV = "QUOTAWEB_SIMULATOR"
MSG_SIMULATOR = (
    "Simulated load: {rate:g} operations/s over partitions {partitions} (off: --no-simulator "
    f"or {SIMULATOR_ENV}=0)"
)
MSG_TREE_SIMULATOR = (
    "Simulated quota tree consumers: {rate:g} operations/s over every tree; elastic demand: "
    "{demand:g} reports/s"
)

ROLE_DUTIES = {
    ROLE_ADMIN: "quota admin: changes the configuration",
    ROLE_VIEWER: "viewer: reads every page, changes nothing",
}


class Command(BaseCommand):
    help = "Set up the database, load the sample quota configuration and serve quotaweb."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1", help="interface to listen on")
        parser.add_argument("--port", type=port_number, default=8000, help="TCP port (1-65535)")
        parser.add_argument(
            "--config",
            default=None,
            help=(
                "queue configuration YAML, imported as version 1 while the database has no "
                "configuration yet (default: QUOTAWEB_CONFIG, else the bundled sample)"
            ),
        )
        parser.add_argument(
            "--no-simulator", action="store_true",
            help=f"serve without simulated load (so does {SIMULATOR_ENV}=0)",
        )
        parser.add_argument(
            "--sim-rate", type=rate_argument, default=DEFAULT_RATE,
            help=f"simulated operations per second over all partitions (default {DEFAULT_RATE:g})",
        )

    def handle(self, *args, host, port, config, no_simulator, sim_rate, **options):
        verbosity = options["verbosity"]
        try:
            simulating = not no_simulator and env_bool(SIMULATOR_ENV, True)
        except ImproperlyConfigured as exc:
            raise CommandError(str(exc)) from None
        with port_claim(host=host, port=port, backlog=LISTEN_BACKLOG) as listening:
            ownership = ownership_claim(
                command="manage.py demo", address=listen_address(host, port)
            )
            self.demo_owned(
                host=host, port=port, config=config, simulating=simulating, sim_rate=sim_rate,
                verbosity=verbosity, listening=listening, ownership=ownership,
            )

    def demo_owned(
        self, *, host, port, config, simulating, sim_rate, verbosity, listening, ownership
    ) -> None:
        """Everything after the claims: migrate, ensure the logins, load, simulate, serve."""
        call_command("migrate", interactive=False, verbosity=max(0, verbosity - 1))
        logins = accounts_demo_ensure()
        engines_start_for(config or settings.QUOTAWEB_CONFIG, self.stdout.write)
        if simulating:
            # Seeds are for the lively demo; without simulators the database is left bare, so
            # scripts and tests see exactly what they send.
            demo_seed(write=self.stdout.write)
        self.stdout.write("")
        self.stdout.write(self.style.SUCCESS(f"quotaweb is at {site_url(host, port)}"))
        self.stdout.write(f"Health check: {site_url(host, port)}healthz")
        login_url = site_url(host, port) + reverse("accounts:login").lstrip("/")
        for line in self.login_lines(logins, login_url=login_url):
            self.stdout.write(line)
        if not settings.DEBUG and any(not login.password_from_env for login in logins):
            # Debug off suggests a shared machine, where a published password is an open door.
            self.stderr.write(self.style.WARNING(WARN_DEFAULT_PASSWORDS))
        simulator = simulator_start(ownership=ownership, rate=sim_rate) if simulating else None
        tree_simulator = TreeSimulatorThread(ownership=ownership) if simulating else None
        if simulator is not None:
            self.stdout.write(MSG_SIMULATOR.format(
                rate=sim_rate, partitions=", ".join(simulator.partitions)
            ))
        if tree_simulator is not None:
            tree_simulator.start()
            self.stdout.write(MSG_TREE_SIMULATOR.format(
                rate=DEFAULT_TREE_RATE, demand=DEFAULT_DEMAND_RATE
            ))
        # The engine channel (channel mode), the usage sampler and the elastic worker, as
        # manage.py serve starts them.
        owner = owner_threads_start(self.stdout.write, ownership=ownership)
        self.stdout.write("Stop with Ctrl-C.")
        self.stdout.flush()
        try:
            serve(host=host, port=port, listening=listening)
        finally:
            owner.signal()
            if simulator is not None:
                simulator.stop()
            if tree_simulator is not None:
                tree_simulator.stop()
            owner.join()

    def login_lines(self, logins: list[DemoLogin], *, login_url: str) -> list[str]:
        lines = [f"Logins at {login_url}:"]
        width = max(len(login.username) for login in logins)
        for login in logins:
            # A password the operator chose is not echoed into terminals and logs.
            password = (
                f"password from ${login.password_env}" if login.password_from_env
                else login.password
            )
            lines.append(
                f"  {login.username:<{width}} / {password}  ({ROLE_DUTIES[login.role]})"
            )
        return lines
