"""Elastic quota beside each partition's engine: the runtime of every queue, kept current.

``trackers.elastic`` computes runtimes from a tree of queues with their usage, pending demand and
the cluster total. This module keeps one such tree per partition, feeds it the engine's usage
(read from the engine's change log, so a refresh costs what changed since the last one) and hands
the runtimes to the engine, which enforces them in its own admission step when elastic quota is
on. Nothing here runs on the engine's increase path: runtimes are recomputed by whoever asks for
them (a reader, a settings change, the elastic worker every ``quotaweb.elastic.worker`` tick)
and handed over whole, so an admission judges live usage against the last computed runtime.

Locks (see ``quotaweb.engine.gateway``): a settings or demand write holds the state's
``write_lock`` across its database transaction and the in-memory change that follows, one write
at a time, like a partition lock (never together with one). The computation holds ``lock``
and, inside it, takes only the engine's own lock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from trackers import Engine, InvalidRequest
from trackers.config.model import Partition
from trackers.elastic import ElasticTree, QueueState, elastic_queues
from trackers.resources import INT64_MAX

ERR_UNKNOWN_QUEUE = "queue {path!r} is not a queue of partition {partition!r}"
ERR_PARENT_QUEUE = (
    "queue {path!r} has child queues: demand is reported for leaf queues, whose parents add "
    "it up"
)
ERR_RESOURCE = "{what} must be a map of resource type to a non-negative integer"
ERR_RESOURCE_KIND = "{what}: a resource type must be a non-empty name, not {kind!r}"
# Bounded as allocations are (64 bits): these values are summed up the queue tree.
ERR_RESOURCE_VALUE = (
    f"{{what}}: {{kind!r}} must be a non-negative integer of at most {INT64_MAX}, not {{value!r}}"
)

Resource = dict[str, int]


class UnknownQueue(InvalidRequest):
    """The queue path names no queue of the partition (the API answers 404)."""


class NotALeaf(InvalidRequest):
    """Demand reported for a parent queue, which adds up its children's (the API answers 409:
    the queue's place in the hierarchy, not the request's shape, is at odds)."""


def resource_checked(value: object, *, what: str) -> Resource:
    """``value`` as a resource map (zero amounts dropped); ``InvalidRequest`` naming ``what``
    and the entry at fault otherwise."""
    if not isinstance(value, dict):
        raise InvalidRequest(ERR_RESOURCE.format(what=what))
    checked: Resource = {}
    for kind, amount in value.items():
        if not isinstance(kind, str) or not kind:
            raise InvalidRequest(ERR_RESOURCE_KIND.format(what=what, kind=kind))
        if type(amount) is not int or not 0 <= amount <= INT64_MAX:
            raise InvalidRequest(ERR_RESOURCE_VALUE.format(what=what, kind=kind, value=amount))
        if amount:
            checked[kind] = amount
    return checked


def _iso(moment: float | None) -> str | None:
    return None if moment is None else datetime.fromtimestamp(moment, UTC).isoformat()


class ElasticState:
    """One partition's elastic quota: the switch, the cluster total, the demand of each leaf
    queue, and the tree computed from them and the engine's usage."""

    def __init__(self, engine: Engine, *, epoch: int = 0) -> None:
        self.engine = engine
        # The lease epoch of the slot it belongs to: its stored changes are fenced with it.
        self.epoch = epoch
        self.lock = threading.Lock()
        self.write_lock = threading.Lock()
        self.enabled = False
        self.total: Resource = {}
        # Demand of queues not in the configuration is kept (it is stored) but not used: the
        # queue may come back with the next version.
        self.demands: dict[str, Resource] = {}
        self.generation = 0
        self.computed_at: float | None = None
        self.over_since: dict[str, float] = {}
        self._partition: Partition = engine.config
        self._tree: ElasticTree | None = None
        self._children: dict[str, tuple[str, ...]] = {}
        self._seq = -1
        self._row_generation: dict[str, int] = {}
        self._published: bool | None = None
        # A settings change alters what the view says even when no queue's figures change.
        self._touched = False

    # -- inputs (each followed by a refresh) ---------------------------------------------------

    def load(self, *, enabled: bool, total: Mapping[str, int],
             demands: Mapping[str, Mapping[str, int]]) -> None:
        """Take stored settings (start-up): everything is computed again."""
        with self.lock:
            self.enabled = enabled
            self.total = dict(total)
            self.demands = {path: dict(demand) for path, demand in demands.items()}
            self._tree = None
        self.refresh()

    def configure(self, partition: Partition) -> None:
        """A new configuration version: the tree is built again from its queues."""
        with self.lock:
            self._partition = partition
            self._tree = None
        if self.enabled:
            self.refresh()

    def set_enabled(self, enabled: bool) -> None:
        with self.lock:
            self.enabled = enabled
            self._published = None
            self._touched = True
        self.refresh()

    def set_total(self, total: Mapping[str, int]) -> None:
        with self.lock:
            self.total = dict(total)
            self._touched = True
            if self._tree is not None:
                self._tree.set_total(self.total)
        self.refresh()

    def check_demand(self, queue_path: object, demand: object) -> tuple[str, Resource]:
        """The queue path (lower-cased) and the demand, checked; ``InvalidRequest`` says what
        is wrong, and nothing is changed either way."""
        if not isinstance(queue_path, str):
            raise InvalidRequest(ERR_UNKNOWN_QUEUE.format(
                path=queue_path, partition=self._partition.name
            ))
        path = queue_path.lower()
        with self.lock:
            tree = self._tree_now()
            if path not in tree:
                raise UnknownQueue(ERR_UNKNOWN_QUEUE.format(
                    path=queue_path, partition=self._partition.name
                ))
            if not tree.is_leaf(path):
                raise NotALeaf(ERR_PARENT_QUEUE.format(path=path))
        return path, resource_checked(demand, what="the demand")

    def set_demand(self, queue_path: str, demand: Mapping[str, int]) -> None:
        """Replace a leaf queue's demand (checked by ``check_demand`` first); ``{}`` clears it."""
        with self.lock:
            if demand:
                self.demands[queue_path] = dict(demand)
            else:
                self.demands.pop(queue_path, None)
            if self._tree is not None and queue_path in self._tree:
                self._tree.set_demand(queue_path, demand)
        self.refresh()

    # -- the computation -----------------------------------------------------------------------

    def refresh(self) -> None:
        """Bring the runtimes up to date with usage, demand and settings, recomputing only what
        changed since the last refresh, and hand them to the engine."""
        with self.lock:
            tree = self._tree_now()
            changes = self.engine.changes_since(self._seq)
            if changes.reset or self._seq < 0:
                self._read_usage(tree, self._children.keys())
            elif changes.queues:
                self._read_usage(tree, [p for p in changes.queues if p in self._children])
            self._seq = changes.seq
            changed = tree.refresh()
            if changed or self.computed_at is None or self._touched:
                self._touched = False
                self.generation += 1
                # A tree built afresh changed as a whole.
                for path in changed if self.computed_at is not None else self._children:
                    self._row_generation[path] = self.generation
                self.computed_at = time.time()
                self._track_over_use(tree)
            if changed or self._published is None or self._published != self.enabled:
                self._publish(tree)

    def _tree_now(self) -> ElasticTree:
        """The tree (under ``lock``), built from the configuration when there is none."""
        if self._tree is not None:
            return self._tree
        queues = elastic_queues(self._partition)
        children: dict[str, list[str]] = {queue.path: [] for queue in queues}
        for queue in queues:
            if queue.parent is not None:
                children[queue.parent].append(queue.path)
        self._children = {path: tuple(kids) for path, kids in children.items()}
        tree = ElasticTree(queues, total=self.total)
        for path, demand in self.demands.items():
            if path in tree and tree.is_leaf(path):
                tree.set_demand(path, demand)
        self._tree = tree
        self._seq = -1
        self._row_generation = {}
        self.computed_at = None
        self.over_since = {}
        return tree

    def _read_usage(self, tree: ElasticTree, paths: Iterable[str]) -> None:
        """Tell the tree the usage bound directly to each of ``paths``: a queue's total minus
        its configured children's (usage in queues the configuration does not name, made by
        allocations to dynamic queues, stays with the nearest configured ancestor)."""
        paths = list(paths)
        wanted = set(paths)
        for path in paths:
            wanted.update(self._children[path])
        usage = self.engine.queue_usage(wanted)
        for path in paths:
            own = dict(usage[path])
            for child in self._children[path]:
                for kind, amount in usage[child].items():
                    own[kind] = own.get(kind, 0) - amount
            tree.set_used(path, {kind: amount for kind, amount in own.items() if amount > 0})

    def _track_over_use(self, tree: ElasticTree) -> None:
        now = time.time()
        over = tree.over_used()
        self.over_since = {path: self.over_since.get(path, now) for path in over}

    def _publish(self, tree: ElasticTree) -> None:
        runtimes = None
        if self.enabled:
            runtimes = {
                state.path: state.runtime for state in tree.states()
                if state.parent is not None and not state.system
            }
        self.engine.set_elastic_runtimes(runtimes)
        self._published = self.enabled

    # -- reads ---------------------------------------------------------------------------------

    def view(self, *, since: int | None = None) -> dict[str, Any]:
        """The partition's elastic quota as the API answers it: settings, the root pool, when it
        was computed and every queue in tree order (with ``since``, a generation number: only
        the queues whose figures changed after it)."""
        self.refresh()
        with self.lock:
            tree = self._tree_now()
            over = tree.over_used()
            rows = [
                self._row(tree, state, over.get(state.path))
                for state in tree.states()
                if since is None or self._row_generation.get(state.path, 0) > since
            ]
            return {
                "enabled": self.enabled,
                "clusterTotal": dict(self.total),
                "pool": tree.pool,
                "computedAt": _iso(self.computed_at),
                "generation": self.generation,
                "queues": rows,
            }

    def _row(
        self, tree: ElasticTree, state: QueueState, over: Mapping[str, int] | None
    ) -> dict[str, Any]:
        path = state.path
        return {
            "queuePath": path,
            "parent": state.parent,
            "leaf": tree.is_leaf(path),
            "system": state.system,
            "min": dict(state.min),
            "max": dict(state.max),
            "sharedWeight": dict(state.weight),
            "allowLent": state.allow_lent,
            "autoScaleMin": dict(state.auto_scale_min),
            "demand": dict(self.demands.get(path, {})),
            "request": dict(state.request),
            "limitedRequest": dict(state.limited_request),
            "used": dict(state.used),
            "runtime": dict(state.runtime),
            "lent": dict(state.lent),
            "borrowed": dict(state.borrowed),
            "unallocated": tree.unallocated(path),
            "overUsed": dict(over) if over else None,
            "overSince": _iso(self.over_since.get(path)),
        }

    def explain(self, queue_path: str, kind: str) -> dict[str, Any]:
        """How one queue's runtime of one resource came about (``ElasticTree.explain``)."""
        self.refresh()
        path = queue_path.lower()
        with self.lock:
            tree = self._tree_now()
            if path not in tree:
                raise UnknownQueue(ERR_UNKNOWN_QUEUE.format(
                    path=queue_path, partition=self._partition.name
                ))
            return tree.explain(path, kind)

    def over_use(self) -> list[dict[str, Any]]:
        """Queues above their runtime now: ``{queuePath, since, over, used, runtime}``, the
        longest over first."""
        self.refresh()
        with self.lock:
            tree = self._tree_now()
            found = []
            for path, over in tree.over_used().items():
                state = tree.state(path)
                found.append({
                    "queuePath": path,
                    "since": _iso(self.over_since.get(path)),
                    "over": dict(over),
                    "used": {kind: state.used.get(kind, 0) for kind in state.runtime},
                    "runtime": dict(state.runtime),
                    "leaf": tree.is_leaf(path),
                })
            found.sort(key=lambda row: (row["since"] or "", row["queuePath"]))
            return found

    def series(self) -> list[QueueState]:
        """Every queue's figures (the metrics export)."""
        self.refresh()
        with self.lock:
            return self._tree_now().states()
