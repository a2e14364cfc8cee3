"""The runtime quota of every queue of a partition, kept current as usage and demand change.

Requests go up (spec 1.4), runtimes come down (1.5-1.8). The tree is built once from the queues;
``set_*`` calls only record inputs and mark what they touch, ``refresh`` recomputes exactly the
marked part, and ``recompute`` everything. Both answer the same states by construction: every
figure of a queue is a function of its own inputs and its children's figures (going up) or its
parent's distribution (going down), and a node is marked whenever one of those changes.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from trackers.elastic import messages
from trackers.elastic.explain import explain
from trackers.elastic.queues import ElasticQueue
from trackers.elastic.split import scale_mins, split
from trackers.errors import InvalidRequest

ROOT = 0  # index of the root: queues are kept in pre-order

Resource = dict[str, int]


class QueueState(NamedTuple):
    """One queue's figures; dicts are over the queue's max keys unless said.

    ``used`` also keeps kinds outside max (display only); ``lent`` and ``borrowed`` hold only
    the kinds where they are above zero. The root's computed figures are over the kinds it
    distributes (every max key of the tree).
    """

    path: str
    parent: str | None
    min: Resource
    max: Resource
    weight: Resource
    allow_lent: bool
    system: bool
    auto_scale_min: Resource
    request: Resource
    limited_request: Resource
    used: Resource
    runtime: Resource
    lent: Resource
    borrowed: Resource


class Share(NamedTuple):
    """The fixed inputs of one parent's split of one resource, prepared once at build time."""

    kind: str
    members: list[int]  # indices of the children taking part (non-system, kind in their max)
    mins: list[int]
    weights: list[int]
    lends: list[bool]
    ranks: list[int]


class _Node:
    __slots__ = (
        "children", "demand", "explicit", "guaranteed", "index", "keys", "leaf",
        "lends", "limited", "max", "min", "own_used", "parent", "path", "players", "pool",
        "queue", "rank", "request", "runtime", "scaled", "shares", "systems", "used",
    )

    def __init__(self, queue: ElasticQueue, index: int, parent: int) -> None:
        self.queue = queue
        self.path = queue.path
        self.index = index
        self.parent = parent
        self.min: Resource = dict(queue.min)
        self.max: Resource = dict(queue.max)
        self.keys: tuple[str, ...] = tuple(queue.max)
        self.lends = queue.allow_lent
        self.rank = 0
        self.children: list[int] = []
        self.players: list[int] = []  # children in the fair split
        self.systems: list[int] = []  # system children: their usage comes off the pool
        self.leaf = True
        self.shares: list[Share] = []
        # inputs
        self.own_used: Resource = {}
        self.demand: Resource = {}
        self.explicit: Resource = {}
        # figures
        self.used: Resource = {}
        self.request: Resource = {}
        self.limited: Resource = {}
        self.guaranteed: Resource = {}
        self.scaled: Resource = {}
        self.runtime: Resource = {}
        self.pool: Resource = {}  # what this node shares among its children


def _ordered(queues: Sequence[ElasticQueue]) -> list[tuple[ElasticQueue, int]]:
    """(queue, parent index) in pre-order, siblings in the order given."""
    by_path: dict[str, ElasticQueue] = {}
    roots = []
    for queue in queues:
        if queue.path in by_path:
            raise InvalidRequest(messages.ERR_DUPLICATE_QUEUE.format(path=queue.path))
        by_path[queue.path] = queue
        if queue.parent is None:
            roots.append(queue)
    if len(roots) != 1:
        raise InvalidRequest(messages.ERR_ROOTS.format(count=len(roots)))
    kids: dict[str, list[ElasticQueue]] = {}
    for queue in queues:
        if queue.parent is not None:
            if queue.parent not in by_path:
                raise InvalidRequest(
                    messages.ERR_NO_PARENT.format(path=queue.path, parent=queue.parent)
                )
            kids.setdefault(queue.parent, []).append(queue)
    out: list[tuple[ElasticQueue, int]] = []
    stack: list[tuple[ElasticQueue, int]] = [(roots[0], -1)]
    while stack:
        queue, parent = stack.pop()
        index = len(out)
        out.append((queue, parent))
        stack.extend((child, index) for child in reversed(kids.get(queue.path, ())))
    if len(out) != len(queues):
        missing = next(q.path for q in queues if all(q is not o for o, _ in out))
        raise InvalidRequest(messages.ERR_UNREACHABLE.format(path=missing))
    return out


