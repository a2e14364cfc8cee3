"""A quota tree's state: nodes, the consumers placed on them, and the primitive changes.

Every change goes through a few journaled primitives (``attach``, ``detach``, ``charge``,
``register``, ``unregister``, ``set_reasons``), so any operation can be rolled back exactly.
The allocation algorithm lives in ``allocate.py`` and ``preempt.py``; this module has the
structure, de-allocation with slide-down (spec 2.5), force placement (2.6, 2.8), export and
``state()``.

Indexes, so that a tree of 900 leaves with 10,000 consumers answers in well under a
millisecond (spec section 4):

* ``Node.line`` is the path root .. node, so "the child of n towards leaf g" is
  ``g.line[n.depth + 1]``, and Euler-tour intervals (``tin``/``tout``) answer "is g in n's
  subtree" in O(1).
* The consumers at a node (``held``, aNode == node) are kept in ordering-stamp order, which is
  insertion order (each insertion takes the tree's next stamp). They are also indexed by the
  child subtree their group lies in (``by_child``: slide-down into a child looks only at those
  that could move there) and by competition class (``by_class``: priority, type,
  unpreemptable, with the sum of their requests, so slideUp and preemption can tell at once
  whether the candidates could ever make room, and walk only the candidates).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from trackers.errors import InvalidRequest
from trackers.quotatree import messages as m
from trackers.quotatree.document import TreeRequest, TreeSpec, build_tree
from trackers.quotatree.journal import Journal, Spot
from trackers.resources import INT64_MAX

# How a caller writes an amount of a resource for people, ``(resource, amount) -> text``: the
# trees count in whatever unit their owner chose, so only the owner knows it (quotaweb: bytes,
# millicores). Without one the steps say the plain integers.
Quantity = Callable[[str, int], str]

# (priority, type, unpreemptable): consumers of one class compete the same way.
Klass = tuple[int, int, bool]


class Node:
    """One quota node. ``alloc`` counts every consumer whose aNode is in this node's subtree."""

    __slots__ = (
        "alloc",
        "by_child",
        "by_class",
        "children",
        "class_sums",
        "depth",
        "hard",
        "held",
        "line",
        "name",
        "parent",
        "quota",
        "tin",
        "tout",
    )

    def __init__(self, name: str, parent: Node | None, hard: bool, quota: list[int]) -> None:
        self.name = name
        self.parent = parent
        self.children: list[Node] = []
        self.hard = hard
        self.quota = quota
        self.alloc = [0] * len(quota)
        self.depth: int = 0 if parent is None else parent.depth + 1
        self.line: tuple[Node, ...] = (self,) if parent is None else (*parent.line, self)
        self.tin = 0
        self.tout = 0
        self.held: dict[str, Placement] = {}
        # child towards the consumer's group (None: the group is this node, or is gone)
        self.by_child: dict[Node | None, dict[str, Placement]] = {}
        self.by_class: dict[Klass, dict[str, Placement]] = {}
        self.class_sums: dict[Klass, list[int]] = {}

    def contains(self, other: Node) -> bool:
        """Whether ``other`` is this node or below it."""
        return self.tin <= other.tin <= self.tout

    def __repr__(self) -> str:
        return f"Node({self.name})"


class Placement:
    """A consumer allocated (or being allocated) in one tree.

    ``group`` is the gNode (None when a tree update removed it and the consumer was placed at
    the root), ``node`` the aNode, ``stamp`` its ordering stamp among consumers at that node.
    ``reasons`` says why it is where it is.
    """

    __slots__ = (
        "group",
        "group_name",
        "id",
        "klass",
        "node",
        "priority",
        "reasons",
        "request",
        "stamp",
        "tree",
        "type",
        "unpreemptable",
        "vector",
    )

    def __init__(
        self, cid: str, tree: QuotaTree, group: Node | None, group_name: str,
        request: TreeRequest, vector: list[int],
    ) -> None:
        self.id = cid
        self.tree = tree
        self.group = group
        self.group_name = group_name
        self.request = request
        self.vector = vector
        self.priority = request.priority
        self.type = request.type
        self.unpreemptable = request.unpreemptable
        self.klass: Klass = (request.priority, request.type, request.unpreemptable)
        self.node: Node | None = None
        self.stamp = 0
        self.reasons: tuple[str, ...] = ()

    @property
    def spot(self) -> Spot:
        return None if self.node is None else (self.node.name, self.stamp)

    def view(self) -> dict[str, Any]:
        """The consumer as the API and pages show it."""
        tree = self.tree
        return {
            "id": self.id,
            "node": self.node.name if self.node is not None else None,
            "groupID": self.group_name,
            "request": dict(zip(tree.resources, self.vector, strict=True)),
            "priority": self.priority,
            "type": self.type,
            "unPreemptable": self.unpreemptable,
            "stamp": self.stamp,
            "borrowing": self.node is not None and self.node is not self.group,
            "reasons": list(self.reasons),
        }

    def __repr__(self) -> str:
        where = self.node.name if self.node is not None else "-"
        return f"Placement({self.id}@{self.tree.name}:{where})"


