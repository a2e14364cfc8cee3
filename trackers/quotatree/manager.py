"""The quota manager: trees, forests, modes, trials, all behind one lock.

Every public method takes the manager's lock once and only calls private helpers that never
take it, so no call path re-enters the lock (the library's ``UpdateAll`` deadlocked by taking
its lock twice, defect 1). The lock is a plain ``threading.Lock``: a re-entrant call would
deadlock loudly in tests rather than hide a design error.

Errors of the call itself (an unknown tree, a consumer already allocated, a refused undo) raise
``QuotaTreeError`` with a ``code`` (``NOT_FOUND``, ``CONFLICT``, ``INVALID``) and the library's
text. An allocation the trees cannot take, or whose content does not fit the tree (unknown
group, request of the wrong length), is an ``AllocationResult`` with ``allocated`` False and a
code; nothing changed then.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from trackers.errors import InvalidRequest, TrackersError
from trackers.quotatree import messages as m
from trackers.quotatree import results as r
from trackers.quotatree.allocate import allocate, force_allocate
from trackers.quotatree.changes import changes_of_rollback, changes_since, touched
from trackers.quotatree.document import ConsumerSpec, TreeRequest, TreeSpec
from trackers.quotatree.forest import allocate_jointly, remove_preempted
from trackers.quotatree.journal import Journal
from trackers.quotatree.results import (
    AllocationResult,
    PlacementChange,
    Preemption,
    Release,
    TreeUpdate,
    UndoResult,
)
from trackers.quotatree.tree import Placement, Quantity, QuotaTree
from trackers.quotatree.trials import TrialKey, Trials
from trackers.quotatree.update import rebuild

NORMAL = "normal"
MAINTENANCE = "maintenance"
MODES = (NORMAL, MAINTENANCE)

NOT_FOUND = "notFound"
CONFLICT = "conflict"
INVALID = "invalid"

T = TypeVar("T")


class QuotaTreeError(TrackersError):
    """A call the manager refuses; ``code`` is NOT_FOUND, CONFLICT or INVALID. Nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class _Sealed(Journal):
    """The journal a tree holds between operations: writing to it is a bug."""

    def record(self, undo: Callable[..., object], *args: Any) -> None:
        raise AssertionError("a quota tree was changed outside a manager operation")


_SEALED = _Sealed()


@dataclass
class _Forest:
    name: str
    trees: list[str]
    mode: str


