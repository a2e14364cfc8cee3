"""Koordinator's ``ElasticQuota`` objects in and out of a partition's queue tree.

In: what ``kubectl get elasticquota -A -o yaml`` prints (a ``List``, or a YAML stream of objects
and lists) becomes the queues below a partition's root, as one staged change (the
``queues_replace`` edit), judged like any other: the browser stages it in the admin's draft, the
API applies it or, with ``dry_run``, answers what it would change. Each quota group is a queue:
``spec.min`` its guaranteed, ``spec.max`` its max, the parent from the ``parent-quota-name``
label (or ``parent``, which Koordinator's code reads; default the root), ``is-parent``, the
``shared-weight`` annotation and ``allow-lent-resource`` label as the elastic properties, the
namespaces as properties. Status, managedFields and the scheduler's ``runtime`` annotation are
output, not settings, and are not read. Everything that cannot be taken is a problem naming the
object and the field, all of them at once, and nothing is staged.

Out: every queue but the root as an ``ElasticQuota``, named by a DNS-1123 label unique in the
partition, with the current runtime and used figures; what Koordinator has no field for (the
queue's own name when it is not a valid object name, other properties, ACLs, limits) goes in
``quotaweb/`` annotations, so importing an export gives back the same queues.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from quotaweb.config import edits, kube
from quotaweb.config.documents import limit_document, limit_values, queue_document, queue_values
from quotaweb.config.selectors import (
    ERR_NO_PARTITION,
    ConfigNotFound,
    active_version,
    version_model,
)
from quotaweb.config.services import ConfigRejected
from quotaweb.engine.gateway import engines_get, engines_loaded
from trackers.config import normalise_partition_name
from trackers.config.model import Partition
from trackers.config.model import Queue as QueueModel
from trackers.elastic.queues import PROP_ALLOW_LENT, PROP_WEIGHT, WeightError, parse_weight
from trackers.errors import TrackersError
from trackers.names import is_queue_name
from trackers.resources import parse_resource_map

API_VERSION = "scheduling.sigs.k8s.io/v1alpha1"
KIND = "ElasticQuota"
PREFIX = "quota.scheduling.koordinator.sh/"
LABEL_PARENT = PREFIX + "parent-quota-name"
LABEL_PARENT_CODE = PREFIX + "parent"  # the spelling Koordinator's code reads
LABEL_IS_PARENT = PREFIX + "is-parent"
LABEL_ALLOW_LENT = PREFIX + "allow-lent-resource"
ANNOTATION_WEIGHT = PREFIX + "shared-weight"
ANNOTATION_RUNTIME = PREFIX + "runtime"
ANNOTATION_NAMESPACES = PREFIX + "namespaces"
ANNOTATION_QUEUE_NAME = "quotaweb/queue-name"
ANNOTATION_PROPERTIES = "quotaweb/properties"
ANNOTATION_SETTINGS = "quotaweb/queue-settings"
ROOT_QUOTA = "koordinator-root-quota"
BUILT_IN = frozenset({ROOT_QUOTA, "koordinator-system-quota", "koordinator-default-quota"})
ROOT_NAMES = frozenset({"", "root", ROOT_QUOTA})
# The object's namespace and the namespaces bound to it, kept as queue properties.
PROP_NAMESPACE = "elastic.namespace"
PROP_NAMESPACES = "elastic.namespaces"
DEFAULT_NAMESPACE = "default"
# Queue keys an ElasticQuota has no field for, carried in ANNOTATION_SETTINGS.
SETTINGS_KEYS = ("maxapplications", "adminacl", "submitacl", "limits", "childtemplate")
_MAPPED_PROPERTIES = frozenset({PROP_ALLOW_LENT, PROP_NAMESPACES})
CODE = "ELASTICQUOTA"

ERR_PROBLEM = "ElasticQuota {object} ({where}): {field}: {reason}"
ERR_DOCUMENT = "{where}: {reason}"
ERR_UNREADABLE = "not YAML that can be read: {reason}"
ERR_ALIASES = "YAML anchors and aliases are not accepted in an import"
ERR_NOT_OBJECT = "a {kind} is not an ElasticQuota (or a List of them)"
ERR_NOTHING = "there is no ElasticQuota object in the text"
ERR_API_VERSION = "{value!r} is not {expected}"
ERR_NAME = "{value!r} is not a valid object name (a DNS-1123 subdomain)"
ERR_QUEUE_NAME = (
    "{value!r} cannot be a queue name (letters, digits and _:#/@- only, at most 64); set the "
    "annotation " + ANNOTATION_QUEUE_NAME + " to the queue name to use"
)
ERR_DUPLICATE = "{name!r} is the name of another ElasticQuota too ({other}); quota names are unique"
ERR_SIBLING = "queue name {name!r} is taken by its sibling {other}"
ERR_NOT_MAP = "must be a map, not {kind}"
ERR_ITEMS = "must be a list of objects, not {kind}"
ERR_NOT_TEXT = "must be text, not {kind}"
ERR_JSON = "is not a JSON {what}: {reason}"
ERR_PARENTS_DISAGREE = "names parent {first!r} but " + LABEL_PARENT_CODE + " names {second!r}"
ERR_NO_PARENT = "names parent {parent!r}, and there is no ElasticQuota of that name"
ERR_PARENT_NOT_PARENT = (
    "names parent {parent!r}, which is not marked " + LABEL_IS_PARENT + ": \"true\""
)
ERR_CYCLE = "the parents go round in a circle: {cycle}"
ERR_MIN_ABOVE_MAX = "{kind}: min {min} is above max {max}"
ERR_SETTING = "holds {key!r}, which is not a queue setting it may carry ({allowed})"
ERR_NOT_EXPORTABLE = (
    "queue {path} has resource type {kind!r}, which has no Kubernetes name, so it cannot be "
    "written as an ElasticQuota"
)
NOTE_BUILT_IN = (
    "Skipped {names}: Koordinator makes these itself (the root is the partition's root queue)."
)


class _NoAliasLoader(yaml.SafeLoader):
    """A safe loader that refuses aliases: an import's objects are walked one by one, and an
    alias could make a short text stand for a huge number of them."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise yaml.YAMLError(ERR_ALIASES)
        return super().compose_node(parent, index)


