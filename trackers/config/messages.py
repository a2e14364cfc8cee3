"""Every validation message, in one place so callers and tests share the exact texts.

Where the spec quotes YuniKorn's text (typos such as "exeecd", the trailing space of L8 and Go's
``map[k:v]`` formatting included) the text is kept byte for byte, so messages can be compared with
YuniKorn's and with the spec's scenarios. Templates use ``str.format`` fields.
"""

from __future__ import annotations

# Structure (S1-S3) and partition names.
QUEUES_NOT_SET = "queue config is not set"
ROOT_HAS_RESOURCES = "root queue must not have resource limits set"
PARTITION_LIMITS_DIFFER = "partition limits and root queue limits are not equivalent"
DUPLICATE_PARTITION = "duplicate partition name found with name {name}"
INVALID_PARTITION_NAME = (
    "invalid partition name '{name}', max 64 characters consisting of alphanumeric characters "
    "and '-', '_' allowed"
)

# Queue rules (Q1-Q3).
ACL_MULTIPLE_SPACES = "multiple spaces found in ACL: '{acl}'"
INVALID_QUEUE_NAME = (
    "invalid queue name, max 64 characters consisting of alphanumeric characters and "
    "'-', '_', '#', '@', '/', ':' allowed"
)
DUPLICATE_CHILD = "duplicate child name found with name '{name}', level {level}"

# Limit rules (L1-L12).
EMPTY_USERS_AND_GROUPS = "empty user and group lists defined in limit '{entry}'"
INVALID_LIMIT_USER = "invalid limit user name '{name}' in limit definition"
DUPLICATE_USER = "duplicated user name '{name}', already exists"
USER_AFTER_WILDCARD = "should not set no wildcard user {name} after wildcard user limit"
INVALID_LIMIT_GROUP = "invalid limit group name '{name}' in limit definition"
DUPLICATE_GROUP = "duplicated group name '{name}'"
GROUP_AFTER_WILDCARD = "should not set no wildcard group {name} after wildcard group limit"
ONLY_WILDCARD_GROUP = (
    "should not specify only one group limit that is using the wildcard. "
    "There must be at least one limit with a group name defined "
)
LIMIT_RESOURCES_NOT_POSITIVE = "MaxResources should be greater than zero in '{limit}' limit"
LIMIT_ALL_NULL = "invalid resource combination for limit {limit} all resource limits are null"
LIMIT_APPS_ABOVE_QUEUE = (
    "invalid MaxApplications settings for limit {limit} exceed current the queue MaxApplications"
)
LIMIT_RESOURCES_ABOVE_QUEUE = (
    "invalid MaxResources settings for limit {limit} exeecd current the queue MaxResources"
)
QUEUE_MAX_UNPARSABLE = "parse queue {queue} max resource failed: {error}"

# Queue resources (R1-R4).
GUARANTEED_ABOVE_MAX = (
    "guaranteed resource {guaranteed} is larger than maximum resource {max} for queue {queue}"
)
MAX_ABOVE_PARENT = (
    "max resource of parent {parent} is smaller than maximum resource {max} for queue {queue}"
)
CHILDREN_ABOVE_GUARANTEED = (
    "guaranteed resource of parent {guaranteed} is smaller than sum of guaranteed resources "
    "{children} of the children for queue {queue}"
)
CHILDREN_ABOVE_MAX = (
    "max resource {max} is smaller than sum of guaranteed resources {children} "
    "of the children for queue {queue}"
)

# Queue maxapplications (A1, A2).
CHILD_APPS_ABOVE_PARENT = "parent maxApplications must be larger than child maxApplications"
CHILD_APPS_UNSET = (
    "maxApplications is either undefined or zero, which is not allowed when parent queue's "
    "maxApplications is defined"
)

# Hierarchical limits (H1-H4); {kind} is "user" or "group".
NAME_RESOURCES_ABOVE_ANCESTOR = (
    "{kind} {name} max resource {new} of queue {queue} is greater than immediate or ancestor "
    "parent maximum resource {inherited}"
)
NAME_RESOURCES_ABOVE_WILDCARD = (
    "{kind} {name} max resource {new} of queue {queue} is greater than wildcard maximum resource "
    "{inherited} of immediate or ancestor parent queue"
)
NAME_APPS_ABOVE_ANCESTOR = (
    "{kind} {name} max applications {new} of queue {queue} is greater than immediate or ancestor "
    "parent max applications {inherited}"
)
NAME_APPS_ABOVE_WILDCARD = (
    "{kind} {name} max applications {new} of queue {queue} is greater than wildcard max "
    "applications {inherited} of immediate or ancestor parent queue"
)

