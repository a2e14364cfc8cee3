"""Allocation in normal mode (spec 2.3 and 2.4) and force allocation (2.6).

Phase 1 walks from the consumer's group up to the root looking for its aNode: a node where it
fits, or where strictly lower-priority borrowers can be slid up to make room; once placed, every
ancestor must be charged too, pushing up any borrower there if needed (at the root, pushed up
means preempted, for preemptable consumers of the same type). A failed charge undoes the attempt
and tries the next node up, unless a hard node has been met: nobody borrows above a hard node.
Phase 2 (``preempt.py``) preempts lower priorities on the path and runs phase 1 again.

The greedy prefix of slideUp is kept exactly: consumers are taken in list order until the new
one fits, so more may move than strictly needed (spec tree-example step d).

Every change is journaled, so a failure rolls back to the exact prior state.
"""

from __future__ import annotations

from trackers.quotatree import messages as m
from trackers.quotatree.preempt import make_room
from trackers.quotatree.results import AT_ROOT, Preemption
from trackers.quotatree.tree import Node, Placement, QuotaTree


def allocate(
    tree: QuotaTree, p: Placement, steps: list[str], preemptions: list[Preemption]
) -> bool:
    """Place ``p`` (its group must be a leaf of ``tree``). True: placed, registered, and
    ``preemptions`` extended with who lost their place; False: nothing changed."""
    journal = tree.journal
    start = journal.mark()
    kept = len(preemptions)
    while True:
        placed, top = _phase_one(tree, p, steps, preemptions)
        if placed:
            tree.register(p)
            tree.set_reasons(p, steps)
            return True
        if p.priority <= 0:
            steps.append(m.STEP_NO_PREEMPTION.format(priority=p.priority))
            break
        if not make_room(tree, p, top, steps, preemptions):
            break
        steps.append(m.STEP_RETRY.format(node=top.name))
    # Phase 2 preemptions and everything else go back exactly (library defect 4).
    journal.rollback(start)
    del preemptions[kept:]
    return False


def force_allocate(tree: QuotaTree, p: Placement, steps: list[str]) -> None:
    """Maintenance mode: place ``p`` at its group and charge up to the root, unchecked."""
    group = p.group
    assert group is not None
    tree.force_place(p, group)
    steps.append(m.STEP_FORCED.format(node=group.name))
    tree.set_reasons(p, steps)


def _phase_one(
    tree: QuotaTree, p: Placement, steps: list[str], preemptions: list[Preemption]
) -> tuple[bool, Node]:
    """One walk up from the group. Returns (placed, the last node looked at)."""
    group = p.group
    assert group is not None
    vector = p.vector
    journal = tree.journal
    placed_at: Node | None = None
    hard: Node | None = None  # the first hard node met
    last = group
    mark = journal.mark()
    kept = len(preemptions)
    for n in reversed(group.line):
        last = n
        if n.hard and hard is None:
            hard = n
        if placed_at is None:
            mark = journal.mark()
            kept = len(preemptions)
            if tree.fits(n, vector):
                steps.append(m.STEP_FITS.format(node=n.name,
                                                usage=tree.usage(n, vector, failing_only=False)))
            else:
                steps.append(m.STEP_FULL.format(node=n.name,
                                                usage=tree.usage(n, vector, failing_only=True)))
                if not _slide_up(tree, n, p, True, steps, preemptions):
                    if n.hard:
                        if n.parent is not None:
                            steps.append(m.STEP_HARD_STOP.format(node=n.name))
                        break
                    continue
                steps.append(m.STEP_FITS.format(node=n.name,
                                                usage=tree.usage(n, vector, failing_only=False)))
            tree.attach(p, n)
            tree.charge(n, vector)
            placed_at = n
        elif tree.fits(n, vector) or _slide_up(tree, n, p, False, steps, preemptions):
            tree.charge(n, vector)
        else:
            steps.append(m.STEP_CHARGE_FAILED.format(
                node=n.name, usage=tree.usage(n, vector, failing_only=True),
                anode=placed_at.name))
            journal.rollback(mark)
            del preemptions[kept:]
            placed_at = None
            if hard is not None:
                if hard.parent is not None:
                    steps.append(m.STEP_HARD_STOP.format(node=hard.name))
                break
    return placed_at is not None, last


def _slide_up(
    tree: QuotaTree, n: Node, p: Placement, by_priority: bool, steps: list[str],
    preemptions: list[Preemption],
) -> bool:
    """Spec 2.3 slideUp: make room for ``p`` at ``n`` by pushing candidates to the parent (at
    the root: preempting them). Candidates, in list order: every consumer at ``n``, or with
    ``by_priority`` only those of strictly lower priority; at the root only preemptable ones of
    ``p``'s type. Taken greedily until ``p`` fits; if it never would, nothing changes."""
    parent = n.parent
    if n.hard and parent is not None:
        return False
    if not n.held:
        return False
    wanted = [
        k for k in n.by_class
        if (not by_priority or k[0] < p.priority) and (parent is not None or
                                                        (not k[2] and k[1] == p.type))
    ]
    if not wanted:
        return False
    vector = p.vector
    quota = n.quota
    size = tree.size
    # Could all candidates together make room? The class sums say so without walking them.
    room = [quota[i] - n.alloc[i] for i in range(size)]
    for klass in wanted:
        for i, amount in enumerate(n.class_sums[klass]):
            room[i] += amount
    if any(vector[i] > room[i] for i in range(size)):
        return False
    scratch = list(n.alloc)
    chosen: list[Placement] = []
    for x in tree.candidates(n, wanted):
        chosen.append(x)
        for i, amount in enumerate(x.vector):
            scratch[i] -= amount
        if all(scratch[i] + vector[i] <= quota[i] for i in range(size)):
            break
    for x in chosen:
        tree.charge(n, x.vector, -1)
        if parent is None:
            tree.detach(x)
            tree.unregister(x)
            preemptions.append(
                Preemption(x.id, x.priority, p.id, p.priority, tree.name, n.name, AT_ROOT)
            )
            steps.append(m.STEP_PREEMPTED_AT_ROOT.format(
                consumer=x.id, node=n.name, priority=x.priority, by=p.id))
        else:
            tree.move(x, parent)
            steps.append(m.STEP_SLID_UP.format(consumer=x.id, node=n.name, parent=parent.name))
            tree.set_reasons(x, [m.STEP_SLID_UP_TO_MAKE_ROOM.format(
                node=n.name, parent=parent.name, by=p.id)])
    return True