@dataclass
class _Group:
    where: str
    ref: str
    name: str
    queue_name: str
    parent: str | None
    is_parent: bool
    document: dict[str, Any]
    children: list[_Group] = field(default_factory=list)


@dataclass(frozen=True)
class ElasticQuotaImport:
    """An import read and checked: the queue documents to put below the root, the staged
    change that does it, and what the admin should be told."""

    partition: str
    queues: list[dict[str, Any]]
    groups: int
    notes: tuple[str, ...]
    objects: dict[str, str]  # queue path -> the object it came from, for later problems

    @property
    def record(self) -> edits.Record:
        return edits.edit_record("queues_replace", partition=self.partition, queues=self.queues)

    def edit(self) -> edits.Edit:
        return edits.queues_replace(partition=self.partition, queues=self.queues)

    def named(self, errors: list[dict[str, str]]) -> list[dict[str, str]]:
        """The configuration's problems with the object each queue came from added."""
        out = []
        for error in errors:
            found = self.objects.get(error.get("path", "").lower())
            out.append({**error, "object": found} if found else error)
        return out


class _Problems:
    def __init__(self) -> None:
        self.errors: list[dict[str, str]] = []

    def add(self, *, ref: str, where: str, field_name: str, reason: str) -> None:
        self.errors.append({
            "code": CODE, "path": "", "object": ref, "field": f"{where}.{field_name}",
            "message": ERR_PROBLEM.format(object=ref, where=where, field=field_name, reason=reason),
        })

    def document(self, *, where: str, reason: str) -> None:
        self.errors.append({
            "code": CODE, "path": "", "field": where,
            "message": ERR_DOCUMENT.format(where=where, reason=reason),
        })


# -- in -----------------------------------------------------------------------------------------


def _objects(text: str, problems: _Problems) -> list[tuple[str, Any]]:
    """Every object of the text with where it is (``items[3]``, ``document 2``)."""
    try:
        documents = list(yaml.load_all(text, Loader=_NoAliasLoader))
    except (yaml.YAMLError, RecursionError) as error:
        problems.document(where="document", reason=ERR_UNREADABLE.format(reason=error))
        return []
    several = len(documents) > 1
    out: list[tuple[str, Any]] = []
    for number, document in enumerate(documents, start=1):
        prefix = f"document {number}: " if several else ""
        if document is None:
            continue
        kind = document.get("kind") if isinstance(document, dict) else type(document).__name__
        if isinstance(document, dict) and isinstance(kind, str) and kind.endswith("List"):
            items = document.get("items") or []
            if not isinstance(items, list):
                problems.document(
                    where=f"{prefix}items", reason=ERR_ITEMS.format(kind=type(items).__name__)
                )
                continue
            out.extend((f"{prefix}items[{index}]", item) for index, item in enumerate(items))
        else:
            out.append((prefix.rstrip(": ") or "document", document))
    # An empty List is a partition with no quota groups (what exporting one gives); a text
    # with no document at all is a mistake.
    if not any(document is not None for document in documents) and not problems.errors:
        problems.document(where="document", reason=ERR_NOTHING)
    return out