# Plain-words details (the ``detail`` key) for the rules above, values in human units.
DETAIL_LIMIT_NOT_POSITIVE = (
    "max resources {values} of limit {limit}: no value may be negative and at least one must be "
    "above zero"
)
DETAIL_LIMIT_CAPS_NOTHING = (
    "limit {limit} caps nothing: give it max resources above zero or max applications"
)
DETAIL_LIMIT_APPS_ABOVE_QUEUE = (
    "max applications {limit_apps} of limit {limit} is above this queue's max applications "
    "{queue_apps}"
)
DETAIL_LIMIT_RESOURCES_ABOVE_QUEUE = (
    "max resources of limit {limit} ({limit_resources}) go above this queue's max "
    "({queue_max})"
)
DETAIL_CHILD_APPS_ABOVE_PARENT = (
    "max applications {child_apps} is above the max applications {parent_apps} of the parent "
    "queue {parent}"
)
DETAIL_CHILD_APPS_UNSET = (
    "max applications is not set, but the parent queue {parent} allows {parent_apps}: set a "
    "value from 1 to {parent_apps}"
)
DETAIL_GUARANTEED_ABOVE_MAX = "guaranteed ({guaranteed}) is above this queue's max ({max})"
DETAIL_MAX_ABOVE_PARENT = "max ({max}) is above the tightest max of the queues above ({parent})"
DETAIL_CHILDREN_ABOVE_GUARANTEED = (
    "the guaranteed of the child queues add up to {children}, more than this queue's "
    "guaranteed ({guaranteed})"
)
DETAIL_CHILDREN_ABOVE_MAX = (
    "the guaranteed of the child queues add up to {children}, more than this queue's "
    "effective max ({max})"
)
# ``who`` is "user bob" or "group ml", and the wildcard "everyone (*)" (tree_rules._named): a
# bare "user *" reads like a user named "*"; ``name`` is the name alone, shown the same way.
DETAIL_NAME_RESOURCES_ABOVE_ANCESTOR = (
    "{who} gets max resources {new} here, more than the {inherited} a limit of a queue "
    "above allows for {name}"
)
DETAIL_NAME_RESOURCES_ABOVE_WILDCARD = (
    "{who} gets max resources {new} here, more than the {inherited} the wildcard limit "
    "of a queue above allows"
)
DETAIL_NAME_APPS_ABOVE = (
    "{who} gets max applications {new} here, more than the {inherited} a queue above "
    "allows{through}"
)
DETAIL_NAME_APPS_UNSET = (
    "{who} has no max applications here, but a queue above caps it at {inherited}"
    "{through}: set a value from 1 to {inherited}"
)
DETAIL_THROUGH_WILDCARD = " (through its wildcard limit)"

# Plain-words details of a QTY error: the resource and the value at fault, as written.
DETAIL_NOT_A_QUANTITY = (
    "{kind}: {value} is not a quantity (expected a number with an optional unit such as "
    "{examples})"
)
DETAIL_QUANTITY_EMPTY = (
    "{kind}: no quantity is written (expected a number with an optional unit such as "
    "{examples})"
)
DETAIL_QUANTITY_NEGATIVE = "{kind}: {value} is negative"
DETAIL_QUANTITY_SUFFIX = "{kind}: {value} has a unit {kind} does not take (such as {examples})"
DETAIL_QUANTITY_OVERFLOW = "{kind}: {value} is too large (at most 2^63-1 in base units)"
QUANTITY_EXAMPLES_VCORE = "500m, 2"
QUANTITY_EXAMPLES_MEMORY = "512Mi, 4Gi"
QUANTITY_EXAMPLES_OTHER = "4, 10k"

# Placement rules, node sort policy, user group resolver (structural, code PARSE).
PLACEMENT_NAME_EMPTY = "placement rule name must not be empty"
PLACEMENT_FILTER_TYPE = "placement rule filter type must be '', 'allow' or 'deny', not '{type}'"
NODE_SORT_TYPE = "node sort policy type must be '', 'fair' or 'binpacking', not '{type}'"
NODE_SORT_WEIGHT = (
    "node sort policy resource weight for {kind} must be a number of at least 0, not {weight}"
)
RESOLVER_TYPE = "user group resolver type must be '', 'os', 'ldap' or 'test', not '{type}'"

# Document and structure problems (code PARSE).
DOCUMENT_TOO_LARGE = "the document is {size} bytes, more than the limit of {limit} bytes"
DOCUMENT_AT_LEAST = "the document is at least {size} bytes, more than the limit of {limit} bytes"
DOCUMENT_NOT_UTF8 = "the document is not valid UTF-8"
DOCUMENT_TOO_DEEP = "the document nests deeper than {limit} levels (at line {line})"
DOCUMENT_TOO_MANY_NODES = "the document expands to more than {limit} values (at line {line})"
DOCUMENT_TOO_MANY_ALIASES = "the document uses more than {limit} aliases (at line {line})"
DOCUMENT_RECURSIVE_ALIAS = "alias *{name} refers to itself (at line {line})"
DOCUMENT_UNKNOWN_ALIAS = "alias *{name} has no anchor before it (at line {line})"
DOCUMENT_TAG = "tag {tag} is not allowed (at line {line})"
DOCUMENT_NUL = "text may not hold the NUL character \\0 (at line {line})"
DOCUMENT_MANY = "the stream holds more than one YAML document (at line {line})"
DOCUMENT_KEY_NOT_TEXT = "mapping keys must be text, found {found} (at line {line})"
DOCUMENT_DUPLICATE_KEY = "key {key} appears twice in one mapping (at line {line})"
DOCUMENT_SYNTAX = "YAML syntax error: {detail}"
UNKNOWN_FIELD = "field {key} not found in {what} at {where}"
WRONG_TYPE = "{where} must be {expected}, found {found}"