def _resource(value: object, what: str) -> Resource:
    if not isinstance(value, Mapping):
        raise InvalidRequest(messages.ERR_NOT_A_MAP.format(what=what, value=value))
    out: Resource = {}
    for kind, amount in value.items():
        if not isinstance(kind, str) or not kind:
            raise InvalidRequest(messages.ERR_KIND.format(kind=kind))
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
            raise InvalidRequest(messages.ERR_VALUE.format(what=what, kind=kind, value=amount))
        out[kind] = int(amount)
    return out


class ElasticTree:
    """Koordinator's runtime quota for one partition's queues (spec section 1).

    ``scale_min`` is EnableMinQuotaScale (1.6), ``guarantee_usage`` the guarantee gate (1.8).
    Besides the gate, ``set_guaranteed`` takes a guarantee from outside (Koordinator's
    calculator input, spec K3): the queue's effective min is then at least that.
    """

    def __init__(
        self,
        queues: Sequence[ElasticQueue],
        *,
        total: Mapping[str, int] | None = None,
        scale_min: bool = True,
        guarantee_usage: bool = False,
    ) -> None:
        self.scale_min = scale_min
        self.guarantee_usage = guarantee_usage
        self._total: Resource = {} if total is None else _resource(total, "total")
        self._nodes: list[_Node] = []
        self._index: dict[str, int] = {}
        self._build(_ordered(queues))
        # Guarantees (the gate's, or ones given by set_guaranteed) raise effective mins.
        self._floors = guarantee_usage
        self._up: set[int] = set()
        self._down: set[int] = set()
        self.recompute()

    # -- building -----------------------------------------------------------------------------

    def _build(self, ordered: list[tuple[ElasticQueue, int]]) -> None:
        nodes = self._nodes
        for index, (queue, parent) in enumerate(ordered):
            node = _Node(queue, index, parent)
            if self.guarantee_usage:
                node.lends = False  # spec 1.8: with the gate every group keeps its min
            nodes.append(node)
            self._index[queue.path] = index
            if parent >= 0:
                up = nodes[parent]
                up.children.append(index)
                up.leaf = False
                (up.systems if queue.system else up.players).append(index)
        root = nodes[ROOT]
        kinds = set(root.max)
        for node in nodes[1:]:
            if not node.queue.system:
                kinds.update(node.max)
        root.keys = tuple(sorted(kinds))
        for node in nodes:
            names = sorted(node.players, key=lambda i: nodes[i].path.rsplit(".", 1)[-1])
            for rank, i in enumerate(names):
                nodes[i].rank = rank
            for kind in node.keys:
                members = [i for i in node.players if kind in nodes[i].max]
                if members:
                    node.shares.append(
                        Share(
                            kind, members,
                            [nodes[i].min.get(kind, 0) for i in members],
                            [nodes[i].queue.weight.get(kind, 0) for i in members],
                            [nodes[i].lends for i in members],
                            [nodes[i].rank for i in members],
                        )
                    )
            node.scaled = {k: node.min.get(k, 0) for k in node.keys}
            # Keys the parent does not share stay at 0; the parent's split fills in the others.
            node.runtime = dict(node.max) if node.queue.system else dict.fromkeys(node.keys, 0)

    # -- inputs ---------------------------------------------------------------------------------

    def _node(self, path: str) -> _Node:
        index = self._index.get(path) if isinstance(path, str) else None
        if index is None:
            raise InvalidRequest(messages.ERR_UNKNOWN_QUEUE.format(path=path))
        return self._nodes[index]

    def set_total(self, total: Mapping[str, int]) -> None:
        """The cluster total shared at the root."""
        value = _resource(total, "total")
        if value != self._total:
            self._total = value
            self._down.add(ROOT)

    def set_used(self, path: str, used: Mapping[str, int]) -> None:
        """Usage bound directly to this queue (a leaf's whole usage); replaces the previous."""
        node = self._node(path)
        value = _resource(used, "used")
        if value != node.own_used:
            node.own_used = value
            self._up.add(node.index)

    def set_demand(self, path: str, demand: Mapping[str, int]) -> None:
        """Pending demand of a leaf queue; replaces the previous (``{}`` clears it)."""
        node = self._node(path)
        if not node.leaf:
            raise InvalidRequest(messages.ERR_PARENT_DEMAND.format(path=path))
        value = _resource(demand, "demand")
        if value != node.demand:
            node.demand = value
            self._up.add(node.index)

    def set_guaranteed(self, path: str, guaranteed: Mapping[str, int]) -> None:
        """A guarantee reported from outside (Koordinator's ``guaranteed``): the queue's
        effective min becomes at least this, with or without ``guarantee_usage``."""
        node = self._node(path)
        value = _resource(guaranteed, "guaranteed")
        if value != node.explicit:
            node.explicit = value
            self._floors = True
            self._up.add(node.index)

    # -- computing ------------------------------------------------------------------------------

    def recompute(self) -> None:
        """Every figure from scratch."""
        nodes = self._nodes
        for node in reversed(nodes):
            self._aggregate(node, None)
        for node in nodes:
            if not node.leaf or node.index == ROOT:
                self._distribute(node, None)
        self._up.clear()
        self._down.clear()

    def refresh(self) -> frozenset[str]:
        """Recompute what the inputs set since the last refresh can affect; answers the paths
        whose request, limited request, used, runtime or autoScaleMin changed."""
        nodes = self._nodes
        changed: set[str] = set()
        down = self._down
        # Children have larger indices than their parents: largest first is bottom-up.
        heap = [-i for i in self._up]
        heapq.heapify(heap)
        queued = set(self._up)
        while heap:
            node = nodes[-heapq.heappop(heap)]
            used_moved, share_moved = self._aggregate(node, changed)
            parent = node.parent
            if parent < 0 or not (used_moved or share_moved):
                continue
            if parent not in queued:
                queued.add(parent)
                heapq.heappush(heap, -parent)
            if used_moved if node.queue.system else share_moved:
                down.add(parent)
        heap = list(down)
        heapq.heapify(heap)
        queued = set(down)
        while heap:
            for child in self._distribute(nodes[heapq.heappop(heap)], changed):
                if child not in queued:
                    queued.add(child)
                    heapq.heappush(heap, child)
        self._up.clear()
        down.clear()
        return frozenset(changed)

    def _aggregate(self, node: _Node, changed: set[str] | None) -> tuple[bool, bool]:
        """used, request, limited request and guaranteed of one node from its inputs and its
        children's figures; answers (used changed, what the parent's split reads changed)."""
        nodes = self._nodes
        keys = node.keys
        used = dict(node.own_used)
        for i in node.children:
            for kind, amount in nodes[i].used.items():
                used[kind] = used.get(kind, 0) + amount
        if node.leaf:
            demand = node.demand
            request = {k: used.get(k, 0) + demand.get(k, 0) for k in keys}
        else:
            own = node.own_used
            request = {k: own.get(k, 0) for k in keys}
            for i in node.players:
                limited = nodes[i].limited
                for k in keys:
                    request[k] += limited.get(k, 0)
            for i in node.systems:
                child_used = nodes[i].used
                for k in keys:
                    request[k] += child_used.get(k, 0)
        if not node.lends:
            low = node.min
            for k in keys:
                if request[k] < low.get(k, 0):
                    request[k] = low[k]
        if node.index == ROOT:
            limited = request
        else:
            high = node.max
            limited = {k: request[k] if request[k] < high[k] else high[k] for k in keys}
        guaranteed = self._guarantee(node, used, keys) if self._floors else node.guaranteed
        used_moved = used != node.used
        share_moved = limited != node.limited or guaranteed != node.guaranteed
        if changed is not None and (used_moved or share_moved or request != node.request):
            changed.add(node.path)
        node.used = used
        node.request = request
        node.limited = limited
        node.guaranteed = guaranteed
        return used_moved, share_moved

    def _guarantee(self, node: _Node, used: Resource, keys: tuple[str, ...]) -> Resource:
        explicit = node.explicit
        if not self.guarantee_usage:
            return {k: explicit[k] for k in keys if k in explicit}
        # spec 1.8: allocated(leaf) = used, allocated(parent) = Σ children's guaranteed.
        if node.leaf:
            allocated = {k: used.get(k, 0) for k in keys}
        else:
            allocated = dict.fromkeys(keys, 0)
            for i in node.players:
                child = self._nodes[i].guaranteed
                for k in keys:
                    allocated[k] += child.get(k, 0)
        low = node.min
        return {k: max(allocated[k], low.get(k, 0), explicit.get(k, 0)) for k in keys}

    def _pool(self, node: _Node) -> Resource:
        """What a parent shares: its runtime (the root: the cluster total) less what its system
        children use, never below zero."""
        base = self._total if node.index == ROOT else node.runtime
        nodes = self._nodes
        pool: Resource = {}
        for kind in node.keys:
            value = base.get(kind, 0)
            for i in node.systems:
                value -= nodes[i].used.get(kind, 0)
            pool[kind] = value if value > 0 else 0
        return pool

    def _share(
        self, share: Share, pool: int, trace: list[dict[str, Any]] | None = None
    ) -> tuple[list[int], list[int] | None, list[int]]:
        """One parent's split of one resource: (runtimes, scaled mins or None, effective mins)."""
        nodes = self._nodes
        scaled = scale_mins(pool, share.mins) if self.scale_min else None
        effective = share.mins if scaled is None else scaled
        if self._floors:
            effective = [
                max(low, nodes[i].guaranteed.get(share.kind, 0))
                for low, i in zip(effective, share.members, strict=True)
            ]
        kind = share.kind
        requests = [nodes[i].limited[kind] for i in share.members]
        runtimes = split(pool, requests, effective, share.weights, share.lends, share.ranks, trace)
        return runtimes, scaled, effective

    def _distribute(self, node: _Node, changed: set[str] | None) -> list[int]:
        """The runtimes and scaled mins of a parent's children; answers the children whose
        runtime changed and who have children of their own (their split is due again)."""
        nodes = self._nodes
        pool = self._pool(node)
        node.pool = pool
        if node.index == ROOT and pool != node.runtime:
            node.runtime = pool
            if changed is not None:
                changed.add(node.path)
        runtimes = {i: dict.fromkeys(nodes[i].keys, 0) for i in node.players}
        scaled_mins = {i: {k: nodes[i].min.get(k, 0) for k in nodes[i].keys} for i in node.players}
        for share in node.shares:
            kind = share.kind
            got, scaled, _ = self._share(share, pool[kind])
            for j, i in enumerate(share.members):
                runtimes[i][kind] = got[j]
                if scaled is not None:
                    scaled_mins[i][kind] = scaled[j]
        again = []
        for i in node.players:
            child = nodes[i]
            runtime = runtimes[i]
            scaled_min = scaled_mins[i]
            moved = runtime != child.runtime
            if moved or scaled_min != child.scaled:
                if changed is not None:
                    changed.add(child.path)
                child.runtime = runtime
                child.scaled = scaled_min
                if moved and not child.leaf:
                    again.append(i)
        return again

    # -- reading --------------------------------------------------------------------------------

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and path in self._index

    def is_leaf(self, path: str) -> bool:
        return self._node(path).leaf

    @property
    def pool(self) -> Resource:
        """The root's pool: the cluster total less the usage of system queues under the root."""
        return dict(self._nodes[ROOT].pool)

    def runtime(self, path: str) -> Resource:
        return dict(self._node(path).runtime)

    def unallocated(self, path: str) -> Resource:
        """A parent's pool less its children's runtimes, positive parts only."""
        node = self._node(path)
        nodes = self._nodes
        out: Resource = {}
        for kind, value in node.pool.items():
            for i in node.players:
                value -= nodes[i].runtime.get(kind, 0)
            if value > 0:
                out[kind] = value
        return out

    def state(self, path: str) -> QueueState:
        return self._state(self._node(path))

    def states(self) -> list[QueueState]:
        return [self._state(node) for node in self._nodes]

    def _state(self, node: _Node) -> QueueState:
        queue = node.queue
        runtime = dict(node.runtime)
        lent: Resource = {}
        borrowed: Resource = {}
        if node.index != ROOT and not queue.system:
            for kind in node.keys:
                gap = node.min.get(kind, 0) - runtime.get(kind, 0)
                if gap > 0:
                    lent[kind] = gap
                elif gap < 0:
                    borrowed[kind] = -gap
        used = dict.fromkeys(node.keys, 0)
        used.update(node.used)
        return QueueState(
            path=node.path,
            parent=queue.parent,
            min=dict(queue.min),
            max=dict(queue.max),
            weight=dict(queue.weight),
            allow_lent=queue.allow_lent,
            system=queue.system,
            auto_scale_min=dict(node.scaled),
            request=dict(node.request),
            limited_request=dict(node.limited),
            used=used,
            runtime=runtime,
            lent=lent,
            borrowed=borrowed,
        )

    def over_used(self) -> dict[str, Resource]:
        """Queues (not the root, not system queues) using more than their runtime."""
        out: dict[str, Resource] = {}
        for node in self._nodes[1:]:
            if node.queue.system:
                continue
            over = {}
            for kind in node.keys:
                gap = node.used.get(kind, 0) - node.runtime.get(kind, 0)
                if gap > 0:
                    over[kind] = gap
            if over:
                out[node.path] = over
        return out

    def explain(self, path: str, kind: str) -> dict[str, Any]:
        """How one queue's runtime of one resource came about; see ``trackers.elastic.explain``."""
        return explain(self, self._node(path), kind)
