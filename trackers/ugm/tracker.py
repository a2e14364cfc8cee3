"""Usage trackers: one per user, one per group, and one for the partition's queues.

A tracker indexes its nodes by queue path and links each node to its parent: the hot path finds
the leaf with one lookup and walks up through the parents. Each node counts its children so that
pruning (spec 2.7) needs no scan.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

# A request's amounts: (resource type, amount) pairs, zero amounts left out. A sequence: a tracker
# goes over it once per level.
Amounts = Sequence[tuple[str, int]]


class Node(dict[str, int]):
    """A node's usage, as a map of resource type to amount, with its running apps and links.

    The node is its own usage dict: one object fewer to reach on the hot path, which is bound by
    memory access once there are many users.
    """

    __slots__ = ("apps", "children", "parent")

    def __init__(self, parent: Node | None = None) -> None:
        self.apps: set[str] = set()
        self.children = 0
        self.parent = parent


# What a level without a node reads as: no usage, no running apps. Never written to.
EMPTY_NODE = Node()


class Tracker:
    """Usage and running applications of one user, one group or the whole partition.

    ``links`` maps each tracked application to its counterpart: for a user the group the app
    counts against (``None`` for none), for a group the user who runs it.
    """

    __slots__ = ("links", "name", "nodes")

    def __init__(self, name: str) -> None:
        self.name = name
        self.nodes: dict[str, Node] = {}
        self.links: dict[str, str | None] = {}

    def add(self, prefixes: Sequence[str], app: str, amounts: Amounts) -> None:
        node: Node | None = self.nodes.get(prefixes[-1])
        if node is None:
            node = self._grow(prefixes)
        # An app lives in one queue (spec 2.2), and adding it there adds it on every level above:
        # once its queue counts it, the ancestors' (large) sets need no insert.
        counted = app in node.apps
        while node is not None:
            # _add_into's loop, inlined: this runs for every level of every increase.
            for kind, amount in amounts:
                total = node.get(kind, 0) + amount
                if total:
                    node[kind] = total
                else:
                    del node[kind]
            if not counted:
                node.apps.add(app)
            node = node.parent

    def _grow(self, prefixes: Sequence[str]) -> Node:
        nodes = self.nodes
        parent: Node | None = None
        for path in prefixes:
            node = nodes.get(path)
            if node is None:
                node = nodes[path] = Node(parent)
                if parent is not None:
                    parent.children += 1
            parent = node
        assert parent is not None, "a queue path has at least its root"
        return parent

    def subtract(
        self, prefixes: Sequence[str], app: str, amounts: Amounts, remove_app: bool
    ) -> None:
        """Take ``amounts`` off every node of the path and prune what is left empty.

        The user's own usage decides whether a release is tracked (D8). Here the node may be gone
        when other users' releases offset this one to zero; it is made again so that this
        tracker keeps moving with the user's.
        """
        leaf = self.nodes.get(prefixes[-1])
        if leaf is None:
            leaf = self._grow(prefixes)
        node: Node | None = leaf
        while node is not None:
            for kind, amount in amounts:
                total = node.get(kind, 0) - amount
                if total:
                    node[kind] = total
                else:
                    del node[kind]
            if remove_app:
                node.apps.discard(app)
            node = node.parent
        node, index = leaf, len(prefixes) - 1
        while node is not None and not (node or node.apps or node.children):
            del self.nodes[prefixes[index]]
            node = node.parent
            if node is not None:
                node.children -= 1
            index -= 1

    def node_at(self, path: str) -> Node:
        return self.nodes.get(path, EMPTY_NODE)

    def has(self, path: str) -> bool:
        return path in self.nodes

    def levels(self) -> dict[str, Node]:
        return self.nodes

    @property
    def empty(self) -> bool:
        return not self.nodes


class Target(Node):
    """A queue where a user's usage was changed; ``prefixes`` are its path and its ancestors."""

    __slots__ = ("prefixes",)

    def __init__(self, prefixes: tuple[str, ...]) -> None:
        super().__init__()
        self.prefixes = prefixes


class UserTracker:
    """Usage of one user, kept only at the queues it was changed at (its targets).

    A user works in a handful of queues, so summing them when a level is asked for is cheaper than
    keeping a node per level: an increase touches one node instead of one per level, and that is
    what bounds throughput once many users' state no longer fits in the CPU caches. The sums equal
    the per-level tree of spec 2.1 (a level's usage is what was added minus what was taken at or
    below it); a level's running apps are those of the queues below it, as an app lives in one
    queue.
    """

    __slots__ = ("links", "name", "targets")

    def __init__(self, name: str) -> None:
        self.name = name
        self.targets: dict[str, Target] = {}
        self.links: dict[str, str | None] = {}

    def node_at(self, path: str) -> Node:
        """The level as a read-only node: the target itself when it is the only one below."""
        found: Target | None = None
        for target in self.targets.values():
            if path in target.prefixes:
                if found is not None:
                    return self._sum_at(path)
                found = target
        return found if found is not None else EMPTY_NODE

    def _sum_at(self, path: str) -> Node:
        total = Node()
        for target in self.targets.values():
            if path in target.prefixes:
                _add_into(total, target.items(), 1)
                total.apps |= target.apps
        return total

    def has(self, path: str) -> bool:
        return path in self.targets or any(path in t.prefixes for t in self.targets.values())

    def levels(self) -> dict[str, Node]:
        """Every level with usage or apps below it, summed: the tree the REST shapes show. The
        nodes are to be read, not changed: a user with one target (most users) has the same
        figures at every level, so its levels share one node (a write's impact reads 10,000
        users' levels, a copy per level was most of it)."""
        if len(self.targets) == 1:
            (target,) = self.targets.values()
            shared = Node()
            shared.update(target)
            shared.apps = set(target.apps)
            return dict.fromkeys(target.prefixes, shared)
        nodes: dict[str, Node] = {}
        for target in self.targets.values():
            for path in target.prefixes:
                node = nodes.get(path)
                if node is None:
                    node = nodes[path] = Node()
                _add_into(node, target.items(), 1)
                node.apps |= target.apps
        return nodes

    def add(self, prefixes: tuple[str, ...], app: str, amounts: Amounts) -> None:
        target = self.targets.get(prefixes[-1])
        if target is None:
            target = self.targets[prefixes[-1]] = Target(prefixes)
        _add_into(target, amounts, 1)
        target.apps.add(app)

    def subtract(
        self, prefixes: tuple[str, ...], app: str, amounts: Amounts, remove_app: bool
    ) -> None:
        """Take ``amounts`` off at the path; the caller has checked ``has(path)``.

        A release at a level above the user's queues is recorded there, so the sums stay exact.
        """
        leaf = prefixes[-1]
        target = self.targets.get(leaf)
        if target is None:
            target = self.targets[leaf] = Target(prefixes)
        _add_into(target, amounts, -1)
        if remove_app:
            for below in list(self.targets.values()):
                if leaf in below.prefixes:
                    below.apps.discard(app)
                    if not below and not below.apps:
                        del self.targets[below.prefixes[-1]]
        elif not target and not target.apps:
            del self.targets[leaf]

    @property
    def empty(self) -> bool:
        return not self.targets


def _add_into(usage: dict[str, int], amounts: Iterable[tuple[str, int]], sign: int) -> None:
    for kind, amount in amounts:
        total = usage.get(kind, 0) + sign * amount
        if total:
            usage[kind] = total
        else:
            del usage[kind]
