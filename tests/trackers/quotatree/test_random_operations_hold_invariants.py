"""Random trees and random operation sequences: the invariants of spec 2.2 hold after every step.

Two random trees (depth <= 4, <= 20 nodes, 1-2 resources, random hard flags) form a forest. Steps
allocate, try and undo, de-allocate, allocate jointly on the forest, switch modes and update the
trees. After every step: allocated at each node is the sum of the requests placed in its subtree;
the consumers listed at nodes are exactly the placements; no node is over quota unless a forced
allocation or a tree update may have put it there (tracked per tree until the tree empties); and
export + restore into a fresh manager gives the live state. Within steps: an undo restores the
exact prior state, and a rejected allocation changes no tree.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from trackers.quotatree import (
    MAINTENANCE,
    NORMAL,
    ConsumerSpec,
    QuotaManager,
    QuotaTreeError,
    TreeRequest,
    parse_tree,
)

TREES = ("t0", "t1")
FOREST = "f"
MAX_DEPTH = 4
MAX_NODES = 20


@st.composite
def tree_documents(draw: Any, name: str) -> dict[str, Any]:
    resources = draw(st.sampled_from([["cpu"], ["cpu", "gpu"], ["memory"]]))
    depth = {"n0": 0}
    nodes: dict[str, Any] = {}

    def quota() -> dict[str, int]:
        return {res: draw(st.integers(0, 12)) for res in resources}

    nodes["n0"] = {"parent": "nil", "hard": draw(st.booleans()), "quota": quota()}
    for index in range(1, draw(st.integers(1, MAX_NODES))):
        parent = draw(st.sampled_from([n for n, d in depth.items() if d < MAX_DEPTH]))
        name_ = f"n{index}"
        depth[name_] = depth[parent] + 1
        nodes[name_] = {"parent": parent, "hard": draw(st.integers(0, 3)) == 0,
                        "quota": quota()}
    return {"kind": "QuotaTree", "metadata": {"name": name},
            "spec": {"resourceNames": resources, "nodes": nodes}}


class QuotaTreeMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.manager = QuotaManager()
        self.number = 0
        # Trees where a forced allocation or an update may have left nodes over quota.
        self.tainted: set[str] = set()

    @initialize(first=tree_documents("t0"), second=tree_documents("t1"))
    def build(self, first: dict[str, Any], second: dict[str, Any]) -> None:
        for doc in (first, second):
            self.manager.add_tree(parse_tree(doc))
        self.manager.add_forest(FOREST, list(TREES))

    # --- helpers -------------------------------------------------------------------------------

    def new_id(self, prefix: str) -> str:
        self.number += 1
        return f"{prefix}{self.number}"

    def request(self, data: Any, tree: str) -> TreeRequest:
        state = self.manager.state(tree)
        parents = {n["parent"] for n in state["nodes"].values()}
        leaves = [n for n in state["nodes"] if n not in parents]
        group = data.draw(st.sampled_from(leaves)) if leaves else "none"
        amounts = {res: data.draw(st.integers(0, 4)) for res in state["resources"]}
        return TreeRequest(
            group, amounts, data.draw(st.integers(0, 3)), data.draw(st.integers(0, 1)),
            data.draw(st.integers(0, 5)) == 0,
        )

    def states(self) -> list[tuple[Any, Any]]:
        return [(self.manager.state(t), self.manager.placements(t)) for t in TREES]

    def placed(self, tree: str) -> list[str]:
        return [p["id"] for p in self.manager.placements(tree)]

    # --- rules ---------------------------------------------------------------------------------

    @rule(data=st.data(), tree=st.sampled_from(TREES))
    def allocate(self, data: Any, tree: str) -> None:
        before = self.states()
        spec = ConsumerSpec(self.new_id("c"), {tree: self.request(data, tree)})
        result = self.manager.allocate(tree, spec)
        if result.forced:
            self.tainted.add(tree)
        if not result.allocated:
            assert self.states() == before
            assert result.changes == []
        else:
            assert self.manager.is_allocated(tree, spec.id)

    @rule(data=st.data(), tree=st.sampled_from(TREES))
    def try_then_undo(self, data: Any, tree: str) -> None:
        before = self.states()
        spec = ConsumerSpec(self.new_id("c"), {tree: self.request(data, tree)})
        try:
            self.manager.try_allocate(tree, spec)
        except QuotaTreeError:
            assert self.manager.tree_mode(tree) == MAINTENANCE
            assert self.states() == before
            return
        self.manager.undo(tree, spec.id)
        assert self.states() == before

    @rule(data=st.data(), tree=st.sampled_from(TREES))
    def keep_a_trial(self, data: Any, tree: str) -> None:
        spec = ConsumerSpec(self.new_id("c"), {tree: self.request(data, tree)})
        if self.manager.tree_mode(tree) == NORMAL:
            self.manager.try_allocate(tree, spec)

    @rule(data=st.data(), tree=st.sampled_from(TREES))
    def deallocate(self, data: Any, tree: str) -> None:
        ids = self.placed(tree)
        if ids:
            self.manager.deallocate(tree, data.draw(st.sampled_from(ids)))

    @rule(data=st.data(), trial=st.booleans())
    def allocate_on_the_forest(self, data: Any, trial: bool) -> None:
        before = self.states()
        spec = ConsumerSpec(self.new_id("f"), {t: self.request(data, t) for t in TREES})
        result = self.manager.allocate_forest(FOREST, spec, trial=trial)
        if result.forced:
            self.tainted.update(TREES)
        if not result.allocated:
            assert self.states() == before
        elif trial:
            self.manager.undo_forest(FOREST, spec.id)
            assert self.states() == before
        else:
            assert self.manager.is_allocated_forest(FOREST, spec.id)

    @rule(data=st.data())
    def deallocate_from_the_forest(self, data: Any) -> None:
        ids = sorted(set(self.placed("t0")) | set(self.placed("t1")))
        if ids:
            self.manager.deallocate_forest(FOREST, data.draw(st.sampled_from(ids)))

    @rule(tree=st.sampled_from(TREES), mode=st.sampled_from((NORMAL, MAINTENANCE)))
    def switch_tree_mode(self, tree: str, mode: str) -> None:
        self.manager.set_tree_mode(tree, mode)

    @rule(mode=st.sampled_from((NORMAL, MAINTENANCE)))
    def switch_forest_mode(self, mode: str) -> None:
        self.manager.set_forest_mode(FOREST, mode)

    @rule(data=st.data(), tree=st.sampled_from(TREES))
    def update_the_tree(self, data: Any, tree: str) -> None:
        doc = copy.deepcopy(self.manager.tree_spec(tree).document())
        nodes = doc["spec"]["nodes"]
        for node in nodes.values():
            if data.draw(st.integers(0, 2)) == 0:
                node["quota"] = {res: str(data.draw(st.integers(0, 10)))
                                 for res in doc["spec"]["resourceNames"]}
                node["hard"] = data.draw(st.booleans())
        renames: dict[str, str] = {}
        others = [n for n, spec in nodes.items() if spec["parent"] != "nil"]
        if others and data.draw(st.booleans()):
            old = data.draw(st.sampled_from(others))
            new = f"{old}r{self.new_id('')}"
            nodes[new] = nodes.pop(old)
            for spec in nodes.values():
                if spec["parent"] == old:
                    spec["parent"] = new
            renames[old] = new
        parents = {spec["parent"] for spec in nodes.values()}
        leaves = [n for n, spec in nodes.items() if n not in parents and spec["parent"] != "nil"]
        if leaves and data.draw(st.booleans()):
            del nodes[data.draw(st.sampled_from(leaves))]
        update = self.manager.update_tree(parse_tree(doc), renames)
        assert update.unplaced == []  # a tree with a root places everyone
        self.tainted.add(tree)

    # --- invariants ----------------------------------------------------------------------------

    @invariant()
    def allocated_is_the_sum_placed_below_and_lists_match(self) -> None:
        for tree in TREES:
            state = self.manager.state(tree)
            nodes = state["nodes"]
            resources = state["resources"]
            expected = {name: dict.fromkeys(resources, 0) for name in nodes}
            listed = {name: [] for name in nodes}
            for p in self.manager.placements(tree):
                listed[p["node"]].append(p["id"])
                at: str | None = p["node"]
                if p["groupID"] in nodes:
                    # The aNode is on the path from the group to the root.
                    up: str | None = p["groupID"]
                    while up is not None and up != p["node"]:
                        up = nodes[up]["parent"]
                    assert up == p["node"]
                while at is not None:
                    for res in resources:
                        expected[at][res] += p["request"][res]
                    at = nodes[at]["parent"]
            for name, node in nodes.items():
                assert node["allocated"] == expected[name], (tree, name)
                assert sorted(node["consumers"]) == sorted(listed[name])

    @invariant()
    def no_node_over_quota_unless_forced_or_updated(self) -> None:
        for tree in TREES:
            if not self.manager.placements(tree):
                self.tainted.discard(tree)
            if tree in self.tainted:
                continue
            for name, node in self.manager.state(tree)["nodes"].items():
                for res, amount in node["allocated"].items():
                    assert amount <= node["quota"][res], (tree, name, res)

    @invariant()
    def export_and_restore_give_the_live_state(self) -> None:
        for tree in TREES:
            fresh = QuotaManager()
            fresh.restore_tree(self.manager.export(tree))
            assert fresh.state(tree) == self.manager.state(tree)
            assert fresh.placements(tree) == self.manager.placements(tree)


QuotaTreeMachine.TestCase.settings = settings(
    max_examples=40, stateful_step_count=30, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestRandomOperations = QuotaTreeMachine.TestCase
