"""What the engine answers: allocation results, preemptions, placement changes, tree updates."""

from __future__ import annotations

from dataclasses import dataclass, field

from trackers.quotatree.document import TreeRequest

# AllocationResult.code values. Allocated consumers get ALLOCATED (or FORCED in maintenance
# mode); every other code means nothing changed.
ALLOCATED = "allocated"
FORCED = "forced"
NO_QUOTA = "noQuota"  # the normal rejection: the algorithm found no room
UNKNOWN_GROUP = "unknownGroup"  # the group is not a leaf of the tree
NO_DESIGNATION = "noDesignation"  # an empty group
WRONG_LENGTH = "wrongLength"  # a request list of the wrong length
BAD_REQUEST = "badRequest"  # a negative amount, or a resource the tree does not have
NOT_ALLOCATED_CODES = frozenset(
    {NO_QUOTA, UNKNOWN_GROUP, NO_DESIGNATION, WRONG_LENGTH, BAD_REQUEST}
)

# Preemption.how values.
AT_ROOT = "root"  # pushed up from the root by slideUp (spec 2.3)
BY_PRIORITY = "priority"  # phase 2 priority preemption on the path (spec 2.4)
WITH_FOREST = "forest"  # preempted in another tree of its forest, so removed here too (2.7)


@dataclass(frozen=True)
class Preemption:
    """Who preempted whom, at which node, by which priority: one line of the preemption feed.

    ``tree``/``node`` say where the victim was allocated when it lost its place; for
    ``how == WITH_FOREST`` it is a tree where the victim was removed because it had been
    preempted in another tree of the forest.
    """

    consumer: str
    priority: int
    by: str
    by_priority: int
    tree: str
    node: str
    how: str


@dataclass(frozen=True)
class PlacementChange:
    """A consumer whose placement in a tree changed: ``node`` and ``stamp`` are the new aNode and
    ordering stamp, both None when it left the tree (de-allocated, preempted, unplaced).

    Store ``(tree, consumer) -> (node, stamp, request)`` for every change, in order, and
    ``restore`` rebuilds the same tree state.
    """

    tree: str
    consumer: str
    node: str | None
    stamp: int | None
    request: TreeRequest | None


@dataclass(frozen=True)
class AllocationResult:
    """The answer to an allocation (tree or forest; a trial too).

    ``nodes`` maps each tree to the consumer's aNode there (empty when not allocated);
    ``preempted`` lists the ids that lost their allocation, each once, in the order they were
    preempted, ``preemptions`` the details. ``message`` is the library's text ("" on success).
    ``steps`` says why: where it was placed or why it was rejected, what slid or was preempted.
    ``changes`` lists every placement that changed, for storage (empty when rejected).
    """

    consumer: str
    allocated: bool
    code: str
    message: str = ""
    nodes: dict[str, str] = field(default_factory=dict)
    preempted: list[str] = field(default_factory=list)
    preemptions: list[Preemption] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    changes: list[PlacementChange] = field(default_factory=list)
    trial: bool = False
    # The answer in the caller's own words (quotaweb fills it in; the library leaves it empty).
    explanation: str = ""

    @property
    def node(self) -> str | None:
        """The aNode of a single-tree allocation (the first tree's for a forest)."""
        return next(iter(self.nodes.values()), None)

    @property
    def forced(self) -> bool:
        return self.code == FORCED


@dataclass(frozen=True)
class Release:
    """The answer to a de-allocation: ``steps`` tells who slid down, ``changes`` what to store."""

    consumer: str
    trees: list[str]
    steps: list[str] = field(default_factory=list)
    changes: list[PlacementChange] = field(default_factory=list)


@dataclass(frozen=True)
class UndoResult:
    """The answer to an undo of a trial: the placements put back as they were."""

    consumer: str
    changes: list[PlacementChange] = field(default_factory=list)


@dataclass(frozen=True)
class TreeUpdate:
    """The answer to creating or updating a tree (the library's create response plus the
    consumers that could not be re-placed, spec 2.8). ``unplaced`` consumers were removed from
    every tree of their forest; ``changes`` covers all trees touched."""

    tree: str
    created: bool
    root: str | None
    dangling: list[str]
    unplaced: list[str] = field(default_factory=list)
    changes: list[PlacementChange] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return self.root is not None and not self.dangling
