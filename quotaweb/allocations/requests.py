"""Allocation requests as a scheduler sends them: a single allocation's body and a batch's,
checked field by field. Bad input of any kind is refused with every reason, naming where it was,
and nothing changes (``quotaweb.allocations.services`` runs what passes)."""

from __future__ import annotations

import re
from typing import Any

from quotaweb.engine.live import LiveAllocation, named_tuple
from quotaweb.engine.outcomes import Operation
from trackers.resources import INT64_MAX

MAX_BATCH = 10_000
MAX_TEXT = 255
MAX_GROUPS = 100
MAX_RESOURCE_TYPES = 64
# Resource values are stored and summed as 64-bit integers, like YuniKorn's.
MAX_QUANTITY = INT64_MAX
# A YuniKorn priority is a signed 32-bit integer.
MIN_PRIORITY, MAX_PRIORITY = -(2**31), 2**31 - 1

ERR_NOT_OBJECT = "the body must be a JSON object"
ERR_REQUIRED = "is required"
ERR_TEXT = (
    "must be a non-empty string of at most {limit} characters, without NUL or unpaired "
    "surrogates"
)
ERR_GROUPS = "must be a list of at most {limit} group names (strings)"
ERR_RESOURCE = (
    "must be an object of at most {limit} resource types, each an integer from 0 to {max} "
    "in base units (memory bytes, vcore millicores)"
)
ERR_PRIORITY = "must be an integer from {min} to {max} (YuniKorn's 32-bit priority)"
ERR_UNKNOWN_KEY = "is not a field of this request (allowed: {allowed}): nothing was changed"
ERR_OPERATIONS = "must be a list of 1 to {limit} operations"
ERR_OP = "must be \"allocate\" or \"release\""


class AllocationInvalid(ValueError):
    """A request body that is not an allocation; ``errors`` lists ``{field, message}``."""

    def __init__(self, errors: list[dict[str, str]]) -> None:
        super().__init__("; ".join(f"{e['field']}: {e['message']}" for e in errors))
        self.errors = errors


# -- reading requests ------------------------------------------------------------------------------


# JSON's \ud800 escapes read as these; no database can store them (they were a 500).
_SURROGATE = re.compile("[\ud800-\udfff]")


def _is_text(value: Any, limit: int = MAX_TEXT) -> bool:
    return (
        type(value) is str and 0 < len(value) <= limit and "\x00" not in value
        and (value.isascii() or _SURROGATE.search(value) is None)
    )


_NO_GROUPS: list[str] = []


def _groups_ok(groups: Any) -> bool:
    return type(groups) is list and len(groups) <= MAX_GROUPS and all(
        _is_text(group) for group in groups
    )


def _resource_ok(resource: Any) -> bool:
    if type(resource) is not dict or len(resource) > MAX_RESOURCE_TYPES:
        return False
    for kind, value in resource.items():
        if not (type(value) is int and 0 <= value <= MAX_QUANTITY and _is_text(kind)):
            return False
    return True


_TEXT_FIELDS = (("allocationKey", MAX_TEXT), ("applicationId", MAX_TEXT),
                ("queuePath", 1024), ("user", MAX_TEXT))
# The keys each body may hold: anything else is refused, so that a typo (``grups``) cannot pass
# as an allocation that no group limit holds.
ALLOCATION_FIELDS = frozenset(
    {name for name, _limit in _TEXT_FIELDS} | {"groups", "resource", "priority", "nodeId"}
)
ALLOCATE_OPERATION_FIELDS = ALLOCATION_FIELDS | {"op"}
RELEASE_OPERATION_FIELDS = frozenset({"op", "allocationKey"})
BATCH_FIELDS = frozenset({"operations"})


def allocation_request(data: Any, *, at: str = "") -> LiveAllocation:
    """An allocation from a request body (``allocationKey``, ``applicationId``, ``queuePath``,
    ``user``, ``groups``, ``resource``, optional ``priority`` and ``nodeId``);
    ``AllocationInvalid`` naming every bad field.

    Written by hand rather than with a serializer: a batch reads 10,000 of these per request.
    """
    allocation = _allocation_or_none(data, ALLOCATION_FIELDS)
    if allocation is None:
        raise AllocationInvalid(_request_errors(data, at, ALLOCATION_FIELDS))
    return allocation


def _allocation_or_none(data: Any, fields: frozenset[str]) -> LiveAllocation | None:
    """The allocation ``data`` asks for, or None when any field is bad (``_request_errors``
    says which; the same rules, checked here for speed: every allocation of a batch passes
    through, and a look at each text field on its own took twice as long)."""
    if type(data) is not dict or not fields.issuperset(data):
        return None
    get = data.get
    key, application, queue_path, user = (
        get("allocationKey"), get("applicationId"), get("queuePath"), get("user")
    )
    groups, resource = get("groups", _NO_GROUPS), get("resource")
    if not (
        type(groups) is list and len(groups) <= MAX_GROUPS
        and type(resource) is dict and len(resource) <= MAX_RESOURCE_TYPES
    ):
        return None
    # Every text of the request (resource types too) in one string: joining fails unless each
    # is a string, and one look finds a NUL or a surrogate anywhere in them.
    try:
        text = "".join((key, application, queue_path, user, *groups, *resource))
    except TypeError:
        return None
    if "\x00" in text or not (text.isascii() or _SURROGATE.search(text) is None):
        return None
    if not (
        0 < len(key) <= MAX_TEXT and 0 < len(application) <= MAX_TEXT
        and 0 < len(queue_path) <= 1024 and 0 < len(user) <= MAX_TEXT
    ):
        return None
    for group in groups:
        if not 0 < len(group) <= MAX_TEXT:
            return None
    for kind, value in resource.items():
        if not (type(value) is int and 0 <= value <= MAX_QUANTITY and 0 < len(kind) <= MAX_TEXT):
            return None
    priority = get("priority", 0)
    if not _priority_ok(priority):
        return None
    # Optional, and a name like the others when given (a dict lookup for a request without).
    node = ""
    if "nodeId" in data:
        node = data["nodeId"]
        if not _is_text(node):
            return None
    return named_tuple(
        LiveAllocation,
        (key, application, queue_path, user, tuple(groups), resource, None, priority, node),
    )


