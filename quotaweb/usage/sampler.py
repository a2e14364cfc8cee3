"""The background sampler of the process that owns the engines (started by ``manage.py demo``)."""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.db import close_old_connections, connection

from quotaweb.usage.services import usage_sample

logger = logging.getLogger(__name__)


def sampler_start(*, stop: threading.Event | None = None) -> threading.Thread:
    """Sample usage every ``QUOTAWEB_TREND_SAMPLE_SECONDS`` until ``stop`` is set (a daemon
    thread: it ends with the server)."""
    stop = stop or threading.Event()

    def run() -> None:
        while not stop.wait(settings.QUOTAWEB_TREND_SAMPLE_SECONDS):
            close_old_connections()
            try:
                usage_sample()
            except Exception:
                # One failed sample (the database busy, an engine being replaced) is a gap in
                # a chart, not a reason to stop sampling.
                logger.exception("usage sample failed; trying again next time")
        connection.close()

    thread = threading.Thread(target=run, name="usage-sampler", daemon=True)
    thread.start()
    return thread
