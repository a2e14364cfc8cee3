"""Judging a changed configuration by what the change can affect.

Every stored version was valid when it was stored, so a candidate that differs from it in a few
queues can only break a rule that looks at one of those queues: its own rules (ACLs, its limit
entries, its quantities), its children's names and application caps, the resource rules of its
subtree (its max caps every descendant) or, when its guaranteed or the tree's shape changed, of
the whole partition (the guaranteed of each queue sums up to the root), the hierarchical limits
of its subtree (inheriting from its ancestors), and the root's structure when the root's limits
changed. ``locally_valid`` runs the very rule functions the full validation runs, on those
queues only, and answers True only when they find nothing: then the full validation would find
nothing either. It never builds an error list of its own: anything it finds, or anything it
cannot localise, is judged by the full validation, whose errors are the answer.

The diff walks old and new trees side by side by path and skips shared subtrees (an edit made on
the model shares every untouched queue with the version before it): its cost is that of the
changed paths, not of the tree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from trackers.config import partition_rules, queue_rules, resource_rules, tree_rules
from trackers.config.build import Locations, build_config
from trackers.config.loader import MAX_BYTES, DocumentError, load_document
from trackers.config.model import Config, Partition, Queue
from trackers.config.report import Report
from trackers.config.scope import Scope
from trackers.config.validate import check_config
from trackers.gcpause import paused_gc
from trackers.resources import component_min


@dataclass(frozen=True)
class Changes:
    """How a partition's queue tree differs from the one before, by path."""

    own: frozenset[str] = frozenset()  # queues in both whose own settings differ
    limits: frozenset[str] = frozenset()  # queues in both whose limit entries differ
    added: frozenset[str] = frozenset()  # the top queue of each new subtree
    removed: frozenset[str] = frozenset()  # the top queue of each subtree gone
    parents: frozenset[str] = frozenset()  # queues whose list of children differs

    def __bool__(self) -> bool:
        return bool(self.own or self.limits or self.added or self.removed or self.parents)


def own_settings(queue: Queue) -> tuple[object, ...]:
    """Everything of a queue but its children and limit entries."""
    return (
        queue.name, queue.parent, queue.resources, queue.max_applications, queue.properties,
        queue.admin_acl, queue.submit_acl, queue.child_template,
    )


def queue_changes(old: Queue, new: Queue) -> Changes:
    """The differences of two queue trees (two versions' roots), shared subtrees skipped."""
    own: set[str] = set()
    limits: set[str] = set()
    added: set[str] = set()
    removed: set[str] = set()
    parents: set[str] = set()
    stack = [(old, new)]
    while stack:
        before, after = stack.pop()
        if before is after:
            continue
        if own_settings(before) != own_settings(after):
            own.add(after.path)
        if before.limits != after.limits:
            limits.add(after.path)
        if before.children is after.children:
            continue
        was = {child.path: child for child in before.children}
        if list(was) != [child.path for child in after.children]:
            parents.add(after.path)
        for child in after.children:
            match = was.pop(child.path, None)
            if match is None:
                added.add(child.path)
            else:
                stack.append((match, child))
        removed.update(was)
    return Changes(
        own=frozenset(own), limits=frozenset(limits), added=frozenset(added),
        removed=frozenset(removed), parents=frozenset(parents),
    )


def _settings(partition: Partition) -> tuple[object, ...]:
    return (
        partition.name, partition.limits, partition.placement_rules, partition.preemption,
        partition.node_sort_policy, partition.user_group_resolver,
    )


def partition_changes(old: Partition, new: Partition) -> Changes | None:
    """The queue changes, or None when the partition's own settings or partition-level limits
    changed too (those are judged whole)."""
    if _settings(old) != _settings(new):
        return None
    return queue_changes(old.root, new.root)


def chain(root: Queue, path: str) -> list[Queue] | None:
    """The queues from ``root`` down to the one at ``path`` (the full, lower-cased path), or
    None when there is none."""
    return Locator(root).chain(path)


