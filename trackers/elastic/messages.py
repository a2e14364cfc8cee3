"""Every text of the elastic quota package, shared by the code and its tests.

Validation messages keep Koordinator's webhook texts (spec 1.11) with the queue path where
Koordinator prints a quota name; the ``detail`` templates say the same in plain words.
"""

from __future__ import annotations

# Bad calls on ElasticTree (InvalidRequest); nothing is changed when one is raised.
ERR_UNKNOWN_QUEUE = "queue {path!r} is not in this elastic quota tree"
ERR_PARENT_DEMAND = (
    "queue {path!r} has child queues: pending demand belongs to leaf queues only"
)
ERR_VALUE = "{what} must map resource types to non-negative integers, found {kind!r}: {value!r}"
ERR_NOT_A_MAP = "{what} must be a map of resource types to non-negative integers, not {value!r}"

# Validation codes (spec 1.11, prefixed with "E-").
CODE_WEIGHT = "E-S3"
CODE_MIN_KEY = "E-S4"
CODE_KEYS = "E-T4"
CODE_MIN_SUM = "E-T5"
CODE_FLAG = "E-P1"

# Koordinator's texts; Koordinator names the annotation, quotaweb the queue property.
WEIGHT_NEGATIVE = "{queue} quota.Properties[{prop}]'s value < 0, in dimension :[{dimensions}]"
WEIGHT_INVALID = "{queue} quota.Properties[{prop}]'s value is invalid: {error}"
MIN_KEY_NOT_IN_MAX = (
    "resourceKey {kind} of quota {queue} is included in min, which is not included in max"
)
MAX_KEYS_DIFFER = (
    "failed to check sub and parent group quotaKey, err: checkSubAndParentGroupQuotaKey failed: "
    "{parent}'s max keys are not the same with {queue}'s"
)
MIN_KEYS_NOT_INCLUDED = (
    "failed to check sub and parent group quotaKey, err: checkSubAndParentGroupQuotaKey failed: "
    "{queue}'s min keys are not all included in {parent}'s"
)
MIN_SUM_ABOVE_PARENT = (
    "checkMinQuotaSum all brothers' MinQuota > parent MinQuota, parent: {parent}"
)
FLAG_INVALID = "{queue} quota.Properties[{prop}]'s value {value!r} is invalid: want true or false"

# What the weight parser says about a value it cannot read (inside WEIGHT_INVALID).
WEIGHT_NOT_A_MAP = "not a resource map: write kind=quantity pairs or a JSON object"
WEIGHT_BAD_JSON = "not valid JSON: {error}"
WEIGHT_BAD_ENTRY = "entry {entry!r} is not kind=quantity"
WEIGHT_BAD_QUANTITY = "{kind}: {error}"
WEIGHT_NEGATIVE_REASON = "a weight is below zero"

DETAIL_WEIGHT_NEGATIVE = (
    "property {prop} gives a negative weight for {dimensions}; weights are 0 or more "
    "(until fixed the weight defaults to the queue's max)"
)
DETAIL_WEIGHT_INVALID = (
    "property {prop} cannot be read ({error}); write it as vcore=4,memory=8Gi or as a JSON "
    "object (until fixed the weight defaults to the queue's max)"
)
DETAIL_MIN_KEY_NOT_IN_MAX = (
    "guaranteed {kind} is set ({value}) but max has no {kind}: elastic quota needs every "
    "guaranteed resource type in max too"
)
DETAIL_MAX_KEYS_DIFFER = (
    "max names {own}, the parent queue {parent}'s max names {parents}: elastic quota needs the "
    "same resource types in a child's max as in its parent's"
)
DETAIL_MIN_KEYS_NOT_INCLUDED = (
    "guaranteed names {missing}, which the parent queue {parent}'s guaranteed does not: a child "
    "may only guarantee resource types its parent guarantees"
)
DETAIL_MIN_SUM_ABOVE_PARENT = (
    "guaranteed {own} is set here; the parent queue {parent} guarantees no {kinds}, so its "
    "children's guaranteed ({total} in all) cannot fit within it"
)
DETAIL_FLAG_INVALID = "property {prop} is {value!r}; write true or false (until fixed: {default})"

# A queue list ElasticTree cannot be built from (InvalidRequest).
ERR_ROOTS = "an elastic quota tree needs exactly one root queue (parent None), found {count}"
ERR_DUPLICATE_QUEUE = "queue {path!r} is given twice"
ERR_NO_PARENT = "queue {path!r} names parent {parent!r}, which is not given"
ERR_UNREACHABLE = "queue {path!r} is not below the root (its parents form a loop)"
ERR_KIND = "resource type must be a non-empty string, not {kind!r}"