class QuotaManager:
    """Quota trees and forests with hard/soft quotas, borrowing and preemption (see the
    package docstring for the whole API and an example).

    Trees and forests start in ``mode`` (NORMAL unless told otherwise: the library started in
    maintenance, which only suits a controller that reloads running work first). ``quantity``
    writes the amounts in the steps (``memory 48 GiB + 16 GiB > 60 GiB``); without it they are
    the plain integers of the spec's examples (``cpu 2+1 > 2``).
    """

    def __init__(self, *, mode: str = NORMAL, quantity: Quantity | None = None) -> None:
        _check_mode(mode)
        self._lock = threading.Lock()
        # How the steps write an amount of a resource; None: the plain integer.
        self._quantity = quantity
        self._default_mode = mode
        self._trees: dict[str, QuotaTree] = {}
        self._forests: dict[str, _Forest] = {}
        self._forest_of: dict[str, str] = {}
        self._trials = Trials()

    # --- trees --------------------------------------------------------------------------------

    def tree_names(self) -> list[str]:
        with self._lock:
            return list(self._trees)

    def has_tree(self, name: str) -> bool:
        with self._lock:
            return name in self._trees

    def tree_spec(self, name: str) -> TreeSpec:
        with self._lock:
            return self._tree(name).spec

    def tree_specs(self) -> dict[str, TreeSpec]:
        """Every tree's spec by name: what ``check_consumer`` needs to check a document."""
        with self._lock:
            return {name: tree.spec for name, tree in self._trees.items()}

    def add_tree(self, spec: TreeSpec, *, mode: str | None = None) -> TreeUpdate:
        """Create a tree; CONFLICT if one of that name exists."""
        with self._lock:
            if spec.name in self._trees:
                raise QuotaTreeError(CONFLICT, m.TREE_EXISTS.format(tree=spec.name))
            return self._create(spec, mode)

    def update_tree(
        self, spec: TreeSpec, renames: Mapping[str, str] | None = None
    ) -> TreeUpdate:
        """Apply a new spec to an existing tree (spec 2.8): consumers are re-placed by force;
        ``renames`` maps old node names to new ones. NOT_FOUND if there is no such tree."""
        with self._lock:
            self._tree(spec.name)
            return self._update(spec, renames)

    def put_tree(
        self, spec: TreeSpec, renames: Mapping[str, str] | None = None, *,
        mode: str | None = None,
    ) -> TreeUpdate:
        """Create the tree, or update it if it exists (``mode`` applies to a new tree only)."""
        with self._lock:
            if spec.name in self._trees:
                return self._update(spec, renames)
            return self._create(spec, mode)

    def update_all(
        self,
        specs: Mapping[str, TreeSpec] | None = None,
        renames: Mapping[str, Mapping[str, str]] | None = None,
    ) -> dict[str, TreeUpdate]:
        """Apply several specs at once (new names create trees); with no specs, rebuild every
        tree from its current spec. Works with trees present (library defect 1)."""
        with self._lock:
            return self._update_many(specs, renames, list(self._trees))

    def update_forest(
        self,
        forest: str,
        specs: Mapping[str, TreeSpec] | None = None,
        renames: Mapping[str, Mapping[str, str]] | None = None,
    ) -> dict[str, TreeUpdate]:
        """``update_all`` restricted to the trees of ``forest``."""
        with self._lock:
            members = self._forest(forest).trees
            for name in specs or {}:
                if name not in members:
                    raise QuotaTreeError(INVALID, m.NOT_IN_FOREST.format(forest=forest,
                                                                         tree=name))
            return self._update_many(specs, renames, list(members))

    def delete_tree(self, name: str) -> None:
        """Remove a tree (and drop it from its forest); CONFLICT while consumers are on it."""
        with self._lock:
            tree = self._tree(name)
            if tree.placements:
                raise QuotaTreeError(CONFLICT, m.TREE_BUSY.format(tree=name))
            del self._trees[name]
            self._trials.drop_trees([name])
            forest = self._forest_of.pop(name, None)
            if forest is not None:
                self._forests[forest].trees.remove(name)

    def set_tree_mode(self, name: str, mode: str) -> None:
        """NORMAL or MAINTENANCE for allocations on this tree alone (spec 2.6)."""
        _check_mode(mode)
        with self._lock:
            self._tree(name).mode = mode

    def tree_mode(self, name: str) -> str:
        with self._lock:
            return self._tree(name).mode

    def state(self, name: str) -> dict[str, Any]:
        """Plain data for pages and equality checks: ``name``, ``resources``, ``root``,
        ``mode`` and ``nodes`` (per node: parent, hard, quota, allocated, slack, consumers in
        order)."""
        with self._lock:
            tree = self._tree(name)
            return {**tree.state(), "mode": tree.mode}

    def placements(self, name: str) -> list[dict[str, Any]]:
        """The consumers allocated on a tree, in placement (stamp) order: ``id``, ``node``,
        ``groupID``, ``request``, ``priority``, ``type``, ``unPreemptable``, ``stamp``,
        ``borrowing`` (aNode above the group) and ``reasons`` (why it is there)."""
        with self._lock:
            tree = self._tree(name)
            return [p.view() for p in sorted(tree.placements.values(), key=lambda x: x.stamp)]

    def placement(self, name: str, consumer: str) -> dict[str, Any] | None:
        """One consumer's placement on a tree, as ``placements`` shows it; None if absent."""
        with self._lock:
            p = self._tree(name).placements.get(consumer)
            return p.view() if p is not None else None

    def is_allocated(self, name: str, consumer: str) -> bool:
        with self._lock:
            return consumer in self._tree(name).placements

    def export(self, name: str) -> dict[str, Any]:
        """Everything ``restore_tree`` needs to rebuild the tree exactly (JSON-ready)."""
        with self._lock:
            return self._tree(name).export()

    def restore_tree(self, data: Mapping[str, Any]) -> None:
        """Add a tree from ``export`` data, placements and order as they were; CONFLICT if a
        tree of that name exists, INVALID for inconsistent data."""
        with self._lock:
            try:
                tree = QuotaTree.restore(data)
            except (InvalidRequest, KeyError, TypeError, ValueError) as err:
                raise QuotaTreeError(INVALID, str(err)) from err
            if tree.name in self._trees:
                raise QuotaTreeError(CONFLICT, m.TREE_EXISTS.format(tree=tree.name))
            tree.journal = _SEALED
            self._trees[tree.name] = tree

    # --- forests ------------------------------------------------------------------------------

    def forest_names(self) -> list[str]:
        with self._lock:
            return list(self._forests)

    def forest_trees(self, name: str) -> list[str]:
        """The forest's trees, in its processing order."""
        with self._lock:
            return list(self._forest(name).trees)

    def forest_of(self, tree: str) -> str | None:
        with self._lock:
            return self._forest_of.get(tree)

    def add_forest(self, name: str, trees: Sequence[str], *, mode: str | None = None) -> None:
        """Create a forest of existing trees (each in one forest at most); CONFLICT if the name
        is taken."""
        with self._lock:
            if name in self._forests:
                raise QuotaTreeError(CONFLICT, m.FOREST_EXISTS.format(forest=name))
            self._set_forest(name, trees, mode)

    def put_forest(self, name: str, trees: Sequence[str], *, mode: str | None = None) -> None:
        """Create the forest or replace its tree list (its mode is kept unless given)."""
        with self._lock:
            self._set_forest(name, trees, mode)

    def delete_forest(self, name: str) -> None:
        """Forget a forest; its trees stay, with their consumers."""
        with self._lock:
            forest = self._forest(name)
            for tree in forest.trees:
                self._forest_of.pop(tree, None)
            del self._forests[name]
            self._trials.drop_forest(name)

    def set_forest_mode(self, name: str, mode: str) -> None:
        """NORMAL or MAINTENANCE for joint allocations on this forest (its trees keep their
        own modes for single-tree calls)."""
        _check_mode(mode)
        with self._lock:
            self._forest(name).mode = mode

    def forest_mode(self, name: str) -> str:
        with self._lock:
            return self._forest(name).mode

    def is_allocated_forest(self, name: str, consumer: str) -> bool:
        """Allocated on every tree of the forest (the library's ``IsAllocatedForest``)."""
        with self._lock:
            trees = self._forest(name).trees
            return bool(trees) and all(consumer in self._trees[t].placements for t in trees)

    # --- allocation on one tree ---------------------------------------------------------------

    def allocate(
        self, tree: str, consumer: ConsumerSpec, *, trial: bool = False
    ) -> AllocationResult:
        """Allocate ``consumer`` (its request for ``tree``) on ``tree``.

        NORMAL mode runs the algorithm (spec 2.3-2.4); MAINTENANCE force-allocates at the
        group. With ``trial`` the allocation can be taken back by ``undo`` as long as no later
        operation changed the trees it touched; a trial is refused in MAINTENANCE mode.
        A consumer preempted on a tree of a forest is removed from every tree of that forest.
        """
        with self._lock:
            target = self._tree(tree)
            request = consumer.trees.get(tree)
            if request is None:
                raise QuotaTreeError(INVALID, m.NO_SPEC_FOR_TREE.format(id=consumer.id,
                                                                        tree=tree))
            if consumer.id in target.placements:
                raise QuotaTreeError(CONFLICT, m.ALREADY_ON_TREE.format(id=consumer.id,
                                                                        tree=tree))
            if trial and target.mode != NORMAL:
                raise QuotaTreeError(CONFLICT, m.NOT_NORMAL_MODE)
            members = self._members_of(tree)
            journal = self._begin(members)
            try:
                result = self._allocate_one(target, members, consumer, request, trial)
            finally:
                self._end(members)
            return self._finish(("tree", tree, consumer.id), journal, result, trial)

    def try_allocate(self, tree: str, consumer: ConsumerSpec) -> AllocationResult:
        """``allocate(..., trial=True)``."""
        return self.allocate(tree, consumer, trial=True)

    def undo(self, tree: str, consumer: str) -> UndoResult:
        """Take back the last trial allocation of ``consumer`` on ``tree`` exactly (the
        consumers it preempted or moved go back where they were, in their order). CONFLICT when
        there is none, or a later operation changed one of the trees it touched."""
        with self._lock:
            self._tree(tree)
            return self._undo(("tree", tree, consumer), m.UNDO_FAILED.format(tree=tree))

    def deallocate(self, tree: str, consumer: str) -> Release:
        """De-allocate from one tree (spec 2.5: borrowers may slide down one level).
        NOT_FOUND if the consumer is not allocated there."""
        with self._lock:
            target = self._tree(tree)
            p = target.placements.get(consumer)
            if p is None:
                raise QuotaTreeError(NOT_FOUND, m.CONSUMER_MISSING.format(id=consumer))
            journal = self._begin([target])
            steps: list[str] = []
            try:
                target.deallocate(p, steps)
            finally:
                self._end([target])
            changes = self._changed(journal)
            return Release(consumer, [tree], steps, changes)

    # --- allocation on a forest -----------------------------------------------------------------

    def allocate_forest(
        self, forest: str, consumer: ConsumerSpec, *, trial: bool = False
    ) -> AllocationResult:
        """Allocate ``consumer`` jointly on the forest's trees it names (spec 2.7), in the
        forest's tree order; all or nothing. INVALID if it names a tree outside the forest
        (after its entries for the forest's own trees were checked, in order: an unknown group
        there is a rejection with the library's message). In MAINTENANCE mode it is
        force-allocated, a trial too."""
        with self._lock:
            group = self._forest(forest)
            named = [name for name in group.trees if name in consumer.trees]
            for name in named:
                if consumer.id in self._trees[name].placements:
                    everywhere = all(consumer.id in self._trees[t].placements for t in named)
                    text = (m.ALREADY_ON_FOREST.format(id=consumer.id, forest=forest)
                            if everywhere else m.ALREADY_ON_TREE.format(id=consumer.id, tree=name))
                    raise QuotaTreeError(CONFLICT, text)
            members = [self._trees[name] for name in group.trees]
            journal = self._begin(members)
            try:
                result = self._allocate_forest(group, members, named, consumer, trial)
            finally:
                self._end(members)
            return self._finish(("forest", forest, consumer.id), journal, result, trial)

    def try_allocate_forest(self, forest: str, consumer: ConsumerSpec) -> AllocationResult:
        return self.allocate_forest(forest, consumer, trial=True)

    def undo_forest(self, forest: str, consumer: str) -> UndoResult:
        """Take back the last trial forest allocation of ``consumer``, on every tree."""
        with self._lock:
            self._forest(forest)
            return self._undo(("forest", forest, consumer),
                              m.UNDO_FOREST_FAILED.format(forest=forest))

    def deallocate_forest(self, forest: str, consumer: str) -> Release:
        """De-allocate from every tree of the forest where it is allocated; NOT_FOUND if none."""
        with self._lock:
            members = [self._trees[name] for name in self._forest(forest).trees]
            holding = [t for t in members if consumer in t.placements]
            if not holding:
                raise QuotaTreeError(NOT_FOUND, m.CONSUMER_MISSING.format(id=consumer))
            journal = self._begin(holding)
            steps: list[str] = []
            try:
                for tree in holding:
                    slid: list[str] = []
                    tree.deallocate(tree.placements[consumer], slid)
                    steps.extend(f"{tree.name}: {step}" for step in slid)
            finally:
                self._end(holding)
            changes = self._changed(journal)
            return Release(consumer, [t.name for t in holding], steps, changes)

    # --- private helpers (called with the lock held; they never take it) -----------------------

    def _tree(self, name: str) -> QuotaTree:
        tree = self._trees.get(name)
        if tree is None:
            raise QuotaTreeError(NOT_FOUND, m.TREE_MISSING.format(tree=name))
        return tree

    def _forest(self, name: str) -> _Forest:
        forest = self._forests.get(name)
        if forest is None:
            raise QuotaTreeError(NOT_FOUND, m.FOREST_MISSING.format(forest=name))
        return forest

    def _members_of(self, tree: str) -> list[QuotaTree]:
        """The tree and the other trees of its forest (the reach of a preemption cascade)."""
        forest = self._forest_of.get(tree)
        if forest is None:
            return [self._trees[tree]]
        names = self._forests[forest].trees
        return [self._trees[tree]] + [self._trees[n] for n in names if n != tree]

    def _set_forest(self, name: str, trees: Sequence[str], mode: str | None) -> None:
        if not isinstance(name, str) or not name:
            raise QuotaTreeError(INVALID, m.INVALID_FOREST_NAME.format(forest=name))
        if mode is not None:
            _check_mode(mode)
        seen: set[str] = set()
        for tree in trees:
            if tree not in self._trees:
                raise QuotaTreeError(NOT_FOUND, m.UNKNOWN_TREE.format(tree=tree))
            owner = self._forest_of.get(tree)
            if owner is not None and owner != name:
                raise QuotaTreeError(CONFLICT, m.TREE_IN_OTHER_FOREST.format(tree=tree,
                                                                             forest=owner))
            if tree in seen:
                raise QuotaTreeError(INVALID, m.ERR_DUPLICATE_TREE.format(id=name, tree=tree))
            seen.add(tree)
        old = self._forests.get(name)
        if old is not None:
            for tree in old.trees:
                self._forest_of.pop(tree, None)
            self._trials.drop_forest(name)
        chosen = mode if mode is not None else (old.mode if old else self._default_mode)
        self._forests[name] = _Forest(name, list(trees), chosen)
        for tree in trees:
            self._forest_of[tree] = name

    def _create(self, spec: TreeSpec, mode: str | None) -> TreeUpdate:
        if mode is not None:
            _check_mode(mode)
        if not spec.name:
            raise QuotaTreeError(INVALID, m.INVALID_TREE_NAME.format(tree=spec.name))
        tree = QuotaTree(
            spec, mode if mode is not None else self._default_mode, self._quantity
        )
        tree.journal = _SEALED
        self._trees[spec.name] = tree
        return TreeUpdate(spec.name, True, spec.root, list(spec.dangling))

    def _update_many(
        self,
        specs: Mapping[str, TreeSpec] | None,
        renames: Mapping[str, Mapping[str, str]] | None,
        names: Iterable[str],
    ) -> dict[str, TreeUpdate]:
        chosen = dict(specs) if specs is not None else {n: self._trees[n].spec for n in names}
        answers: dict[str, TreeUpdate] = {}
        for name, spec in chosen.items():
            if spec.name != name:
                raise QuotaTreeError(INVALID, m.INVALID_TREE_NAME.format(tree=name))
        for name, spec in chosen.items():
            if name in self._trees:
                answers[name] = self._update(spec, (renames or {}).get(name))
            else:
                answers[name] = self._create(spec, None)
        return answers

    def _update(self, spec: TreeSpec, renames: Mapping[str, str] | None) -> TreeUpdate:
        old = self._trees[spec.name]
        new, unplaced, moved = rebuild(old, spec, renames)
        new.journal = _SEALED
        self._trees[spec.name] = new
        self._trials.drop_trees([spec.name])
        changes: list[PlacementChange] = []
        for cid, (before, placement) in moved.items():
            after = placement.spot if placement is not None else None
            if after != before:
                request = placement.request if placement is not None else None
                changes.append(PlacementChange(
                    spec.name, cid, after[0] if after else None, after[1] if after else None,
                    request))
        if unplaced:
            others = [t for t in self._members_of(spec.name) if t is not new]
            journal = self._begin(others)
            try:
                for tree in others:
                    for cid in unplaced:
                        p = tree.placements.get(cid)
                        if p is not None:
                            tree.deallocate(p, [])
            finally:
                self._end(others)
            more = self._changed(journal)
            changes.extend(more)
        return TreeUpdate(spec.name, False, spec.root, list(spec.dangling), unplaced, changes)

    def _allocate_one(
        self, target: QuotaTree, members: list[QuotaTree], consumer: ConsumerSpec,
        request: TreeRequest, trial: bool,
    ) -> AllocationResult:
        cid = consumer.id
        p, refusal = self._placement(target, cid, request, trial)
        if p is None:
            assert refusal is not None
            return refusal
        steps: list[str] = []
        preemptions: list[Preemption] = []
        if target.mode == MAINTENANCE:
            force_allocate(target, p, steps)
            return AllocationResult(cid, True, r.FORCED, "", {target.name: _node(p)},
                                    steps=steps, trial=trial)
        if not allocate(target, p, steps, preemptions):
            steps.append(m.STEP_REJECTED)
            return AllocationResult(cid, False, r.NO_QUOTA, m.REJECTED.format(tree=target.name),
                                    steps=steps, trial=trial)
        forest = self._forest_of.get(target.name)
        if forest is not None and preemptions:
            ids = _unique(x.consumer for x in preemptions)
            remove_preempted(forest, members[1:], ids, p, steps, preemptions)
        return AllocationResult(
            cid, True, r.ALLOCATED, "", {target.name: _node(p)},
            _unique(x.consumer for x in preemptions if x.how != r.WITH_FOREST),
            preemptions, steps, trial=trial,
        )

    def _allocate_forest(
        self, group: _Forest, members: list[QuotaTree], named: list[str],
        consumer: ConsumerSpec, trial: bool,
    ) -> AllocationResult:
        cid = consumer.id
        placements: list[Placement] = []
        for name in named:
            p, refusal = self._placement(self._trees[name], cid, consumer.trees[name], trial)
            if p is None:
                assert refusal is not None
                return refusal
            placements.append(p)
        for name in consumer.trees:
            if name not in group.trees:
                raise QuotaTreeError(INVALID, m.NOT_IN_FOREST.format(forest=group.name,
                                                                     tree=name))
        if not placements:
            raise QuotaTreeError(INVALID, m.ERR_NO_TREES.format(id=cid))
        steps: list[str] = []
        preemptions: list[Preemption] = []
        if group.mode == MAINTENANCE:
            for p in placements:
                tree_steps: list[str] = []
                force_allocate(p.tree, p, tree_steps)
                steps.extend(f"{p.tree.name}: {step}" for step in tree_steps)
            return AllocationResult(cid, True, r.FORCED, "",
                                    {p.tree.name: _node(p) for p in placements},
                                    steps=steps, trial=trial)
        mark = members[0].journal.mark()
        refused = allocate_jointly(group.name, members, placements, steps, preemptions)
        if refused is not None:
            members[0].journal.rollback(mark)
            steps.append(m.STEP_REJECTED)
            return AllocationResult(cid, False, r.NO_QUOTA, m.REJECTED.format(tree=refused.name),
                                    steps=steps, trial=trial)
        return AllocationResult(
            cid, True, r.ALLOCATED, "", {p.tree.name: _node(p) for p in placements},
            _unique(x.consumer for x in preemptions if x.how != r.WITH_FOREST),
            preemptions, steps, trial=trial,
        )

    def _placement(
        self, tree: QuotaTree, cid: str, request: TreeRequest, trial: bool
    ) -> tuple[Placement | None, AllocationResult | None]:
        """The placement to allocate, or the rejection of a request the tree cannot read."""
        if not request.group:
            return None, AllocationResult(cid, False, r.NO_DESIGNATION,
                                          m.NO_DESIGNATION.format(tree=tree.name), trial=trial)
        try:
            p = tree.new_placement(cid, request)
        except InvalidRequest as err:
            code = r.WRONG_LENGTH if str(err).startswith("Expected ") else r.BAD_REQUEST
            return None, AllocationResult(cid, False, code, str(err), trial=trial)
        if p.group is None:
            text = m.SNAPSHOT_FAILED if trial else m.REJECTED
            return None, AllocationResult(
                cid, False, r.UNKNOWN_GROUP, text.format(tree=tree.name),
                steps=[m.STEP_UNKNOWN_GROUP.format(group=request.group, tree=tree.name)],
                trial=trial,
            )
        return p, None

    def _begin(self, trees: Iterable[QuotaTree]) -> Journal:
        journal = Journal()
        for tree in trees:
            tree.journal = journal
        return journal

    def _end(self, trees: Iterable[QuotaTree]) -> None:
        for tree in trees:
            tree.journal = _SEALED

    def _changed(self, journal: Journal) -> list[PlacementChange]:
        """The placements the journal's operation moved; no trial on their trees can be undone
        any more."""
        changes = changes_since(journal)
        self._trials.drop_trees({c.tree for c in changes})
        return changes

    def _finish(
        self, key: TrialKey, journal: Journal, result: AllocationResult, trial: bool
    ) -> AllocationResult:
        changes = self._changed(journal) if result.allocated else []
        if trial:
            trees = tuple({id(p.tree): p.tree for p in touched(journal)}.values())
            if key[0] == "tree":
                trees = trees or (self._trees[key[1]],)
            else:
                trees = trees or tuple(self._trees[n] for n in self._forests[key[1]].trees)
            self._trials.keep(key, journal, trees)
        return AllocationResult(
            result.consumer, result.allocated, result.code, result.message, result.nodes,
            result.preempted, result.preemptions, result.steps, changes, trial,
        )

    def _undo(self, key: TrialKey, refusal: str) -> UndoResult:
        trial = self._trials.get(key)
        if trial is None or any(self._trees.get(t.name) is not t for t in trial.trees):
            raise QuotaTreeError(CONFLICT, refusal)
        self._trials.forget(key)
        changes = changes_of_rollback(trial.journal)
        self._trials.drop_trees({c.tree for c in changes})
        return UndoResult(key[2], changes)


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise QuotaTreeError(INVALID, m.UNKNOWN_MODE.format(mode=mode))


def _node(p: Placement) -> str:
    assert p.node is not None
    return p.node.name


def _unique(ids: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ids))
