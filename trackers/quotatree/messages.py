"""Every text the quota-tree engine answers with, in one place so callers and tests share them.

The manager's messages keep the quota-manager library's wording (spec ``quota-trees.md`` 2.9),
so answers can be compared with MCAD's. Document problems (``CODE_*`` and ``ERR_*``) and the
steps that explain a placement (``STEP_*``) are quotaweb's own. Templates use ``str.format``.
"""

from __future__ import annotations

# Manager answers (spec 2.9), kept byte for byte. CONSUMER_EXISTS, CONSUMER_NOT_ADDED and
# UNKNOWN_FOREST belong to the library's separate consumer registry, which quotaweb does not
# have (a consumer exists while it is allocated): kept so the list stays whole.
TREE_EXISTS = "tree {tree} already exists; delete first"
TREE_MISSING = "tree {tree} does not exist"
TREE_BUSY = "consumer(s) allocated in tree {tree}"
CONSUMER_EXISTS = "consumer {id} already exists"
CONSUMER_MISSING = "consumer {id} does not exist"
INVALID_TREE_NAME = "invalid tree name {tree}"
CONSUMER_NOT_ADDED = "consumer {id} does not exist, create and add first"
ALREADY_ON_TREE = "consumer {id} already allocated on tree {tree}"
NO_SPEC_FOR_TREE = "failure creating consumer {id} on tree {tree}"
REJECTED = "Failed to allocate quota on quota designation '{tree}'"
UNDO_FAILED = "failed undo allocate tree name {tree}"
FOREST_EXISTS = "duplicate forest name {forest}"
FOREST_MISSING = "forest {forest} does not exist"
UNKNOWN_TREE = "unknown tree name {tree}"
UNKNOWN_FOREST = "unknown forest name {forest}"
NOT_IN_FOREST = "forest {forest} does not include tree {tree}"
INVALID_FOREST_NAME = "invalid forest name {forest}"
ALREADY_ON_FOREST = "consumer {id} already allocated on forest {forest}"
WRONG_LENGTH = "Expected {expected} resources for quota designations '{tree}', received {received}"
NO_DESIGNATION = "No quota designations provided for '{tree}'"
SNAPSHOT_FAILED = "Failed to take a state snapshot of tree '{tree}'"
NOT_NORMAL_MODE = "manager is not in normal mode"
INVALID_KIND = "invalid kind: {kind}"

# quotaweb's own answers where the library had none (it crashed, or had no such call).
UNDO_FOREST_FAILED = "failed undo allocate forest name {forest}"
TREE_IN_OTHER_FOREST = "tree {tree} already belongs to forest {forest}"
UNKNOWN_MODE = "unknown mode {mode}: expected normal or maintenance"
BAD_RESTORE = "cannot restore tree {tree}: {problem}"

# Document problems: codes (stable, for programs) and texts (for people).
CODE_DOCUMENT = "invalidDocument"
CODE_KIND = "invalidKind"
CODE_TREE_NAME = "invalidTreeName"
CODE_RESOURCE_NAME = "invalidResourceName"
CODE_DUPLICATE_RESOURCE = "duplicateResourceName"
CODE_NODE = "invalidNode"
CODE_NO_ROOT = "noRoot"
CODE_TWO_ROOTS = "multipleRoots"
CODE_DANGLING = "danglingNode"
CODE_CYCLE = "cycle"
CODE_QUOTA = "invalidQuota"
CODE_UNKNOWN_RESOURCE = "unknownResource"
CODE_HARD = "invalidHard"
CODE_CONSUMER_ID = "missingConsumerId"
CODE_UNKNOWN_TREE = "unknownTree"
CODE_DUPLICATE_TREE = "duplicateTree"
CODE_GROUP = "invalidGroup"
CODE_REQUEST = "invalidRequest"
CODE_REQUEST_LENGTH = "wrongRequestLength"
CODE_FIELD = "invalidField"

