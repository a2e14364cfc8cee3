"""The demo's quota tree load: consumers that come and go on every tree and forest, gently, so
the quota tree pages are alive on first look.

A ``TreeSimulator`` keeps about ``TARGET_LIVE`` consumers: below that it mostly adds one (a job
asking at a random leaf for a few cores and some memory, or GPUs, in the shapes people ask
for; now and then at priority 1, which may push lower priorities out), above it mostly
releases the oldest. Every forest gets consumers on all its trees at once. Operations go
through the quota tree services (the path the API and the pages take), so the feeds, the
consumer pages and the metrics see them. A rejection is part of the story (the feed shows it);
a consumer preempted meanwhile is simply forgotten. Like ``quotaweb.core.simulator`` it never
sleeps: ``step(now)`` does what is due by ``now`` (``drive`` there steps it in real time).

Consumers are named ``sim-tree-<n>``; those a previous run left are adopted at start and
released in turn."""

from __future__ import annotations

import logging
import random
import threading
from collections import deque
from typing import Any

from django.db import DatabaseError, connections

from quotaweb.core.demand_simulator import DemandSimulator
from quotaweb.core.ownership import Ownership
from quotaweb.core.pacing import Pace
from quotaweb.core.simulator import drive
from quotaweb.engine.quotatrees import TreesNotLoaded, trees_get
from quotaweb.quotatrees.models import Placement
from quotaweb.quotatrees.services import (
    TreeRejected,
    forest_allocate,
    forest_release,
    tree_allocate,
    tree_release,
)
from trackers.quotatree import QuotaTreeError
from trackers.resources import VCORE, is_bytes_type

logger = logging.getLogger(__name__)

TREE_SIM_PREFIX = "sim-tree-"
DEFAULT_TREE_RATE = 0.5  # operations per second: gentle, a page shows each one
TARGET_LIVE = 10
ADD_SHARE_BELOW = 0.8  # below the target, this share of operations adds a consumer
ADD_SHARE_ABOVE = 0.25
PRIORITY_SHARE = 0.15
# A job's shape per resource kind, as (amount, weight): cpu in millicores, memory in GiB.
CPU_SHAPES = ((500, 10), (1000, 25), (2000, 30), (4000, 20), (8000, 10), (16000, 5))
MEMORY_GIB = ((2, 10), (4, 25), (8, 30), (16, 20), (32, 10), (64, 5))
COUNT_SHAPES = ((1, 60), (2, 30), (4, 10))
GIB = 2**30

LOG_STARTED = "tree simulator: %.2g operations/s over the quota trees and forests"
LOG_REFUSED = "tree simulator: %s refused: %s"
LOG_CRASHED = "tree simulator: stopped by an unexpected error"


def _pick(rng: random.Random, shapes: tuple[tuple[int, int], ...]) -> int:
    values, weights = zip(*shapes, strict=True)
    return rng.choices(values, weights)[0]


def job_request(rng: random.Random, resources: list[str]) -> dict[str, int]:
    """One job's request of a tree's resources, in base units."""
    request = {}
    for resource in resources:
        if resource == "cpu" or resource == VCORE:
            request[resource] = _pick(rng, CPU_SHAPES)
        elif is_bytes_type(resource):
            request[resource] = _pick(rng, MEMORY_GIB) * GIB
        else:
            request[resource] = _pick(rng, COUNT_SHAPES)
    return request


