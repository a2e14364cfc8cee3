"""Applying a new spec to a tree that has consumers (spec 2.8).

A fresh tree is built from the spec and every consumer is re-placed by force, in its old order
(each keeps its ordering stamp): at its old aNode (renamed if the rename map says so) when that
node still exists and its group is still a leaf below it, else at its group, else (the group is
gone) at the root. In an empty tree (no root) it cannot be placed: the caller removes it from
the other trees of its forest too. No quota is checked, so an update can leave nodes over quota
until consumers leave (M6).
"""

from __future__ import annotations

from collections.abc import Mapping

from trackers.quotatree import messages as m
from trackers.quotatree.document import TreeRequest, TreeSpec
from trackers.quotatree.journal import Spot
from trackers.quotatree.tree import Node, Placement, QuotaTree


def rebuild(
    old: QuotaTree, spec: TreeSpec, renames: Mapping[str, str] | None = None
) -> tuple[QuotaTree, list[str], dict[str, tuple[Spot, Placement | None]]]:
    """The new tree, the ids that could not be placed, and per consumer id its old spot and
    new placement (None when unplaced)."""
    renames = renames or {}
    new = QuotaTree(spec, old.mode, old.quantity)
    new.next_stamp = old.next_stamp
    unplaced: list[str] = []
    moved: dict[str, tuple[Spot, Placement | None]] = {}
    for p in sorted(old.placements.values(), key=lambda x: x.stamp):
        old_spot = p.spot
        group_name = renames.get(p.group_name, p.group_name)
        anode_name = renames.get(p.node.name, p.node.name) if p.node is not None else None
        group = new.nodes.get(group_name)
        anode = new.nodes.get(anode_name) if anode_name is not None else None
        target: Node | None = new.root  # the group is gone: the root
        if group is not None:
            keeps = anode is not None and group_name in new.leaves and anode.contains(group)
            target = anode if keeps else group
        if target is None:
            unplaced.append(p.id)
            moved[p.id] = (old_spot, None)
            continue
        # Resources the new tree does not have are dropped; new ones count 0.
        amounts = {
            res: amount for res, amount in p.request.request.items() if res in new.resources
        } if isinstance(p.request.request, Mapping) else {}
        request = TreeRequest(group_name, amounts, p.priority, p.type, p.unpreemptable)
        q = Placement(p.id, new, group, group_name, request, new.vector(amounts))
        new.force_place(q, target, p.stamp)
        same = anode_name == target.name
        q.reasons = p.reasons if same else (m.STEP_REPLACED.format(node=target.name),)
        moved[p.id] = (old_spot, q)
    return new, unplaced, moved