ERR_NOT_OBJECT = "{what} must be a JSON object"
ERR_NOT_LIST = "{what} must be a list"
ERR_TREE_NAME = "tree name must be a non-empty string"
ERR_RESOURCE_NAME = "resource name must be a non-empty string, got {value!r}"
ERR_DUPLICATE_RESOURCE = "resource name {name} is listed twice"
ERR_NODE_NAME = "node name must be a non-empty string other than 'nil'"
ERR_NO_ROOT = "the tree has no root: one node needs an empty or 'nil' parent"
ERR_TWO_ROOTS = "node {node} is a second root (the root is {root})"
ERR_DANGLING = "node {node} has unknown parent {parent}"
ERR_CYCLE = "node {node} is on a parent cycle: {cycle}"
ERR_QUOTA = (
    "quota {resource} of node {node} must be an integer from 0 to 9223372036854775807 (2^63-1), "
    "got {value!r}"
)
ERR_QUOTA_RESOURCE = "quota {resource} of node {node} is not one of the tree's resource names"
ERR_HARD = "hard of node {node} must be true or false, got {value!r}"
ERR_PARENT = "parent of node {node} must be a string, got {value!r}"
ERR_CONSUMER_ID = "consumer id must be a non-empty string"
ERR_NO_TREES = "consumer {id} names no tree"
ERR_UNKNOWN_TREE = "consumer {id} names unknown tree {tree}"
ERR_DUPLICATE_TREE = "consumer {id} names tree {tree} twice"
ERR_UNKNOWN_GROUP = "group {group} is not a node of tree {tree}"
ERR_GROUP_NOT_LEAF = "group {group} of tree {tree} is not a leaf"
ERR_REQUEST = (
    "request {resource} must be an integer from 0 to 9223372036854775807 (2^63-1), got {value!r}"
)
ERR_REQUEST_RESOURCE = "request {resource} is not one of the resource names of tree {tree}"
ERR_INTEGER_FIELD = "{field} must be an integer, got {value!r}"
ERR_BOOLEAN_FIELD = "{field} must be true or false, got {value!r}"

# Steps: why a consumer went where it went (AllocationResult.steps, Placement.reasons).
STEP_UNKNOWN_GROUP = "group {group} is not a leaf of tree {tree}: nothing changed"
STEP_FITS = "placed at {node} ({usage})"
STEP_FULL = "{node} full ({usage})"
STEP_HARD_STOP = "{node} is hard: cannot borrow above it"
STEP_SLID_UP = "{consumer} slid up from {node} to {parent}"
STEP_SLID_UP_TO_MAKE_ROOM = "slid up from {node} to {parent} to make room for {by}"
STEP_PREEMPTED_AT_ROOT = "{consumer} preempted at root {node} (priority {priority}, by {by})"
STEP_PREEMPTED_BY_PRIORITY = (
    "{consumer} preempted at {node} (priority {priority} < {by_priority}, by {by})"
)
STEP_CHARGE_FAILED = "charging {node} failed ({usage}): attempt at {anode} undone"
STEP_PHASE_TWO = "phase 2: preempting priorities below {priority} from {node} down to {group}"
STEP_PHASE_TWO_NOTHING = (
    "phase 2: preempting lower priorities on the path cannot make room at {node}"
)
STEP_RETRY = "room made at {node}: allocating again"
STEP_NO_PREEMPTION = "priority {priority}: no preemption (only priorities above 0 preempt)"
STEP_REJECTED = "rejected: nothing changed"
STEP_FORCED = "maintenance mode: force-allocated at group {node}, quotas not checked"
STEP_SLID_DOWN = "{consumer} slid down from {parent} to {node}"
STEP_SLID_DOWN_AFTER = "slid down from {parent} to {node} when {by} left"
STEP_REMOVED_WITH_FOREST = "{consumer} removed from tree {tree} (preempted in forest {forest})"
STEP_REPLACED = "tree update: force-placed at {node}"
