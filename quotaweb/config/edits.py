"""Edits of a configuration document dict (see ``documents``), one function per kind of change.

Each edit changes the document in place and judges nothing: the whole candidate is validated by
``trackers`` afterwards, so a form, the API and a YAML upload get the same verdict. An edit only
refuses what it cannot express (a queue or limit entry that does not exist, deleting the root).
Values use the row field names (``max_applications``, ``max_resources`` ...).

The document may be the admin's own, read round-trip (``roundtrip``): edits change only the
values they change (``merge``), and new queues and entries are styled like their siblings, so
the rest of the document, comments included, is written back as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from quotaweb.config.documents import limit_document, queue_document
from quotaweb.config.roundtrip import fresh, merge
from trackers.config import normalise_partition_name

Document = dict[str, Any]
Edit = Callable[[Document], None]

ERR_PARTITION_NOT_FOUND = "there is no partition {partition!r}"
ERR_QUEUE_NOT_FOUND = "partition {partition!r} has no queue {path!r}"
ERR_LIMIT_NOT_FOUND = "queue {path!r} has no limit entry {index}"
ERR_ROOT_DELETE = "the root queue cannot be deleted; delete the queues below it instead"
ERR_ROOT_RENAME = "the root queue is always called root"
ERR_UNKNOWN_FIELDS = "unknown {what} fields: {fields}"
ERR_NAME_REQUIRED = "a new queue needs a name"

QUEUE_FIELDS = frozenset(
    {"name", "guaranteed", "max", "max_applications", "properties", "admin_acl", "submit_acl",
     "is_parent", "child_template", "has_resources"}
)
LIMIT_FIELDS = frozenset({"description", "users", "groups", "max_resources", "max_applications"})


class NotFound(LookupError):
    """A partition, queue or limit entry named by an edit does not exist."""


class EditRefused(ValueError):
    """An edit that no configuration can express."""


class RootQueueRefused(EditRefused):
    """Deleting or renaming the root queue: what the path names, not the request's shape, is at
    odds (the API answers 409)."""


# -- finding things ----------------------------------------------------------------------------


def _partition(document: Document, name: str) -> Document:
    wanted = normalise_partition_name(name)
    for partition in document.get("partitions") or []:
        if normalise_partition_name(partition.get("name")) == wanted:
            return partition
    raise NotFound(ERR_PARTITION_NOT_FOUND.format(partition=name))


def _queue(document: Document, partition: str, path: str) -> tuple[Document, Document | None]:
    """``(queue, parent)`` of the queue at ``path`` (parent None for the root)."""
    queues = _partition(document, partition).get("queues") or []
    segments = path.lower().split(".")
    parent = None
    for depth, segment in enumerate(segments):
        found = next((q for q in queues if str(q.get("name", "")).lower() == segment), None)
        if found is None or (depth == 0 and segment != "root"):
            raise NotFound(ERR_QUEUE_NOT_FOUND.format(partition=partition, path=path))
        if depth == len(segments) - 1:
            return found, parent
        parent = found
        queues = found.get("queues") or []
    raise NotFound(ERR_QUEUE_NOT_FOUND.format(partition=partition, path=path))


def _limits(document: Document, partition: str, path: str) -> list[Document]:
    """The limits list that holds the queue's entries, created empty when it has none.

    The root's entries may be written at the partition (the loader copies them to the root), so
    those are the ones an edit of the root's limits changes.
    """
    queue, parent = _queue(document, partition, path)
    if parent is None and "limits" not in queue:
        written = _partition(document, partition)
        if written.get("limits"):
            return written["limits"]
    return queue.setdefault("limits", [])


def _entry(limits: list[Document], path: str, index: int) -> Document:
    if not 0 <= index < len(limits):
        raise NotFound(ERR_LIMIT_NOT_FOUND.format(path=path, index=index))
    return limits[index]


def _check_fields(values: Mapping[str, Any], allowed: frozenset[str], what: str) -> None:
    unknown = sorted(set(values) - allowed)
    if unknown:
        raise TypeError(ERR_UNKNOWN_FIELDS.format(what=what, fields=", ".join(unknown)))


def _drop_empty_limits(document: Document, partition: str, path: str) -> None:
    queue, parent = _queue(document, partition, path)
    if queue.get("limits") == []:
        del queue["limits"]
    written = _partition(document, partition)
    if parent is None and written.get("limits") == []:
        del written["limits"]


# -- reading a document back into values ---------------------------------------------------------


def queue_values_of(queue: Document) -> dict[str, Any]:
    resources = queue.get("resources")
    return {
        "name": queue["name"],
        "has_resources": resources is not None,
        "guaranteed": dict((resources or {}).get("guaranteed") or {}),
        "max": dict((resources or {}).get("max") or {}),
        "max_applications": queue.get("maxapplications", 0),
        "properties": dict(queue.get("properties") or {}),
        "admin_acl": queue.get("adminacl"),
        "submit_acl": queue.get("submitacl"),
        "is_parent": queue.get("parent"),
        "child_template": queue.get("childtemplate"),
    }


def limit_values_of(limit: Document) -> dict[str, Any]:
    return {
        "description": limit.get("limit"),
        "users": list(limit.get("users") or []),
        "groups": list(limit.get("groups") or []),
        "max_resources": dict(limit.get("maxresources") or {}),
        "max_applications": limit.get("maxapplications", 0),
    }


def _with_resources_flag(values: dict[str, Any]) -> dict[str, Any]:
    # A queue given a guaranteed or max value has a resources block, whatever the flag said.
    if values.get("guaranteed") or values.get("max"):
        values["has_resources"] = True
    return values


# -- the edits ---------------------------------------------------------------------------------


def queue_create(
    *, partition: str, parent_path: str, values: Mapping[str, Any], position: int | None = None
) -> Edit:
    _check_fields(values, QUEUE_FIELDS, "queue")
    if not values.get("name"):
        raise EditRefused(ERR_NAME_REQUIRED)

    def edit(document: Document) -> None:
        parent, _ = _queue(document, partition, parent_path)
        children = parent.setdefault("queues", [])
        new = queue_document(_with_resources_flag(dict(values)), is_root=False)
        new = fresh(new, like=children[0] if children else None)
        children.insert(len(children) if position is None else position, new)

    return edit


def queue_update(*, partition: str, queue_path: str, values: Mapping[str, Any]) -> Edit:
    _check_fields(values, QUEUE_FIELDS, "queue")

    def edit(document: Document) -> None:
        queue, parent = _queue(document, partition, queue_path)
        if parent is None and str(values.get("name", "root")).lower() != "root":
            raise RootQueueRefused(ERR_ROOT_RENAME)
        merged = _with_resources_flag({**queue_values_of(queue), **values})
        kept = {key: queue[key] for key in ("limits", "queues") if key in queue}
        merge(queue, {**queue_document(merged, is_root=parent is None), **kept})

    return edit


def queue_delete(*, partition: str, queue_path: str) -> Edit:
    def edit(document: Document) -> None:
        queue, parent = _queue(document, partition, queue_path)
        if parent is None:
            raise RootQueueRefused(ERR_ROOT_DELETE)
        siblings = parent["queues"]
        del siblings[next(i for i, sibling in enumerate(siblings) if sibling is queue)]
        if not parent["queues"]:
            del parent["queues"]

    return edit


def limit_create(
    *, partition: str, queue_path: str, values: Mapping[str, Any], position: int | None = None
) -> Edit:
    _check_fields(values, LIMIT_FIELDS, "limit")

    def edit(document: Document) -> None:
        limits = _limits(document, partition, queue_path)
        new = fresh(limit_document(values), like=limits[0] if limits else None)
        limits.insert(len(limits) if position is None else position, new)

    return edit


def limit_update(
    *, partition: str, queue_path: str, index: int, values: Mapping[str, Any]
) -> Edit:
    _check_fields(values, LIMIT_FIELDS, "limit")

    def edit(document: Document) -> None:
        limits = _limits(document, partition, queue_path)
        entry = _entry(limits, queue_path, index)
        merge(entry, limit_document({**limit_values_of(entry), **values}))

    return edit


def limit_delete(*, partition: str, queue_path: str, index: int) -> Edit:
    def edit(document: Document) -> None:
        limits = _limits(document, partition, queue_path)
        _entry(limits, queue_path, index)
        del limits[index]
        _drop_empty_limits(document, partition, queue_path)

    return edit


def limit_move(*, partition: str, queue_path: str, index: int, to_index: int) -> Edit:
    def edit(document: Document) -> None:
        limits = _limits(document, partition, queue_path)
        _entry(limits, queue_path, index)
        _entry(limits, queue_path, to_index)
        limits.insert(to_index, limits.pop(index))

    return edit


def queues_replace(*, partition: str, queues: list[Document]) -> Edit:
    """Put ``queues`` (document dicts, children nested) below the partition's root in place of
    the queues there; the root's own settings stay. A partition not there yet is added, so a
    tree can be imported into a new one (an ElasticQuota import does this)."""

    def edit(document: Document) -> None:
        try:
            written = _partition(document, partition)
        except NotFound:
            partitions = document.get("partitions")
            if partitions is None:
                partitions = document["partitions"] = []
            written = fresh(
                {"name": partition, "queues": [{"name": "root"}]},
                like=partitions[0] if partitions else None,
            )
            partitions.append(written)
        root = written["queues"][0]
        if not queues:
            root.pop("queues", None)
        elif "queues" in root:
            root["queues"] = merge(root["queues"], queues)
        else:
            root["queues"] = fresh(queues)

    return edit


# -- records: edits as JSON, for drafts -----------------------------------------------------------

Record = dict[str, Any]

_KINDS: dict[str, Callable[..., Edit]] = {
    "queue_create": queue_create,
    "queue_update": queue_update,
    "queue_delete": queue_delete,
    "limit_create": limit_create,
    "limit_update": limit_update,
    "limit_delete": limit_delete,
    "limit_move": limit_move,
    "queues_replace": queues_replace,
}

_FIELD_LABELS = {
    "name": "name", "guaranteed": "guaranteed", "max": "max", "max_applications":
    "max applications", "properties": "properties", "admin_acl": "admin ACL", "submit_acl":
    "submit ACL", "is_parent": "parent/leaf", "child_template": "child template",
    "has_resources": "resources", "description": "description", "users": "users", "groups":
    "groups", "max_resources": "max resources",
}


def field_label(name: str) -> str:
    """A queue or limit value's name in words: ``max_resources`` is "max resources"."""
    return _FIELD_LABELS.get(name, name)