class Locator:
    """``chain`` for many paths of one tree: each queue's children are indexed once, so
    locating many queues below one parent costs its children once, not once per queue."""

    def __init__(self, root: Queue) -> None:
        self.root = root
        self._chains: dict[str, list[Queue] | None] = {root.path: [root]}
        self._children: dict[str, dict[str, Queue]] = {}

    def chain(self, path: str) -> list[Queue] | None:
        if path in self._chains:
            return self._chains[path]
        parent_path, dot, _ = path.rpartition(".")
        above = self.chain(parent_path) if dot else None
        found = None
        if above is not None:
            parent = above[-1]
            children = self._children.get(parent_path)
            if children is None:
                children = self._children[parent_path] = {c.path: c for c in parent.children}
            child = children.get(path)
            found = None if child is None else [*above, child]
        self._chains[path] = found
        return found


def queue_replace(partition: Partition, path: str, queue: Queue) -> Partition:
    """``partition`` with ``queue`` at ``path`` (its ancestors copied, everything else shared);
    ``queue`` None removes the queue there. ``KeyError`` when there is no such queue."""
    found = chain(partition.root, path)
    if found is None:
        raise KeyError(path)
    replacement = queue
    for parent, child in zip(reversed(found[:-1]), reversed(found[1:]), strict=True):
        children = tuple(
            replacement if sibling is child else sibling for sibling in parent.children
            if sibling is not child or replacement is not None
        )
        replacement = dataclasses.replace(parent, children=children)
    assert replacement is not None  # the root is never removed
    return dataclasses.replace(partition, root=replacement)


def locally_valid(
    old: Partition, new: Partition, changes: Changes, *, index: int = 0,
    locations: Locations | None = None,
) -> bool:
    """Whether ``new`` (partition ``index`` of its document) keeps every rule, given that
    ``old`` kept them all and ``changes`` is ``partition_changes(old, new)``. False when a rule
    it ran found something, or when the change is one it does not localise (the root's own
    settings, whose S2 check depends on how the root was written): judge those whole."""
    root = new.root
    if root.path in changes.own:
        return False
    loc = locations or Locations(partitions=[""] * (index + 1))
    report = Report()
    scope = Scope(report, loc, new, index)

    locator = Locator(root)

    def find(path: str) -> list[Queue]:
        found = locator.chain(path)
        assert found is not None, path
        return found

    touched: dict[str, list[Queue]] = {path: find(path) for path in changes.own | changes.limits}
    for top in changes.added:
        found = find(top)
        stack = [(found[:-1], found[-1])]
        while stack:
            ancestors, queue = stack.pop()
            touched[queue.path] = [*ancestors, queue]
            stack.extend(([*ancestors, queue], child) for child in queue.children)

    # The queue's own rules and its children's names; application caps with its parent and
    # its children.
    caps_checked: dict[str, Queue] = {}
    for found in touched.values():
        queue_rules.check_queue(scope, found[-1], len(found))
        caps_checked.update((queue.path, queue) for queue in found[-2:])
    for path in changes.parents:
        found = find(path)
        queue_rules.check_queue(scope, found[-1], len(found))
        caps_checked[path] = found[-1]
    for queue in caps_checked.values():
        tree_rules.check_child_apps(scope, queue)

    # Resources: a guaranteed value or the tree's shape changes the sums up to the root; a max
    # changes what its subtree is held to.
    old_locator = Locator(old.root)
    guaranteed_moved = bool(changes.added or changes.removed) or any(
        (before := old_locator.chain(path)) is None or before[-1].guaranteed != found[-1].guaranteed
        for path, found in touched.items() if path in changes.own
    )
    if guaranteed_moved:
        resource_rules.check_resources(scope)
    else:
        for path in _tops(changes.own):
            found = touched[path]
            resource_rules.check_resources(scope, found[-1], _effective_max(scope, found[:-1]))

    # Hierarchical limits: the changed entries against their ancestors', and everything below
    # against them.
    for path in _tops(changes.limits | changes.added):
        found = touched[path]
        tree_rules.check_hierarchical_limits(
            scope, found[-1], tree_rules.inherited_below(scope, found[:-1])
        )
    if root.path in changes.limits:
        partition_rules.check_structure(scope)
    return not report.errors


