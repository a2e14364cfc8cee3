"""Shared pieces of the quota tree API tests: the spec's trees as documents, consumer bodies, and
compact views of what the API answers."""

from __future__ import annotations

from typing import Any

TREES = "/api/v1/quota-trees"
FORESTS = "/api/v1/forests"

# M1's ExampleTree, all soft, cpu: A10 -> {B2 -> {E1, F1}, C6 -> {G3 -> {K1, L2},
# H3 -> {M1, N2}}, D2 -> {I1, J1}}.
EXAMPLE_NODES = [
    ("A", None, 10), ("B", "A", 2), ("C", "A", 6), ("D", "A", 2), ("E", "B", 1), ("F", "B", 1),
    ("G", "C", 3), ("H", "C", 3), ("K", "G", 1), ("L", "G", 2), ("M", "H", 1), ("N", "H", 2),
    ("I", "D", 1), ("J", "D", 1),
]


def tree_document(name: str, resources: list[str], nodes, hard: set[str] = frozenset()) -> dict:
    """A QuotaTree document; ``nodes`` are (name, parent, quota) with the quota an int for the
    first resource or a map."""
    return {
        "kind": "QuotaTree",
        "metadata": {"name": name},
        "spec": {
            "resourceNames": resources,
            "nodes": {
                node: {
                    "parent": parent or "nil",
                    "hard": "true" if node in hard else "false",
                    "quota": {resources[0]: str(quota)} if isinstance(quota, int)
                    else {k: str(v) for k, v in quota.items()},
                }
                for node, parent, quota in nodes
            },
        },
    }


def example_document(name: str = "example") -> dict:
    return tree_document(name, ["cpu"], EXAMPLE_NODES)


def body(cid: str, group: str, cpu: int, priority: int = 0, **extra: Any) -> dict:
    return {"id": cid, "groupID": group, "request": {"cpu": cpu}, "priority": priority, **extra}


def compact(view: dict) -> dict[str, Any]:
    """Node -> (allocated cpu, consumers there) for nodes with anything, like the spec's tables."""
    return {
        node["name"]: (node["allocated"].get("cpu", 0), node["consumers"])
        for node in view["nodes"]
        if any(node["allocated"].values()) or node["consumers"]
    }