def _text_map(value: Any, add: Any, field_name: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        add(field_name, ERR_NOT_MAP.format(kind=type(value).__name__))
        return {}
    return value


def _resources(raw: Any, add: Any, field_name: str) -> dict[str, int]:
    """A ResourceList in quotaweb's types and base units; each bad entry one problem."""
    out: dict[str, int] = {}
    for name, value in _text_map(raw, add, field_name).items():
        try:
            kind = kube.resource_from_kube(name)
            out[kind] = kube.quantity_base(value, kind=kind)
        except kube.KubeValueError as error:
            add(f"{field_name}.{name}", str(error))
    return out


def _texts(resources: Mapping[str, int]) -> dict[str, str]:
    return {kind: kube.quantity_text(kind, value) for kind, value in resources.items()}


def _json(raw: Any, add: Any, field_name: str, what: type) -> Any:
    """An annotation holding JSON (or YAML flow, as Koordinator's examples write it)."""
    if not isinstance(raw, str):
        add(field_name, ERR_NOT_TEXT.format(kind=type(raw).__name__))
        return None
    try:
        value = yaml.load(raw, Loader=_NoAliasLoader)
    except (yaml.YAMLError, RecursionError) as error:
        add(field_name, ERR_JSON.format(what=what.__name__, reason=error))
        return None
    if not isinstance(value, what):
        add(field_name, ERR_JSON.format(what=what.__name__, reason=f"got {type(value).__name__}"))
        return None
    return value


def _group(where: str, item: Any, problems: _Problems) -> _Group | None:
    """One object read, its own fields checked (the tree is checked once all are read)."""
    if not isinstance(item, dict) or item.get("kind") != KIND:
        kind = (item.get("kind") or "object without a kind") if isinstance(item, dict) \
            else type(item).__name__
        problems.document(where=where, reason=ERR_NOT_OBJECT.format(kind=kind))
        return None
    metadata = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
    name = metadata.get("name")
    namespace = metadata.get("namespace")
    ref = f"{namespace}/{name}" if namespace else str(name)
    before = len(problems.errors)

    def add(field_name: str, reason: str) -> None:
        problems.add(ref=ref, where=where, field_name=field_name, reason=reason)

    if item.get("apiVersion") != API_VERSION:
        add("apiVersion", ERR_API_VERSION.format(
            value=item.get("apiVersion"), expected=API_VERSION
        ))
    if not isinstance(name, str) or not kube.is_dns_subdomain(name):
        add("metadata.name", ERR_NAME.format(value=name))
        return None
    if name in BUILT_IN:
        return _Group(where, ref, name, "", None, True, {"built_in": True})
    labels = _text_map(metadata.get("labels"), add, "metadata.labels")
    annotations = _text_map(metadata.get("annotations"), add, "metadata.annotations")
    queue_name = annotations.get(ANNOTATION_QUEUE_NAME, name)
    if not isinstance(queue_name, str) or not is_queue_name(queue_name):
        field_name = (
            f"metadata.annotations[{ANNOTATION_QUEUE_NAME}]"
            if ANNOTATION_QUEUE_NAME in annotations else "metadata.name"
        )
        add(field_name, ERR_QUEUE_NAME.format(value=queue_name))
    parent = str(labels.get(LABEL_PARENT, "") or "")
    other = str(labels.get(LABEL_PARENT_CODE, "") or "")
    if parent and other and parent != other:
        add(f"metadata.labels[{LABEL_PARENT}]",
            ERR_PARENTS_DISAGREE.format(first=parent, second=other))
    parent = parent or other
    spec = _text_map(item.get("spec"), add, "spec")
    minimum = _resources(spec.get("min"), add, "spec.min")
    maximum = _resources(spec.get("max"), add, "spec.max")
    for kind in sorted(minimum.keys() & maximum.keys()):
        if minimum[kind] > maximum[kind]:
            add(f"spec.min.{kube.resource_to_kube(kind)}", ERR_MIN_ABOVE_MAX.format(
                kind=kube.resource_to_kube(kind), min=kube.quantity_text(kind, minimum[kind]),
                max=kube.quantity_text(kind, maximum[kind]),
            ))
    properties: dict[str, str] = {}
    if ANNOTATION_PROPERTIES in annotations:
        extra = _json(annotations[ANNOTATION_PROPERTIES], add,
                      f"metadata.annotations[{ANNOTATION_PROPERTIES}]", dict) or {}
        properties.update({str(key): str(value) for key, value in extra.items()})
    # The export writes a queue without a namespace into "default": reading it back adds none.
    if namespace and namespace != DEFAULT_NAMESPACE:
        properties[PROP_NAMESPACE] = str(namespace)
    if ANNOTATION_NAMESPACES in annotations:
        bound = _json(annotations[ANNOTATION_NAMESPACES], add,
                      f"metadata.annotations[{ANNOTATION_NAMESPACES}]", list)
        if bound:
            properties[PROP_NAMESPACES] = ",".join(str(each) for each in bound)
    if ANNOTATION_WEIGHT in annotations:
        where_weight = f"metadata.annotations[{ANNOTATION_WEIGHT}]"
        weight = _json(annotations[ANNOTATION_WEIGHT], add, where_weight, dict)
        if weight is not None:
            parsed = _resources(weight, add, where_weight)
            if parsed:
                properties[PROP_WEIGHT] = ",".join(
                    f"{kind}={text}" for kind, text in _texts(parsed).items()
                )
    # Koordinator lends unless the label says "false"; only the exception is written.
    if str(labels.get(LABEL_ALLOW_LENT, "")).strip().lower() == "false":
        properties[PROP_ALLOW_LENT] = "false"
    is_parent = str(labels.get(LABEL_IS_PARENT, "")).strip().lower() == "true"
    values: dict[str, Any] = {
        "name": queue_name, "has_resources": bool(minimum or maximum),
        "guaranteed": _texts(minimum), "max": _texts(maximum), "properties": properties,
    }
    document = queue_document(values, is_root=False)
    if ANNOTATION_SETTINGS in annotations:
        where_settings = f"metadata.annotations[{ANNOTATION_SETTINGS}]"
        settings = _json(annotations[ANNOTATION_SETTINGS], add, where_settings, dict) or {}
        for key, value in settings.items():
            if key not in SETTINGS_KEYS:
                add(where_settings, ERR_SETTING.format(key=key, allowed=", ".join(SETTINGS_KEYS)))
            else:
                document[key] = value
    if len(problems.errors) > before:
        return None
    return _Group(where, ref, name, str(queue_name), parent, is_parent, document)


def _tree(groups: list[_Group], problems: _Problems) -> list[_Group]:
    """Children under their parents (input order kept); the first-level groups."""
    by_name: dict[str, _Group] = {}
    for group in groups:
        if group.name in by_name:
            other = by_name[group.name].ref
            problems.add(ref=group.ref, where=group.where, field_name="metadata.name",
                         reason=ERR_DUPLICATE.format(name=group.name, other=other))
        else:
            by_name[group.name] = group
    top: list[_Group] = []
    for group in groups:
        if by_name.get(group.name) is not group:
            continue
        label = f"metadata.labels[{LABEL_PARENT}]"
        if not group.parent or (group.parent in ROOT_NAMES and group.parent not in by_name):
            top.append(group)
        elif group.parent not in by_name:
            problems.add(ref=group.ref, where=group.where, field_name=label,
                         reason=ERR_NO_PARENT.format(parent=group.parent))
        elif not by_name[group.parent].is_parent:
            problems.add(ref=group.ref, where=group.where, field_name=label,
                         reason=ERR_PARENT_NOT_PARENT.format(parent=group.parent))
        else:
            by_name[group.parent].children.append(group)
    _cycles(by_name, problems)
    return top


def _cycles(by_name: dict[str, _Group], problems: _Problems) -> None:
    """One problem per circle of parents, on its first member in input order."""
    reported: set[str] = set()
    for group in by_name.values():
        seen: list[str] = []
        current: _Group | None = group
        while current is not None and current.name not in seen and current.name not in reported:
            seen.append(current.name)
            parent = current.parent
            current = by_name.get(parent) if parent and parent not in ROOT_NAMES else None
        if current is not None and current.name in seen:
            circle = seen[seen.index(current.name):]
            reported.update(circle)
            first = by_name[circle[0]]
            problems.add(
                ref=first.ref, where=first.where, field_name=f"metadata.labels[{LABEL_PARENT}]",
                reason=ERR_CYCLE.format(cycle=" -> ".join([*circle, circle[0]])),
            )
        reported.update(seen)


def _documents(
    groups: list[_Group], path: str, objects: dict[str, str], problems: _Problems
) -> list[dict[str, Any]]:
    out = []
    taken: dict[str, _Group] = {}
    for group in groups:
        key = group.queue_name.lower()
        if key in taken:
            problems.add(ref=group.ref, where=group.where, field_name="metadata.name",
                         reason=ERR_SIBLING.format(name=group.queue_name, other=taken[key].ref))
            continue
        taken[key] = group
        own = f"{path}.{key}"
        objects[own] = group.ref
        document = dict(group.document)
        if group.children:
            document["queues"] = _documents(group.children, own, objects, problems)
        elif group.is_parent:
            # A queue with children is a parent anyway; only a childless one must say so.
            document["parent"] = True
        out.append(document)
    return out


def elasticquota_read(*, partition: str, text: str) -> ElasticQuotaImport:
    """Read ``kubectl get elasticquota -A -o yaml`` output for ``partition``. ``ConfigRejected``
    with every problem (each naming its object and field) when anything cannot be taken."""
    problems = _Problems()
    read = [_group(where, item, problems) for where, item in _objects(text, problems)]
    built_in = sorted({group.name for group in read if group and "built_in" in group.document})
    groups = [group for group in read if group is not None and "built_in" not in group.document]
    objects: dict[str, str] = {}
    queues = _documents(_tree(groups, problems), "root", objects, problems)
    if problems.errors:
        raise ConfigRejected(problems.errors)
    notes = (NOTE_BUILT_IN.format(names=", ".join(built_in)),) if built_in else ()
    return ElasticQuotaImport(
        partition=normalise_partition_name(partition), queues=queues, groups=len(groups),
        notes=notes, objects=objects,
    )


# -- out ----------------------------------------------------------------------------------------


def _object_names(partition: Partition) -> dict[str, str]:
    """queue path -> a DNS-1123 label unique in the partition (and not a built-in name)."""
    queues = [queue for queue in partition.queues() if queue.path != "root"]
    bases = {queue.path: kube.dns_label_of(queue.name) or "queue" for queue in queues}
    counts: dict[str, int] = {}
    for base in bases.values():
        counts[base] = counts.get(base, 0) + 1
    names: dict[str, str] = {}
    used: set[str] = set(BUILT_IN)
    for queue in queues:
        base = bases[queue.path]
        name = base
        if counts[base] > 1 or base in BUILT_IN:
            digest = hashlib.sha256(queue.path.encode()).hexdigest()
            length = 6
            name = f"{base[:56]}-{digest[:length]}"
            while name in used:
                length += 2
                name = f"{base[:56 - length + 6]}-{digest[:length]}"
        used.add(name)
        names[queue.path] = name
    return names


def _kube_resources(path: str, resources: Mapping[str, int]) -> dict[str, str]:
    out: dict[str, str] = {}
    for kind, value in resources.items():
        name = kube.resource_to_kube(kind)
        if name is None:
            raise ConfigRejected([{
                "code": CODE, "path": path, "field": kind,
                "message": ERR_NOT_EXPORTABLE.format(path=path, kind=kind),
            }])
        out[name] = kube.quantity_text(kind, value)
    return out


def _parsed(raw: Mapping[str, str]) -> dict[str, int]:
    # The active version is valid, so its quantities parse; the loader's reading is the one.
    try:
        return parse_resource_map(raw)
    except TrackersError:
        return {}


def _figures(partition: str) -> dict[str, dict[str, Any]]:
    """queue path -> the elastic row (runtime, used) when the engines run here; else nothing."""
    if not engines_loaded():
        return {}
    try:
        view = engines_get().elastic(partition).view()
    except LookupError:
        return {}
    return {row["queuePath"]: row for row in view["queues"]}


def _weight_json(path: str, text: str) -> str | None:
    try:
        weight = parse_weight(text)
    except WeightError:
        return None
    return json.dumps(_kube_resources(path, weight), sort_keys=True)


def _quota(
    queue: QueueModel, parent: QueueModel | None, names: Mapping[str, str],
    figures: Mapping[str, Any],
) -> dict[str, Any]:
    properties = dict(queue.properties)
    namespace = properties.get(PROP_NAMESPACE, "")
    if kube.is_dns_label(namespace):
        del properties[PROP_NAMESPACE]
    else:
        # Not a namespace Kubernetes would take: kept with the other properties instead.
        namespace = DEFAULT_NAMESPACE
    labels = {
        LABEL_IS_PARENT: "true" if queue.children or queue.parent else "false",
        LABEL_ALLOW_LENT: "false" if properties.get(PROP_ALLOW_LENT, "").strip().lower() == "false"
        else "true",
    }
    if parent is not None:
        labels[LABEL_PARENT] = labels[LABEL_PARENT_CODE] = names[parent.path]
    annotations: dict[str, str] = {}
    if names[queue.path] != queue.name:
        annotations[ANNOTATION_QUEUE_NAME] = queue.name
    weight = properties.get(PROP_WEIGHT)
    if weight is not None:
        written = _weight_json(queue.path, weight)
        if written is not None:
            annotations[ANNOTATION_WEIGHT] = written
            del properties[PROP_WEIGHT]
    if properties.get(PROP_NAMESPACES):
        bound = [each.strip() for each in properties[PROP_NAMESPACES].split(",") if each.strip()]
        annotations[ANNOTATION_NAMESPACES] = json.dumps(bound)
    row = figures.get(queue.path)
    if row is not None and row.get("runtime"):
        annotations[ANNOTATION_RUNTIME] = json.dumps(
            _kube_resources(queue.path, row["runtime"]), sort_keys=True
        )
    # A weight Koordinator could not read stays a property as written, like every property
    # an ElasticQuota has no place for.
    rest = {key: value for key, value in properties.items() if key not in _MAPPED_PROPERTIES}
    if rest:
        annotations[ANNOTATION_PROPERTIES] = json.dumps(rest, sort_keys=True)
    settings = _settings(queue)
    if settings:
        annotations[ANNOTATION_SETTINGS] = json.dumps(settings, sort_keys=True)
    metadata: dict[str, Any] = {
        "name": names[queue.path],
        "namespace": namespace,
        "labels": labels,
    }
    if annotations:
        metadata["annotations"] = annotations
    out: dict[str, Any] = {
        "apiVersion": API_VERSION, "kind": KIND, "metadata": metadata,
        "spec": {
            "min": _kube_resources(queue.path, _parsed(queue.guaranteed)),
            "max": _kube_resources(queue.path, _parsed(queue.max)),
        },
    }
    if row is not None:
        out["status"] = {"used": _kube_resources(queue.path, row.get("used") or {})}
    return out


def _settings(queue: QueueModel) -> dict[str, Any]:
    """The queue's keys an ElasticQuota has no field for, in document spelling."""
    values = queue_values(queue)
    document = queue_document({
        "name": queue.name,
        **{key: values[key] for key in ("max_applications", "admin_acl", "submit_acl",
                                        "child_template")},
    }, is_root=False)
    if queue.limits:
        document["limits"] = [limit_document(limit_values(limit)) for limit in queue.limits]
    return {key: document[key] for key in SETTINGS_KEYS if key in document}


def elasticquota_export(*, partition: str) -> str:
    """Every queue of ``partition`` below the root as an ``ElasticQuota`` in one ``List``,
    parents first. ``ConfigNotFound`` without such a partition in the active version;
    ``ConfigRejected`` for a resource type Kubernetes has no name for."""
    current = active_version()
    wanted = normalise_partition_name(partition)
    model = version_model(current).partition(wanted) if current is not None else None
    if model is None:
        raise ConfigNotFound(ERR_NO_PARTITION.format(partition=partition))
    names = _object_names(model)
    figures = _figures(model.name)
    items = []
    stack: list[tuple[QueueModel, QueueModel | None]] = [
        (child, None) for child in reversed(model.root.children)
    ]
    while stack:
        queue, parent = stack.pop()
        items.append(_quota(queue, parent, names, figures))
        stack.extend((child, queue) for child in reversed(queue.children))
    document = {"apiVersion": "v1", "kind": "List", "items": items}
    return yaml.safe_dump(document, sort_keys=False, default_flow_style=False, width=4096)
