"""Denials into the history (``HistoryEvent``), written in the background by the engine owner.

Admissions and releases are written by the ledger's own statements (triggers, allocations.0006)
and cost the allocation path one more row in the same statement. A denial writes no ledger row
and is answered without touching the database; making it wait for one would slow exactly the
requests a busy scheduler sends most. So the event log hands each denial to a bounded queue
(``QUOTAWEB_HISTORY_DENIALS_QUEUED``) and one thread writes what is queued, in order, a few
hundred rows a statement. What that gives away: a denial queued when the process dies (a crash,
``kill -9``; a clean stop writes the queue first) is lost, and when the queue is full a denial
is dropped at once rather than waited for; both are counted
(``quotaweb_history_denials_dropped_total``, the crash's only as the gap it leaves). A denial's
time is the engine's; its place among admissions and releases is by that time, not by id.
"""

from __future__ import annotations

import logging
import queue
import threading
from datetime import UTC, datetime

from django.conf import settings
from django.db import close_old_connections, connection

from quotaweb import metrics
from quotaweb.allocations.models import HistoryEvent
from quotaweb.engine.live import LiveAllocation, denials_to

logger = logging.getLogger(__name__)

ROWS_PER_WRITE = 500
WAIT_SECONDS = 0.5
MSG_FAILED = "denials could not be written to the history; %d dropped"

_Denial = tuple[str, LiveAllocation, str, float]


class DenialWriter:
    """The bounded queue of denials and the thread that writes it (``start``)."""

    def __init__(self, size: int | None = None) -> None:
        self._queue: queue.Queue[_Denial] = queue.Queue(
            maxsize=size or settings.QUOTAWEB_HISTORY_DENIALS_QUEUED
        )

    def offer(self, partition: str, allocation: LiveAllocation, reason: str, at: float) -> None:
        try:
            self._queue.put_nowait((partition, allocation, reason, at))
        except queue.Full:
            metrics.inc("quotaweb_history_denials_dropped_total")

    def write_queued(self) -> int:
        """Write up to ``ROWS_PER_WRITE`` queued denials; how many."""
        denials: list[_Denial] = []
        while len(denials) < ROWS_PER_WRITE:
            try:
                denials.append(self._queue.get_nowait())
            except queue.Empty:
                break
        if not denials:
            return 0
        try:
            HistoryEvent.objects.bulk_create([
                HistoryEvent(
                    partition=partition, kind=HistoryEvent.KIND_DENIED,
                    at=datetime.fromtimestamp(at, UTC), key=a.key,
                    application_id=a.application_id, queue_path=a.queue_path, user=a.user,
                    groups=list(a.groups), group=a.group or "", resource=dict(a.resource),
                    reason=reason,
                )
                for partition, a, reason, at in denials
            ])
        except Exception:
            logger.exception(MSG_FAILED, len(denials))
            metrics.inc("quotaweb_history_denials_dropped_total", len(denials))
        return len(denials)

    def start(self, *, stop: threading.Event) -> threading.Thread:
        """Take the engines' denials from now on and write them until ``stop`` is set, then
        what is still queued (a daemon thread)."""
        denials_to(self.offer)

        def run() -> None:
            while not stop.wait(WAIT_SECONDS):
                close_old_connections()
                while self.write_queued():
                    pass
            denials_to(None)
            while self.write_queued():
                pass
            connection.close()

        thread = threading.Thread(target=run, name="history-denials", daemon=True)
        thread.start()
        return thread
