"""The elastic worker of the process that owns the engines (started by ``manage.py demo``): keeps
the runtimes the engines enforce current as usage changes, off the allocation path."""

from __future__ import annotations

import logging
import threading

from quotaweb.engine.gateway import engines_get, engines_loaded

logger = logging.getLogger(__name__)

# Admission judges live usage against runtimes at most this old (plus one refresh).
INTERVAL_SECONDS = 0.1


def elastic_worker_tick() -> None:
    """Refresh every partition whose elastic quota is on (only what changed is recomputed)."""
    if not engines_loaded():
        return
    gateway = engines_get()
    for partition in gateway.partitions():
        if gateway.elastic_enabled(partition):
            gateway.elastic(partition).refresh()


def elastic_worker_start(*, stop: threading.Event | None = None) -> threading.Thread:
    """Refresh every ``INTERVAL_SECONDS`` until ``stop`` is set (a daemon thread)."""
    stop = stop or threading.Event()

    def run() -> None:
        failing = False
        while not stop.wait(INTERVAL_SECONDS):
            try:
                elastic_worker_tick()
            except Exception:
                # A config switch replacing a partition mid-tick, say: the next tick recovers.
                if not failing:
                    logger.exception("elastic quota refresh failed; retrying every tick")
                failing = True
            else:
                failing = False

    thread = threading.Thread(target=run, name="elastic-worker", daemon=True)
    thread.start()
    return thread
