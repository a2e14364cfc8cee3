"""Phase 2 of an allocation (spec 2.4): priority preemption on the consumer's own path.

When phase 1 found no room and the consumer has a priority above 0, consumers of strictly lower
priority, preemptable and of the same type, are preempted from the node ``top`` where phase 1
stopped (the hard node it could not pass, or the root) and then from every node below it on the
path down to the group, each node's consumers in list order, until the consumer fits at ``top``.
Consumers in sibling subtrees are never touched, even when they use the parent's quota: that is
the specified behaviour (the library's, M13), not an oversight.

Unlike the library, a phase 2 that cannot make room changes nothing, and one whose retry fails
is rolled back whole by the caller, every preempted consumer back in its place (defect 4).
"""

from __future__ import annotations

from trackers.quotatree import messages as m
from trackers.quotatree.results import BY_PRIORITY, Preemption
from trackers.quotatree.tree import Klass, Node, Placement, QuotaTree


def victim_classes(node: Node, p: Placement) -> list[Klass]:
    """The classes at ``node`` that ``p`` may preempt by priority."""
    return [k for k in node.by_class if k[0] < p.priority and not k[2] and k[1] == p.type]


def make_room(
    tree: QuotaTree, p: Placement, top: Node, steps: list[str], preemptions: list[Preemption]
) -> bool:
    """Preempt, on the path from ``top`` down to ``p``'s group, the fewest lower-priority
    consumers in list order that make ``p`` fit at ``top``. False (and nothing changed) when
    preempting all of them would not be enough."""
    group = p.group
    assert group is not None
    path = group.line[top.depth:]
    vector = p.vector
    quota = top.quota
    steps.append(m.STEP_PHASE_TWO.format(priority=p.priority, node=top.name, group=group.name))
    # Preempting x at a node on the path lowers alloc(top) by x's request, so summing the
    # candidates' requests tells at once whether phase 2 can succeed at all.
    room = [quota[i] - top.alloc[i] for i in range(tree.size)]
    for node in path:
        for klass in victim_classes(node, p):
            for i, amount in enumerate(node.class_sums[klass]):
                room[i] += amount
    if any(vector[i] > room[i] for i in range(tree.size)):
        steps.append(m.STEP_PHASE_TWO_NOTHING.format(node=top.name))
        return False
    scratch = list(top.alloc)
    victims: list[Placement] = []
    for node in path:
        wanted = victim_classes(node, p)
        if not wanted:
            continue
        for x in tree.candidates(node, wanted):
            victims.append(x)
            for i, amount in enumerate(x.vector):
                scratch[i] -= amount
            if all(scratch[i] + vector[i] <= quota[i] for i in range(tree.size)):
                break
        else:
            continue
        break
    for x in victims:
        at = x.node
        assert at is not None
        tree.detach(x)
        tree.unregister(x)
        tree.charge_line(at, x.vector, -1)
        preemptions.append(
            Preemption(x.id, x.priority, p.id, p.priority, tree.name, at.name, BY_PRIORITY)
        )
        steps.append(m.STEP_PREEMPTED_BY_PRIORITY.format(
            consumer=x.id, node=at.name, priority=x.priority, by_priority=p.priority, by=p.id))
    return True