def edit_record(kind: str, **args: Any) -> Record:
    """A JSON-able record of one edit (the arguments of the edit function named ``kind``).

    The edit is built once here, so arguments it refuses fail now, when the admin stages it.
    """
    _KINDS[kind](**args)
    return {"kind": kind, "args": args}


def edit_from_record(record: Record) -> Edit:
    return _KINDS[record["kind"]](**record["args"])


def record_label(record: Record) -> str:
    """What a staged record does, for the draft's list: ``change queue root.eng: max``."""
    args = record["args"]
    kind = record["kind"]
    where = args.get("queue_path") or args.get("parent_path")
    if kind == "queue_create":
        return f"add queue {where}.{args['values'].get('name', '')}"
    if kind == "queue_update":
        fields = ", ".join(field_label(name) for name in args["values"])
        return f"change queue {where}: {fields}"
    if kind == "queue_delete":
        return f"delete queue {where} and everything below it"
    if kind == "limit_create":
        return f"add a limit entry to {where}"
    if kind == "queues_replace":
        return f"replace every queue below root in partition {args['partition']}"
    position = args["index"] + 1
    if kind == "limit_update":
        fields = ", ".join(field_label(name) for name in args["values"])
        return f"change limit entry {position} of {where}: {fields}"
    if kind == "limit_delete":
        return f"remove limit entry {position} of {where}"
    return f"move limit entry {position} of {where} to position {args['to_index'] + 1}"
