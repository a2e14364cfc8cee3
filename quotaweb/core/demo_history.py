"""A few hours of made-up history for the demo, so that the accounting page has something to
show on a first look.

The demo's own simulator (``core.simulator``) plays the hours before now against an engine of
its own, built from the partition's configuration, with a made-up clock: its admissions,
releases and denials are written straight into the history with the times they would have had,
and every application still running at the end is released at the present, so the ledger and
the live engines are untouched. Only a partition whose history is empty is seeded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from django.db import connection, transaction

from quotaweb.allocations.models import HistoryEvent
from quotaweb.core.simulator import NotLive, Simulator
from quotaweb.engine.gateway import engines_get
from quotaweb.usage.rollups import history_upkeep
from trackers.config.model import Partition
from trackers.ugm.engine import Engine

SEED_HOURS = 4
# Operations a second of the past: 14,400 over four hours, a few seconds to play and write.
SEED_RATE = 1.0
STEP_SECONDS = 5.0
MSG_HISTORY = "Made {hours} hours of history for partition {partition} ({events} events)."


class _PastTarget:
    """A ``simulator.Target`` that answers from its own engine and notes what happened, at the
    made-up time ``now``."""

    def __init__(self, partition: Partition) -> None:
        self.partition = partition.name
        self._model = partition
        self._engine = Engine(partition)
        self.now = 0.0
        self.events: list[HistoryEvent] = []
        # application -> [(body, admitted at, the group it counts against)]
        self._live: dict[str, list[tuple[dict[str, Any], datetime, str]]] = {}

    def config(self) -> tuple[int | None, Partition]:
        return 0, self._model

    def _event(self, kind: str, body: dict[str, Any], **fields: Any) -> HistoryEvent:
        return HistoryEvent(
            partition=self.partition, kind=kind, key=body["allocationKey"],
            application_id=body["applicationId"], queue_path=body["queuePath"],
            user=body["user"], groups=body["groups"], resource=body["resource"], **fields,
        )

    def allocate(self, body: dict[str, Any]) -> tuple[bool, str | None]:
        at = datetime.fromtimestamp(self.now, UTC)
        decision = self._engine.increase(body["queuePath"], body["applicationId"], body["user"],
                                         body["groups"], body["resource"])
        if not decision.allowed:
            self.events.append(self._event(HistoryEvent.KIND_DENIED, body, at=at,
                                           reason=decision.reason or ""))
            return False, decision.reason
        group = decision.group or ""
        self.events.append(self._event(HistoryEvent.KIND_ADMITTED, body, at=at, group=group))
        self._live.setdefault(body["applicationId"], []).append((body, at, group))
        return True, None

    def running(self) -> list[str]:
        return list(self._live)

    def release_application(self, application_id: str) -> int:
        live = self._live.pop(application_id, None)
        if not live:
            raise NotLive(application_id)
        at = datetime.fromtimestamp(self.now, UTC)
        for number, (body, started, group) in enumerate(live):
            self._engine.decrease(body["queuePath"], application_id, body["user"],
                                  body["resource"], remove_app=number == len(live) - 1)
            self.events.append(self._event(HistoryEvent.KIND_RELEASED, body, at=at,
                                           started=started, group=group))
        return len(live)


def demo_history_seed(*, write: Callable[[str], None] = lambda line: None,
                      hours: int = SEED_HOURS, rate: float = SEED_RATE) -> None:
    """Seed ``hours`` of history into every partition that has none."""
    gateway = engines_get()
    end = time.time()
    for partition in gateway.partitions():
        if HistoryEvent.objects.filter(partition=partition).exists():
            continue
        with gateway.engine(partition) as engine:
            model = engine.config
        target = _PastTarget(model)
        simulator = Simulator(target, rate=rate, seed=1)
        target.now = end - hours * 3600
        while target.now < end:
            simulator.step(target.now)
            target.now += STEP_SECONDS
        target.now = end
        # What still runs ends now (the target's own, quietly: the simulator's drain would log
        # as the live demo's does on its way out).
        for application in list(target.running()):
            target.release_application(application)
        with transaction.atomic():
            tx = None
            if connection.vendor == "postgresql":
                # The rows the triggers write carry their transaction; these must too, or the
                # rollups would never fold them (``usage.rollups``).
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_current_xact_id()::text::bigint")
                    tx = cursor.fetchone()[0]
            for event in target.events:
                event.tx = tx
            HistoryEvent.objects.bulk_create(target.events, batch_size=500)
        write(MSG_HISTORY.format(hours=hours, partition=partition, events=len(target.events)))
    history_upkeep(partitions=gateway.partitions())
