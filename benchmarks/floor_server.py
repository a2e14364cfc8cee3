"""The floor's server: ``floor_app.py`` served exactly as ``manage.py serve`` serves quotaweb
(``quotaweb.core.serving.server_for``: the same daphne server class, options and access log), so
that what ``benchmarks/api.py`` compares against is the server quotaweb runs on, not daphne as
its command line would set it up.

    .venv/bin/python benchmarks/floor_server.py PORT
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    port = int(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="quotaweb-floor-") as folder:
        # Django is set up only because the server module is part of it; the floor app never
        # reaches Django, and no database is opened.
        os.environ.pop("DATABASE_URL", None)
        os.environ.update({
            "DJANGO_SETTINGS_MODULE": "quotaweb.settings", "QUOTAWEB_DATA_DIR": folder,
            "QUOTAWEB_DEBUG": "0", "QUOTAWEB_SECRET_KEY": "benchmark-only-secret-key-" + "x" * 30,
        })
        import django

        django.setup()
        from floor_app import application

        from quotaweb.core.management.commands.serve import DEFAULT_DRAIN_SECONDS
        from quotaweb.core.serving import server_for

        server_for(
            application, host="127.0.0.1", port=port, drain_seconds=DEFAULT_DRAIN_SECONDS
        ).run()


if __name__ == "__main__":
    main()
