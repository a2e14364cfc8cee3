"""Quota trees: hard/soft quotas with borrowing and preemption (the MCAD/CodeFlare
quota-manager model, spec ``quota-trees.md``), without the library's defects (spec 2.10).

Pure Python, no Django. Everything goes through one ``QuotaManager`` (thread-safe, one lock).

Documents (``document.py``)
    ``check_tree(doc)`` / ``check_consumer(doc, trees)`` list every problem as
    ``{code, path, field, message}``; ``parse_tree(doc) -> TreeSpec`` and
    ``parse_consumer(doc, trees) -> ConsumerSpec`` raise ``DocumentError`` (a ``ConfigError``,
    ``.errors``) on any. ``build_tree(doc) -> (TreeSpec, problems)`` is the library's lenient
    reading (dangling nodes dropped and reported in ``TreeSpec.dangling``), for edits that leave
    a tree incomplete. ``allocation_consumer(body, tree, trees)`` reads the API's one-tree
    allocation body. ``make_tree(...)`` and ``tree_consumer(...)`` build them from Python values.

Manager (``manager.py``); ``T`` a tree name, ``F`` a forest name, ``C`` a ``ConsumerSpec``
    trees:   ``add_tree(spec, mode=)``, ``update_tree(spec, renames=)``, ``put_tree(spec,
             renames=, mode=)`` -> ``TreeUpdate(root, dangling, unplaced, changes)``;
             ``update_all(specs=None, renames=None)``, ``update_forest(F, ...)``;
             ``delete_tree(T)`` (CONFLICT while consumers are allocated); ``set_tree_mode``.
    forests: ``add_forest(F, [T...], mode=)``, ``put_forest``, ``delete_forest``,
             ``set_forest_mode``; trees are processed in the list's order.
    consumers: ``allocate(T, C, trial=False)``, ``try_allocate(T, C)``, ``undo(T, id)``,
             ``deallocate(T, id)``; ``allocate_forest(F, C, trial=False)``,
             ``try_allocate_forest``, ``undo_forest(F, id)``, ``deallocate_forest(F, id)``.
    reading: ``state(T)`` (per node parent, hard, quota, allocated, slack, consumers in order),
             ``placements(T)``, ``placement(T, id)`` (with ``reasons``: why it is there),
             ``is_allocated``, ``is_allocated_forest``, ``tree_names``, ``forest_trees``...
    persistence: every mutating call answers ``changes`` (``PlacementChange(tree, consumer,
             node, stamp, request)``, node None = gone). ``export(T)`` and ``restore_tree(data)``
             rebuild a tree exactly (same allocated, same consumers in the same order).

Results (``results.py``): ``AllocationResult(allocated, code, message, nodes, preempted,
preemptions, steps, changes)``; ``Preemption(consumer, priority, by, by_priority, tree, node,
how)`` is one line of the preemption feed; ``steps`` explain the placement or the rejection.
Refused calls raise ``QuotaTreeError`` (``code``: NOT_FOUND, CONFLICT, INVALID).

Modes: trees and forests start in NORMAL mode unless ``QuotaManager(mode=MAINTENANCE)`` or the
``mode=`` of ``add_tree``/``add_forest`` says otherwise (the library started in maintenance). In
MAINTENANCE, allocations are forced at the group without checks and trials are refused (forest
trials fall back to a forced allocation, which ``undo_forest`` can still take back).

Specified behaviour kept on purpose (spec 2.10 item 5): slide-down moves a consumer one level per
de-allocation; priority preemption only reaches consumers on the new consumer's own path; a
forest's trees are processed in its defined order. quotaweb's own rules: a consumer preempted on
a tree of a forest is removed from every tree of that forest; a request resource the tree does
not have is refused unless its amount is 0 (then ignored, M7).

Example::

    from trackers.quotatree import QuotaManager, make_tree, tree_consumer

    manager = QuotaManager()
    manager.add_tree(make_tree("t", ["cpu"], [("A", None, 3, False), ("B", "A", 1, False),
                                              ("C", "A", 1, False)]))
    result = manager.allocate("t", tree_consumer("job-1", "t", "B", {"cpu": 1}))
    assert result.allocated and result.node == "B"
    trial = manager.try_allocate("t", tree_consumer("job-2", "t", "B", {"cpu": 1}))
    assert trial.node == "A"          # B is full: it borrows at A
    manager.undo("t", "job-2")        # exactly as before the trial
    manager.deallocate("t", "job-1")
"""

from trackers.quotatree.document import (
    ConsumerSpec,
    DocumentError,
    NodeSpec,
    TreeRequest,
    TreeSpec,
    allocation_consumer,
    build_tree,
    check_consumer,
    check_tree,
    make_tree,
    parse_consumer,
    parse_tree,
    tree_consumer,
)
from trackers.quotatree.manager import (
    CONFLICT,
    INVALID,
    MAINTENANCE,
    MODES,
    NORMAL,
    NOT_FOUND,
    QuotaManager,
    QuotaTreeError,
)
from trackers.quotatree.results import (
    AllocationResult,
    PlacementChange,
    Preemption,
    Release,
    TreeUpdate,
    UndoResult,
)

__all__ = [
    "CONFLICT",
    "INVALID",
    "MAINTENANCE",
    "MODES",
    "NORMAL",
    "NOT_FOUND",
    "AllocationResult",
    "ConsumerSpec",
    "DocumentError",
    "NodeSpec",
    "PlacementChange",
    "Preemption",
    "QuotaManager",
    "QuotaTreeError",
    "Release",
    "TreeRequest",
    "TreeSpec",
    "TreeUpdate",
    "UndoResult",
    "allocation_consumer",
    "build_tree",
    "check_consumer",
    "check_tree",
    "make_tree",
    "parse_consumer",
    "parse_tree",
    "tree_consumer",
]
