"""Joint allocation over the trees of a forest (spec 2.7), and the preemption cascade.

The trees are processed in the forest's own order (the order its tree list was given in), not
in an arbitrary map order as the library did, so traces are reproducible:

1. before allocating on a tree, the consumers preempted on the trees already processed are
   de-allocated from it;
2. the consumer is allocated on the tree; if that fails, the whole operation is rolled back
   from the journal (every tree exactly as before) and the failing tree's message returned;
3. when every tree succeeded, the consumers preempted on later trees are de-allocated from the
   earlier ones, and from the forest's trees the consumer does not use.

The same cascade applies to a single-tree allocation on a tree that belongs to a forest: a
consumer preempted there is removed from every tree of the forest.
"""

from __future__ import annotations

from collections.abc import Sequence

from trackers.quotatree import messages as m
from trackers.quotatree.allocate import allocate
from trackers.quotatree.results import WITH_FOREST, Preemption
from trackers.quotatree.tree import Placement, QuotaTree


def allocate_jointly(
    forest: str,
    members: Sequence[QuotaTree],
    placements: Sequence[Placement],
    steps: list[str],
    preemptions: list[Preemption],
) -> QuotaTree | None:
    """Allocate each placement on its tree, in order (``placements[i]`` belongs to a tree of
    ``members``, the forest's trees). Returns None on success, else the tree that refused (the
    caller rolls the journal back)."""
    preempted: list[str] = []
    for p in placements:
        tree = p.tree
        remove_preempted(forest, [tree], preempted, p, steps, preemptions)
        tree_steps: list[str] = []
        before = len(preemptions)
        ok = allocate(tree, p, tree_steps, preemptions)
        steps.extend(f"{tree.name}: {step}" for step in tree_steps)
        if not ok:
            return tree
        for preemption in preemptions[before:]:
            if preemption.consumer not in preempted:
                preempted.append(preemption.consumer)
    remove_preempted(forest, members, preempted, placements[0], steps, preemptions)
    return None


def remove_preempted(
    forest: str,
    trees: Sequence[QuotaTree],
    ids: Sequence[str],
    by: Placement,
    steps: list[str],
    preemptions: list[Preemption],
) -> None:
    """De-allocate the consumers ``ids`` (preempted somewhere in ``forest``) from ``trees``
    wherever they are still allocated, with the usual slide-down."""
    for tree in trees:
        for cid in ids:
            victim = tree.placements.get(cid)
            if victim is None or victim.node is None:
                continue
            preemptions.append(Preemption(
                cid, victim.priority, by.id, by.priority, tree.name, victim.node.name,
                WITH_FOREST,
            ))
            steps.append(m.STEP_REMOVED_WITH_FOREST.format(consumer=cid, tree=tree.name,
                                                           forest=forest))
            slid: list[str] = []
            tree.deallocate(victim, slid)
            steps.extend(f"{tree.name}: {step}" for step in slid)
