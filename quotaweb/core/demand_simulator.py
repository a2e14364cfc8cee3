"""The demo's pending demand for elastic quota: now and then a leaf queue reports work waiting
(a share of its max) or clears what it reported, as a scheduler would. With the usage the
allocation simulator makes, this is what moves the elastic runtimes: who lends, who borrows,
who is above their runtime. Elastic quota stays off in the demo, so nothing is denied for it;
an admin who turns it on sees ``elasticQuota`` denials among the simulator's allocations.

``DemandSimulator.step(now)`` does what is due by ``now`` (``quotaweb.core.simulator.drive``
steps it); demand goes through ``elastic_demand_set``, the service the API uses."""

from __future__ import annotations

import logging
import random

from django.db import DatabaseError

from quotaweb.core.pacing import Pace
from quotaweb.elastic.services import elastic_demand_set
from quotaweb.engine.gateway import EngineNotLoaded, UnknownPartition, engines_get
from trackers import InvalidRequest, QuantityError
from trackers.resources import parse_quantity

logger = logging.getLogger(__name__)

DEFAULT_DEMAND_RATE = 0.2  # reports per second over all partitions
CLEAR_SHARE = 0.3
# A report asks for this share of the queue's max, per type.
DEMAND_SHARES = (0.1, 0.25, 0.4, 0.6)
LOG_REFUSED = "demand simulator: a report was refused: %s"


class DemandSimulator:
    def __init__(self, *, rate: float = DEFAULT_DEMAND_RATE, seed: int | None = None) -> None:
        self.rate = rate
        self.rng = random.Random(seed)
        self.pace = Pace(rate)
        self.reports = 0

    def step(self, now: float) -> None:
        for _ in self.pace.due(now):
            try:
                self._report()
            except (InvalidRequest, QuantityError, DatabaseError, EngineNotLoaded,
                    UnknownPartition) as error:
                logger.info(LOG_REFUSED, error)

    def _leaves(self, partition: str) -> list[tuple[str, dict[str, int]]]:
        """The leaf queues with a max (the ones that take part in sharing), with that max."""
        with engines_get().engine(partition) as engine:
            queues = list(engine.config.root.walk())
        return [
            (queue.path, {kind: parse_quantity(text, kind) for kind, text in queue.max.items()})
            for queue in queues if not queue.children and queue.max
        ]

    def _report(self) -> None:
        partitions = engines_get().partitions()
        if not partitions:
            return
        partition = self.rng.choice(partitions)
        leaves = self._leaves(partition)
        if not leaves:
            return
        path, maximum = self.rng.choice(leaves)
        if self.rng.random() < CLEAR_SHARE:
            demand: dict[str, int] = {}
        else:
            share = self.rng.choice(DEMAND_SHARES)
            demand = {kind: int(value * share) for kind, value in maximum.items()}
        elastic_demand_set(partition=partition, queue_path=path, demand=demand)
        self.reports += 1
