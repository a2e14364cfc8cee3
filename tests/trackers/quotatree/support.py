"""Builders for the quota-tree tests: the spec's trees, consumers, and compact state views."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from trackers.quotatree import (
    ConsumerSpec,
    QuotaManager,
    TreeRequest,
    TreeSpec,
    make_tree,
    tree_consumer,
)

NodeRow = tuple[str, str | None, Any, bool]


def example_tree(name: str = "ExampleTree") -> TreeSpec:
    """M1's tree, all soft, cpu: A10 -> {B2 -> {E1, F1}, C6 -> {G3 -> {K1, L2}, H3 -> {M1,
    N2}}, D2 -> {I1, J1}}."""
    rows: list[NodeRow] = [
        ("A", None, 10, False), ("B", "A", 2, False), ("C", "A", 6, False),
        ("D", "A", 2, False), ("E", "B", 1, False), ("F", "B", 1, False),
        ("G", "C", 3, False), ("H", "C", 3, False), ("K", "G", 1, False),
        ("L", "G", 2, False), ("M", "H", 1, False), ("N", "H", 2, False),
        ("I", "D", 1, False), ("J", "D", 1, False),
    ]
    return make_tree(name, ["cpu"], rows)


def manager_with(*specs: TreeSpec, mode: str = "normal") -> QuotaManager:
    manager = QuotaManager(mode=mode)
    for spec in specs:
        manager.add_tree(spec)
    return manager


def consumer(
    cid: str, tree: str, group: str, request: Mapping[str, int] | Sequence[int] | int,
    priority: int = 0, *, type: int = 0, unpreemptable: bool = False, resource: str = "cpu",
) -> ConsumerSpec:
    amounts = {resource: request} if isinstance(request, int) else request
    return tree_consumer(cid, tree, group, amounts, priority=priority, type=type,
                         unpreemptable=unpreemptable)


def forest_consumer(cid: str, **per_tree: TreeRequest) -> ConsumerSpec:
    return ConsumerSpec(cid, per_tree)


def compact(state: Mapping[str, Any]) -> dict[str, Any]:
    """The spec's notation: node -> allocated (an int for one resource, else a list) and the
    consumers at it, for nodes with anything allocated or placed."""
    out: dict[str, Any] = {}
    resources = state["resources"]
    for name, node in state["nodes"].items():
        values = [node["allocated"][res] for res in resources]
        if any(values) or node["consumers"]:
            amount: Any = values[0] if len(values) == 1 else values
            out[name] = (amount, node["consumers"]) if node["consumers"] else amount
    return out
