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


def tree_a() -> TreeSpec:
    """M2's "treeA", resource count: A3 -> {B1, C1}."""
    return make_tree("treeA", ["count"], [
        ("A", None, 3, False), ("B", "A", 1, False), ("C", "A", 1, False)])


def m3_tree() -> TreeSpec:
    """M3's "test-tree" (cpu, memory): A 12/256 -> {B 4/64, C 4/64}, all soft."""
    return make_tree("test-tree", ["cpu", "memory"], [
        ("A", None, [12, 256], False), ("B", "A", [4, 64], False), ("C", "A", [4, 64], False)])


def service_tree() -> TreeSpec:
    """M4's "service-tree" (count): root 12 -> {X 5, Y 5 -> Z 6}."""
    return make_tree("service-tree", ["count"], [
        ("root", None, 12, False), ("X", "root", 5, False), ("Y", "root", 5, False),
        ("Z", "Y", 6, False)])


def context_tree() -> TreeSpec:
    """M5's ContextTree (cpu)."""
    return make_tree("ContextTree", ["cpu"], [
        ("Root", None, 10, False),
        ("Org-A", "Root", 4, False), ("Org-B", "Root", 6, True), ("Org-C", "Root", 4, False),
        ("Context-1", "Org-A", 1, False), ("Context-2", "Org-A", 1, False),
        ("Context-3", "Org-B", 2, False), ("Context-4", "Org-B", 2, True),
        ("Context-5", "Org-C", 4, False),
    ])


def service_tree_m5() -> TreeSpec:
    """M5's ServiceTree (cpu, disk): Root 16/12 -> {Srvc-X 3/4 hard, Srvc-Y 4/4, Srvc-Z 5/4}."""
    return make_tree("ServiceTree", ["cpu", "disk"], [
        ("Root", None, [16, 12], False), ("Srvc-X", "Root", [3, 4], True),
        ("Srvc-Y", "Root", [4, 4], False), ("Srvc-Z", "Root", [5, 4], False),
    ])


def gold_tree(hard_gold: bool = True) -> TreeSpec:
    """M8/M9's tree: root 10/256 hard -> gold 10/256 hard."""
    return make_tree("test-tree", ["cpu", "memory"], [
        ("root", None, [10, 256], True), ("gold", "root", [10, 256], hard_gold)])


def cm(cpu: int, memory: int) -> dict[str, int]:
    return {"cpu": cpu, "memory": memory}
