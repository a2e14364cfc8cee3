"""``python manage.py web``: one more web process for live sockets, beside the engine owner.

For scale-out (``QUOTAWEB_ENGINE_OWNER=channel`` with ``REDIS_URL``): exactly one process owns
the engines (``manage.py serve``, or ``manage.py demo`` for a try-out); any number of these
serve ``/ws/usage/`` sockets, asking the owner for snapshots over the named channel and
receiving updates through Redis. They load no engines, so a load balancer sends everything but
``/ws/usage/`` to the owner.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from quotaweb.core.ownership import port_claim
from quotaweb.core.selectors import sockets_only_set
from quotaweb.core.serving import LISTEN_BACKLOG, port_number, serve, site_url

ERR_MODE = (
    "manage.py web serves sockets for an engine owner in another process: set "
    "QUOTAWEB_ENGINE_OWNER=channel and REDIS_URL (the owner runs manage.py serve with the same)"
)


class Command(BaseCommand):
    help = "Serve live usage sockets for the engine owner process (scale-out)."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1", help="interface to listen on")
        parser.add_argument("--port", type=port_number, default=8001, help="TCP port (1-65535)")

    def handle(self, *args, host, port, **options):
        if settings.QUOTAWEB_ENGINE_OWNER != "channel":
            raise CommandError(ERR_MODE)
        # No engines and no ledger here, so nothing to claim but the port (taken before the
        # sockets are set up, and served on, as serve and demo take theirs).
        with port_claim(host=host, port=port, backlog=LISTEN_BACKLOG) as listening:
            sockets_only_set()
            self.stdout.write(f"Live sockets at {site_url(host, port)}ws/usage/<partition>/")
            self.stdout.flush()
            serve(host=host, port=port, listening=listening)