class QuotaTree:
    """One tree's nodes and placements. Not thread-safe: the manager's lock guards it.

    ``journal`` is the log the primitives write to; the manager gives each operation a fresh
    one. ``mode`` is the tree's allocation mode (spec 2.6), kept by the manager.
    """

    def __init__(
        self, spec: TreeSpec, mode: str = "normal", quantity: Quantity | None = None
    ) -> None:
        self.spec = spec
        self.quantity = quantity
        self.name = spec.name
        self.resources = spec.resources
        self.size = len(spec.resources)
        self.nodes: dict[str, Node] = {}
        self.root: Node | None = None
        for node_spec in spec.nodes.values():
            parent = self.nodes[node_spec.parent] if node_spec.parent is not None else None
            node = Node(node_spec.name, parent, node_spec.hard,
                        [node_spec.quota.get(res, 0) for res in spec.resources])
            if parent is None:
                self.root = node
            else:
                parent.children.append(node)
            self.nodes[node.name] = node
        self._number()
        self.leaves = frozenset(n.name for n in self.nodes.values() if not n.children)
        self.placements: dict[str, Placement] = {}
        self.next_stamp = 1
        self.journal = Journal()
        self.mode = mode

    def _number(self) -> None:
        """Euler-tour intervals: a node's subtree is the range [tin, tout] of pre-order numbers."""
        if self.root is None:
            return
        counter = 0
        stack: list[tuple[Node, bool]] = [(self.root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                node.tout = counter - 1
                continue
            node.tin = counter
            counter += 1
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(node.children))

    # --- reading ------------------------------------------------------------------------------

    def vector(self, request: Mapping[str, int] | Sequence[int]) -> list[int]:
        """A request as a vector in the tree's resource order.

        ``InvalidRequest`` for a negative or non-integer amount, a resource the tree does not
        have with an amount above 0 (a 0 asks for nothing and is ignored), or a list of the
        wrong length (its text is the library's "Expected <n> resources" message).
        """
        if not isinstance(request, Mapping):
            values = list(request)
            if len(values) != self.size:
                raise InvalidRequest(m.WRONG_LENGTH.format(
                    expected=self.size, tree=self.name, received=len(values)))
            request = dict(zip(self.resources, values, strict=True))
        vector = [0] * self.size
        index = {res: i for i, res in enumerate(self.resources)}
        for res, amount in request.items():
            if isinstance(amount, bool) or not isinstance(amount, int) or not (
                0 <= amount <= INT64_MAX
            ):
                raise InvalidRequest(m.ERR_REQUEST.format(resource=res, value=amount))
            at = index.get(res)
            if at is None:
                if amount:
                    raise InvalidRequest(m.ERR_REQUEST_RESOURCE.format(resource=res,
                                                                       tree=self.name))
                continue
            vector[at] = amount
        return vector

    def group_node(self, group: str) -> Node | None:
        """The leaf named ``group``; None when there is no such leaf."""
        return self.nodes.get(group) if group in self.leaves else None

    def fits(self, node: Node, vector: Sequence[int]) -> bool:
        alloc, quota = node.alloc, node.quota
        # A plain loop: this is the hottest test of the engine, and all() over a generator
        # costs about twice as much.
        for i, amount in enumerate(vector):  # noqa: SIM110
            if alloc[i] + amount > quota[i]:
                return False
        return True

    def usage(self, node: Node, vector: Sequence[int], *, failing_only: bool) -> str:
        """``cpu 2+1 > 2``: the sum a fit test compared, per resource, for the steps; with a
        ``quantity`` writer, ``memory 48 GiB + 16 GiB > 60 GiB``."""
        parts = []
        write = self.quantity
        for i, res in enumerate(self.resources):
            alloc, amount, quota = node.alloc[i], vector[i], node.quota[i]
            over = alloc + amount > quota
            if over or not failing_only:
                sign = ">" if over else "<="
                if write is None:
                    parts.append(f"{res} {alloc}+{amount} {sign} {quota}")
                else:
                    # Amounts with units need the spaces to be read apart.
                    parts.append(
                        f"{res} {write(res, alloc)} + {write(res, amount)} {sign} "
                        f"{write(res, quota)}"
                    )
        return ", ".join(parts)

    def candidates(self, node: Node, wanted: Iterable[Klass]) -> Iterator[Placement]:
        """The consumers at ``node`` of the given classes, in list (stamp) order."""
        buckets = [node.by_class[k] for k in wanted if node.by_class.get(k)]
        if len(buckets) == 1:
            return iter(buckets[0].values())
        if len(buckets) == len(node.by_class):
            return iter(node.held.values())
        return _merge_by_stamp(buckets)

    def slack(self, node: Node) -> list[int]:
        """Spec 2.2a: the node's quota minus its children's quotas (a leaf's slack is its
        quota). Negative means the children are promised more than the node has."""
        result = list(node.quota)
        for child in node.children:
            for i, amount in enumerate(child.quota):
                result[i] -= amount
        return result

    def state(self) -> dict[str, Any]:
        """The whole tree as plain data, for equality checks and pages: per node (parents first)
        its parent, hard flag, quota, allocated, slack and the consumer ids placed there, in
        order."""
        res = self.resources
        nodes = {}
        for node in self.nodes.values():
            nodes[node.name] = {
                "parent": node.parent.name if node.parent is not None else None,
                "hard": node.hard,
                "quota": dict(zip(res, node.quota, strict=True)),
                "allocated": dict(zip(res, node.alloc, strict=True)),
                "slack": dict(zip(res, self.slack(node), strict=True)),
                "consumers": list(node.held),
            }
        return {
            "name": self.name,
            "resources": list(res),
            "root": self.root.name if self.root is not None else None,
            "nodes": nodes,
        }

    # --- journaled primitives -----------------------------------------------------------------

    def attach(self, p: Placement, node: Node, stamp: int | None = None) -> None:
        """Put ``p`` on ``node`` (does not charge ``alloc``). A new stamp puts it last."""
        self.journal.touch(p, p.spot)
        if stamp is None:
            stamp = self.next_stamp
            self.next_stamp += 1
        elif stamp >= self.next_stamp:
            self.next_stamp = stamp + 1
        self._insert(p, node, stamp)
        self.journal.record(self._remove, p)

    def detach(self, p: Placement) -> None:
        """Take ``p`` off its node (does not change ``alloc``)."""
        node = p.node
        assert node is not None
        self.journal.touch(p, p.spot)
        stamp = p.stamp
        self._remove(p)
        self.journal.record(self._insert, p, node, stamp)

    def charge(self, node: Node, vector: Sequence[int], sign: int = 1) -> None:
        """``alloc(node) += sign * vector``."""
        _add(node.alloc, vector, sign)
        self.journal.record(_add, node.alloc, vector, -sign)

    def charge_line(self, node: Node, vector: Sequence[int], sign: int = 1) -> None:
        """Charge ``node`` and every ancestor."""
        for each in node.line:
            self.charge(each, vector, sign)

    def register(self, p: Placement) -> None:
        self.placements[p.id] = p
        self.journal.record(self.placements.pop, p.id)

    def unregister(self, p: Placement) -> None:
        del self.placements[p.id]
        self.journal.record(self.placements.__setitem__, p.id, p)

    def set_reasons(self, p: Placement, reasons: Sequence[str]) -> None:
        self.journal.record(setattr, p, "reasons", p.reasons)
        p.reasons = tuple(reasons)

    def move(self, p: Placement, to: Node) -> None:
        """Re-attach ``p`` at ``to`` (last in its list); charges nothing."""
        self.detach(p)
        self.attach(p, to)

    # --- operations built on the primitives --------------------------------------------------

    def deallocate(self, p: Placement, steps: list[str]) -> None:
        """Spec 2.5: remove ``p``, then from its aNode up, un-charge each node and slide down
        into it the consumers at its parent whose group is below it and that now fit there.
        Each consumer moves down at most one level per de-allocation (as the library does)."""
        node = p.node
        assert node is not None
        self.detach(p)
        self.unregister(p)
        vector = p.vector
        for n in reversed(node.line):
            self.charge(n, vector, -1)
            parent = n.parent
            if parent is None:
                continue
            bucket = parent.by_child.get(n)
            if not bucket:
                continue
            for x in list(bucket.values()):
                if self.fits(n, x.vector):
                    self.move(x, n)
                    self.charge(n, x.vector)
                    steps.append(m.STEP_SLID_DOWN.format(consumer=x.id, parent=parent.name,
                                                         node=n.name))
                    self.set_reasons(x, [m.STEP_SLID_DOWN_AFTER.format(
                        parent=parent.name, node=n.name, by=p.id)])

    def force_place(self, p: Placement, node: Node, stamp: int | None = None) -> None:
        """Place ``p`` at ``node`` and charge the path to the root, without any check (spec
        2.6 maintenance mode, 2.8 tree updates): quotas may be exceeded."""
        self.attach(p, node, stamp)
        self.charge_line(node, p.vector)
        self.register(p)

    def new_placement(self, cid: str, request: TreeRequest) -> Placement:
        """A placement for ``request`` (not yet attached). ``InvalidRequest`` for a bad
        request; the group may be unknown (the caller decides what that means)."""
        vector = self.vector(request.request)
        normal = TreeRequest(
            request.group, dict(zip(self.resources, vector, strict=True)), request.priority,
            request.type, request.unpreemptable,
        )
        return Placement(cid, self, self.group_node(request.group), request.group, normal, vector)

    # --- export / restore ---------------------------------------------------------------------

    def export(self) -> dict[str, Any]:
        """Everything needed to rebuild this tree exactly: its document, mode and placements
        (in stamp order, with their aNode, stamp, request and reasons)."""
        ordered = sorted(self.placements.values(), key=lambda p: p.stamp)
        return {
            "tree": self.spec.document(),
            "mode": self.mode,
            "placements": [
                {
                    "id": p.id,
                    "node": p.node.name if p.node is not None else None,
                    "stamp": p.stamp,
                    "reasons": list(p.reasons),
                    **p.request.as_dict(),
                }
                for p in ordered
            ],
        }

    @classmethod
    def restore(cls, data: Mapping[str, Any]) -> QuotaTree:
        """The tree ``export`` described, with every consumer back at its aNode in its order.

        ``InvalidRequest`` if a placement names a node the tree does not have, or one that is
        not on the path from its group to the root.
        """
        spec, _problems = build_tree(data["tree"])
        tree = cls(spec, str(data.get("mode", "normal")))
        rows = sorted(data.get("placements", ()), key=lambda row: int(row["stamp"]))
        for row in rows:
            request = TreeRequest(
                str(row["groupID"]), dict(row["request"]), int(row.get("priority", 0)),
                int(row.get("type", 0)), bool(row.get("unPreemptable", False)),
            )
            p = Placement(str(row["id"]), tree, tree.nodes.get(request.group), request.group,
                          request, tree.vector(request.request))
            node = tree.nodes.get(str(row["node"]))
            problem = None
            if node is None:
                problem = f"consumer {p.id} is placed on unknown node {row['node']}"
            elif p.group is not None and not node.contains(p.group):
                problem = f"consumer {p.id} is placed on {node.name}, not above {p.group.name}"
            elif p.id in tree.placements:
                problem = f"consumer {p.id} is placed twice"
            if problem is not None or node is None:
                raise InvalidRequest(m.BAD_RESTORE.format(tree=spec.name, problem=problem))
            tree.force_place(p, node, int(row["stamp"]))
            p.reasons = tuple(row.get("reasons", ()))
        tree.journal = Journal()
        return tree

    # --- raw index maintenance (not journaled: the primitives above journal them) -------------

    def _insert(self, p: Placement, node: Node, stamp: int) -> None:
        p.node = node
        p.stamp = stamp
        group = p.group
        key = group.line[node.depth + 1] if group is not None and group is not node else None
        _put(node.held, p)
        _put(node.by_child.setdefault(key, {}), p)
        _put(node.by_class.setdefault(p.klass, {}), p)
        sums = node.class_sums.get(p.klass)
        if sums is None:
            node.class_sums[p.klass] = list(p.vector)
        else:
            _add(sums, p.vector, 1)

    def _remove(self, p: Placement) -> None:
        node = p.node
        assert node is not None
        group = p.group
        key = group.line[node.depth + 1] if group is not None and group is not node else None
        del node.held[p.id]
        bucket = node.by_child[key]
        del bucket[p.id]
        if not bucket:
            del node.by_child[key]
        klass = node.by_class[p.klass]
        del klass[p.id]
        if klass:
            _add(node.class_sums[p.klass], p.vector, -1)
        else:
            del node.by_class[p.klass]
            del node.class_sums[p.klass]
        p.node = None


def _add(target: list[int], vector: Sequence[int], sign: int) -> None:
    for i, amount in enumerate(vector):
        target[i] += sign * amount


def _put(bucket: dict[str, Placement], p: Placement) -> None:
    """Insert keeping stamp order: new stamps append; a consumer put back by an undo (an old
    stamp) makes the bucket re-sort, which only rollbacks pay."""
    if bucket and next(reversed(bucket.values())).stamp > p.stamp:
        bucket[p.id] = p
        ordered = sorted(bucket.values(), key=lambda x: x.stamp)
        bucket.clear()
        for x in ordered:
            bucket[x.id] = x
    else:
        bucket[p.id] = p


def _merge_by_stamp(buckets: list[dict[str, Placement]]) -> Iterator[Placement]:
    return heapq.merge(*(b.values() for b in buckets), key=lambda x: x.stamp)