def _priority_ok(priority: Any) -> bool:
    # ``type(...) is int``: JSON's true and false are no priority.
    return type(priority) is int and MIN_PRIORITY <= priority <= MAX_PRIORITY


def _request_errors(data: Any, at: str, fields: frozenset[str]) -> list[dict[str, str]]:
    """Every reason ``allocation_request`` refused ``data``, field by field."""
    if not isinstance(data, dict):
        return [{"field": at.rstrip(".") or "body", "message": ERR_NOT_OBJECT}]
    errors = _unknown_keys(data, at, fields)
    for name, limit in _TEXT_FIELDS:
        if name not in data or data[name] is None:
            errors.append({"field": at + name, "message": ERR_REQUIRED})
        elif not _is_text(data[name], limit):
            errors.append({"field": at + name, "message": ERR_TEXT.format(limit=limit)})
    if not _groups_ok(data.get("groups", [])):
        errors.append({"field": at + "groups", "message": ERR_GROUPS.format(limit=MAX_GROUPS)})
    if "priority" in data and not _priority_ok(data["priority"]):
        errors.append({"field": at + "priority", "message": ERR_PRIORITY.format(
            min=MIN_PRIORITY, max=MAX_PRIORITY)})
    if "nodeId" in data and not _is_text(data["nodeId"]):
        errors.append({"field": at + "nodeId", "message": ERR_TEXT.format(limit=MAX_TEXT)})
    if "resource" not in data:
        errors.append({"field": at + "resource", "message": ERR_REQUIRED})
    elif not _resource_ok(data["resource"]):
        errors.append({"field": at + "resource", "message": ERR_RESOURCE.format(
            limit=MAX_RESOURCE_TYPES, max=MAX_QUANTITY)})
    return errors


def _unknown_keys(data: dict[str, Any], at: str, fields: frozenset[str]) -> list[dict[str, str]]:
    """One error per key of ``data`` that is not one of ``fields``, named where it was sent."""
    message = ERR_UNKNOWN_KEY.format(allowed=", ".join(sorted(fields)))
    return [{"field": at + _shown(key), "message": message} for key in data if key not in fields]


def _shown(key: str) -> str:
    # Echoed in the answer: a key no answer can carry (a lone surrogate, NUL, a megabyte) is
    # shown escaped and cut short.
    return key if _is_text(key) else ascii(key)[:MAX_TEXT]


def batch_request(data: Any) -> list[Operation | AllocationInvalid]:
    """The operations of a batch body, each parsed, or the error that operation has (the others
    still run); ``AllocationInvalid`` when the body itself is not a batch."""
    operations = data.get("operations") if isinstance(data, dict) else None
    if type(operations) is not list or not 1 <= len(operations) <= MAX_BATCH:
        raise AllocationInvalid(
            [{"field": "operations", "message": ERR_OPERATIONS.format(limit=MAX_BATCH)}]
        )
    if len(data) > 1:
        raise AllocationInvalid(_unknown_keys(data, "", BATCH_FIELDS))
    out: list[Operation | AllocationInvalid] = []
    append = out.append
    for index, item in enumerate(operations):
        op = item.get("op") if type(item) is dict else None
        if op == "allocate":
            allocation = _allocation_or_none(item, ALLOCATE_OPERATION_FIELDS)
            if allocation is not None:
                append(named_tuple(Operation, ("allocate", allocation, "")))
                continue
        elif op == "release":
            key = item.get("allocationKey")
            if _is_text(key) and RELEASE_OPERATION_FIELDS.issuperset(item):
                append(Operation("release", key=key))
                continue
        append(_operation_error(item, op, f"operations[{index}]."))
    return out


def _operation_error(item: Any, op: Any, at: str) -> AllocationInvalid:
    """What is wrong with one refused operation of a batch (its fields prefixed with ``at``)."""
    if op == "allocate":
        return AllocationInvalid(_request_errors(item, at, ALLOCATE_OPERATION_FIELDS))
    if op == "release":
        errors = _unknown_keys(item, at, RELEASE_OPERATION_FIELDS)
        if not _is_text(item.get("allocationKey")):
            message = ERR_TEXT.format(limit=MAX_TEXT)
            errors.append({"field": at + "allocationKey", "message": message})
        return AllocationInvalid(errors)
    return AllocationInvalid([{"field": at + "op", "message": ERR_OP}])