def _tops(paths: Collection[str]) -> list[str]:
    """The paths none of whose ancestors is among ``paths`` (a walk from them covers all)."""
    def ancestors(path: str) -> Iterator[str]:
        while "." in path:
            path = path.rpartition(".")[0]
            yield path

    return [path for path in paths if not any(above in paths for above in ancestors(path))]


def _effective_max(scope: Scope, ancestors: list[Queue]) -> dict[str, int] | None:
    """The effective max the resource rules hand to the child of the last of ``ancestors``."""
    effective: dict[str, int] | None = None
    for queue in ancestors:
        _, _, maximum, failures = scope.queue_resources(queue)
        effective = component_min({} if failures else maximum, effective)
    return effective


def shared_with(old: Queue, new: Queue) -> Queue:
    """``new`` with each of its subtrees that equals ``old``'s subtree at the same path taken
    from ``old`` (the very objects): equal to ``new``, and what differs from ``old`` is then
    found by identity, as for an edit made on the model."""
    if old is new:
        return new
    before = {child.path: child for child in old.children}
    children = tuple(
        shared_with(before[child.path], child) if child.path in before else child
        for child in new.children
    )
    if (
        len(children) == len(old.children)
        and all(a is b for a, b in zip(children, old.children, strict=True))
        and own_settings(old) == own_settings(new) and old.limits == new.limits
    ):
        return old
    if all(a is b for a, b in zip(children, new.children, strict=True)):
        return new
    return dataclasses.replace(new, children=children)


def read_config_beside(
    yaml_text: str | bytes, *, active: Config, max_bytes: int = MAX_BYTES,
    elastic: Collection[str] = (),
) -> tuple[Config | None, list[dict[str, str]]]:
    """``read_config``'s answer for a document that may differ from the valid ``active``
    configuration in a few places: read and built whole, then judged by what differs when
    every partition is where it was (the same name at the same place) and none of the
    ``elastic`` ones changed; judged whole otherwise. A valid model shares every queue that
    did not change with ``active``."""
    with paused_gc():
        try:
            raw = load_document(yaml_text, max_bytes=max_bytes)
        except DocumentError as err:
            return None, [{"code": "PARSE", "path": "", "field": "", "message": str(err)}]
        config, locations, errors = build_config(raw)
        if errors:
            return None, errors
        shared = _shared(config, active, locations, elastic)
        if shared is not None:
            return shared, []
        return config, check_config(config, locations, elastic=elastic)


def _shared(
    config: Config, active: Config, locations: Locations, elastic: Collection[str]
) -> Config | None:
    """``config`` sharing what it can with ``active`` when it keeps every rule, judged by
    what differs; None when it has to be judged whole."""
    if [p.name for p in config.partitions] != [p.name for p in active.partitions]:
        return None
    if locations.missing_queues or elastic:
        return None
    partitions = []
    for index, (old, new) in enumerate(zip(active.partitions, config.partitions, strict=True)):
        root = shared_with(old.root, new.root)
        partition = dataclasses.replace(new, root=root) if root is not new.root else new
        changes = partition_changes(old, partition)
        if changes is None:
            return None
        if not changes and partition == old:
            partitions.append(old)
            continue
        # Rules read where the root's resources keys were written by partition index only.
        if not locally_valid(old, partition, changes, index=index, locations=locations):
            return None
        partitions.append(partition)
    return dataclasses.replace(config, partitions=tuple(partitions))
