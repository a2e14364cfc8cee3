"""Usage trackers: one per user, one per group, and one for the partition's queues.

A tracker keeps its nodes in a flat dict keyed by queue path rather than as a linked tree: the
hot path touches every prefix of one path, and a dict lookup per prefix is the cheapest way there.
Each node counts its children so that pruning (spec 2.7) needs no scan.
"""

from __future__ import annotations

from collections.abc import Sequence


class Node:
    __slots__ = ("apps", "children", "usage")

    def __init__(self) -> None:
        self.usage: dict[str, int] = {}
        self.apps: set[str] = set()
        self.children = 0


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
        nodes = self.nodes
        parent = None
        for path in prefixes:
            node = nodes.get(path)
            if node is None:
                node = nodes[path] = Node()
                if parent is not None:
                    parent.children += 1
            usage = node.usage
            for kind, amount in amounts:
                total = usage.get(kind, 0) + amount
                if total:
                    usage[kind] = total
                else:
                    del usage[kind]
            node.apps.add(app)
            parent = node

    def subtract(
        self, prefixes: Sequence[str], app: str, amounts: list[tuple[str, int]], remove_app: bool
    ) -> None:
        """Take ``amounts`` off every node of the path and prune what is left empty.

        The caller has checked that the leaf node exists, and a node never outlives its parent,
        so every prefix has a node.
        """
        nodes = self.nodes
        for path in prefixes:
            node = nodes[path]
            usage = node.usage
            for kind, amount in amounts:
                total = usage.get(kind, 0) - amount
                if total:
                    usage[kind] = total
                else:
                    del usage[kind]
            if remove_app:
                node.apps.discard(app)
        for index in range(len(prefixes) - 1, -1, -1):
            node = nodes[prefixes[index]]
            if node.usage or node.apps or node.children:
                break
            del nodes[prefixes[index]]
            if index:
                nodes[prefixes[index - 1]].children -= 1

    @property
    def empty(self) -> bool:
        return not self.nodes