class TreeSimulator:
    """Adds and releases consumers on this process's trees at ``rate`` operations/s."""

    def __init__(self, *, rate: float = DEFAULT_TREE_RATE, seed: int | None = None) -> None:
        self.rate = rate
        self.rng = random.Random(seed)
        self.pace = Pace(rate)
        self.counter = 0
        # (consumer, tree or None, forest or None), oldest first
        self.live: deque[tuple[str, str | None, str | None]] = deque()
        self.added = self.rejected = self.released = 0

    def adopt(self) -> None:
        """Take over the consumers a previous run left (they are released in turn)."""
        seen = set()
        for consumer, tree, forest in Placement.objects.filter(
            consumer__startswith=TREE_SIM_PREFIX
        ).values_list("consumer", "tree", "forest").order_by("stamp"):
            if consumer in seen:
                continue
            seen.add(consumer)
            self.live.append((consumer, None if forest else tree, forest or None))
            number = consumer[len(TREE_SIM_PREFIX):]
            if number.isdigit():
                self.counter = max(self.counter, int(number))

    def step(self, now: float) -> None:
        for _ in self.pace.due(now):
            try:
                self._operate()
            except (QuotaTreeError, TreeRejected, DatabaseError, TreesNotLoaded) as error:
                logger.info(LOG_REFUSED, "an operation", error)

    def _operate(self) -> None:
        below = len(self.live) < TARGET_LIVE
        adding = self.rng.random() < (ADD_SHARE_BELOW if below else ADD_SHARE_ABOVE)
        if adding or not self.live:
            self._add()
        else:
            self._release()

    def _targets(self) -> list[tuple[str | None, str | None]]:
        manager = trees_get().manager
        forests = {forest: manager.forest_trees(forest) for forest in manager.forest_names()}
        in_forests = {tree for trees in forests.values() for tree in trees}
        singles = [(tree, None) for tree in manager.tree_names() if tree not in in_forests]
        return singles + [(None, forest) for forest in forests if forests[forest]]

    def _leaves(self, tree: str) -> list[str]:
        state = trees_get().manager.state(tree)
        parents = {node.get("parent") for node in state["nodes"].values()}
        return [name for name in state["nodes"] if name not in parents]

    def _entry(self, tree: str, group: str | None = None) -> dict[str, Any]:
        resources = trees_get().manager.state(tree)["resources"]
        leaves = self._leaves(tree)
        chosen = group if group in leaves else self.rng.choice(leaves)
        priority = 1 if self.rng.random() < PRIORITY_SHARE else 0
        return {"groupID": chosen, "request": job_request(self.rng, resources),
                "priority": priority}

    def _add(self) -> None:
        targets = self._targets()
        if not targets:
            return
        tree, forest = self.rng.choice(targets)
        self.counter += 1
        consumer = f"{TREE_SIM_PREFIX}{self.counter:04d}"
        if forest is not None:
            members = trees_get().manager.forest_trees(forest)
            first = self._entry(members[0])
            # one job: the same group name on every tree where that leaf exists
            entries = [first] + [self._entry(t, first["groupID"]) for t in members[1:]]
            for entry, member in zip(entries, members, strict=True):
                entry["treeName"] = member
                entry["priority"] = first["priority"]
            result = forest_allocate(forest=forest, body={
                "kind": "Consumer", "spec": {"id": consumer, "trees": entries}})
        else:
            assert tree is not None
            result = tree_allocate(tree=tree, body={"id": consumer, **self._entry(tree)})
        if result.allocated:
            self.added += 1
            self.live.append((consumer, tree, forest))
        else:
            self.rejected += 1

    def _release(self) -> None:
        consumer, tree, forest = self.live.popleft()
        try:
            if forest is not None:
                forest_release(forest=forest, consumer=consumer)
            elif tree is not None:
                tree_release(tree=tree, consumer=consumer)
        except QuotaTreeError:
            return  # preempted meanwhile, or its tree is gone: nothing to release
        self.released += 1


class TreeSimulatorThread:
    """The tree simulator and the elastic demand reports (``quotaweb.core.demand_simulator``)
    on a daemon thread (stops with the process at the latest). Like the allocation simulator it
    adopts what a previous run left, so only the process that owns the database's engines may
    run one: ``ownership`` is that claim (``core.ownership``)."""

    def __init__(
        self, *, ownership: Ownership, rate: float = DEFAULT_TREE_RATE, seed: int | None = None
    ) -> None:
        self.ownership = ownership
        self.simulator = TreeSimulator(rate=rate, seed=seed)
        self.demand = DemandSimulator(seed=seed)
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name="quotaweb-tree-simulator", daemon=True
        )

    def start(self) -> None:
        logger.info(LOG_STARTED, self.simulator.rate)
        self._thread.start()

    def stop(self, *, timeout: float = 5.0) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            self.simulator.adopt()
            drive([self.simulator, self.demand], stop=self._stop)
        except Exception:
            logger.exception(LOG_CRASHED)
        finally:
            connections.close_all()
