"""Usage trackers: one per user, one per group, and one for the partition's queues.

A tracker indexes its nodes by queue path and links each node to its parent: the hot path finds
the leaf with one lookup and walks up through the parents. Each node counts its children so that
pruning (spec 2.7) needs no scan.
"""

from __future__ import annotations

from collections.abc import Sequence


class Node(dict):
    """A node's usage, as a map of resource type to amount, with its running apps and links.

    The node is its own usage dict: one object fewer to reach on the hot path, which is bound by
    memory access once there are many users.
    """

    __slots__ = ("apps", "children", "parent")

    def __init__(self, parent: Node | None = None) -> None:
        self.apps: set[str] = set()
        self.children = 0
        self.parent = parent


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

    def add(self, prefixes: Sequence[str], app: str, amounts: list[tuple[str, int]]) -> None:
        node = self.nodes.get(prefixes[-1])
        if node is None:
            node = self._grow(prefixes)
        while node is not None:
            for kind, amount in amounts:
                total = node.get(kind, 0) + amount
                if total:
                    node[kind] = total
                else:
                    del node[kind]
            node.apps.add(app)
            node = node.parent

    def _grow(self, prefixes: Sequence[str]) -> Node:
        nodes = self.nodes
        parent = None
        for path in prefixes:
            node = nodes.get(path)
            if node is None:
                node = nodes[path] = Node(parent)
                if parent is not None:
                    parent.children += 1
            parent = node
        return parent

    def subtract(
        self, prefixes: Sequence[str], app: str, amounts: list[tuple[str, int]], remove_app: bool
    ) -> None:
        """Take ``amounts`` off every node of the path and prune what is left empty.

        The caller has checked that the leaf node exists; a node never outlives its parent.
        """
        leaf = node = self.nodes[prefixes[-1]]
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

    @property
    def empty(self) -> bool:
        return not self.nodes
