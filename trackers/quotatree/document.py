"""The JSON documents of quota trees (spec 2.1): reading, strict checks, a lenient builder.

quotaweb is strict where the quota-manager library was lenient: ``check_tree`` and
``check_consumer`` return every problem as ``{code, path, field, message}`` (path = the node
name, or the tree name for tree-wide problems; for consumers the consumer id), and
``parse_tree`` / ``parse_consumer`` refuse a document with any problem (``DocumentError``).

``build_tree`` is the library's lenient reading, kept for parity and for trees reached by edits
(spec M6): a second root is skipped, nodes not connected to the root are dropped and reported as
dangling, a quota that is not an integer counts 0. It still refuses a wrong ``kind``.

Resource names are sorted alphabetically; that order is the order of every vector.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trackers.config.report import Report
from trackers.errors import ConfigError
from trackers.quotatree import messages as m
from trackers.resources import INT64_MAX

TREE_KIND = "QuotaTree"
CONSUMER_KIND = "Consumer"
# The library's defaults when a document leaves them out (lenient builder only).
DEFAULT_TREE_NAME = "default"
DEFAULT_RESOURCES = ("cpu", "memory", "nvidia.com/gpu")
# Tree names end up in URLs and database keys: keep them to a safe alphabet.
TREE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$")
INTEGER = re.compile(r"^[0-9]+$")
ROOT_PARENTS = ("", "nil")


class DocumentError(ConfigError):
    """A tree or consumer document with problems; ``errors`` lists them all."""


@dataclass(frozen=True)
class NodeSpec:
    """One node of a tree document. ``parent`` is None for the root; ``quota`` has every resource
    of the tree (a resource the document leaves out is 0)."""

    name: str
    parent: str | None
    hard: bool
    quota: Mapping[str, int]


@dataclass(frozen=True)
class TreeSpec:
    """A tree as the engine builds it: only nodes connected to the root, parents before children.

    ``dangling`` names the nodes of the document that are not part of the tree (lenient builder:
    a second root, nodes under an unknown parent or on a cycle, and everything below them; with no
    root every node). ``root`` is None for an empty tree.
    """

    name: str
    resources: tuple[str, ...]
    nodes: Mapping[str, NodeSpec]
    root: str | None
    dangling: tuple[str, ...] = ()

    @property
    def clean(self) -> bool:
        """The library's "clean": a root and no dangling nodes."""
        return self.root is not None and not self.dangling

    def leaves(self) -> set[str]:
        parents = {spec.parent for spec in self.nodes.values()}
        return {name for name in self.nodes if name not in parents}

    def document(self) -> dict[str, Any]:
        """The tree as a ``QuotaTree`` JSON document (quota values as integer strings, as the
        library writes them)."""
        return {
            "kind": TREE_KIND,
            "metadata": {"name": self.name},
            "spec": {
                "resourceNames": list(self.resources),
                "nodes": {
                    spec.name: {
                        "parent": spec.parent if spec.parent is not None else "nil",
                        "hard": "true" if spec.hard else "false",
                        "quota": {res: str(spec.quota[res]) for res in self.resources},
                    }
                    for spec in self.nodes.values()
                },
            },
        }


@dataclass(frozen=True)
class TreeRequest:
    """What a consumer asks of one tree: its group (a leaf), the request, how it competes.

    ``request`` is a map resource -> amount (a resource it leaves out is 0), or a list in the
    tree's resource order (the library's form; a list of the wrong length is rejected with the
    library's "Expected <n> resources" message).
    """

    group: str
    request: Mapping[str, int] | Sequence[int]
    priority: int = 0
    type: int = 0
    unpreemptable: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The entry of a ``Consumer`` document (without ``treeName``)."""
        request = (
            dict(self.request) if isinstance(self.request, Mapping) else list(self.request)
        )
        return {
            "groupID": self.group,
            "request": request,
            "priority": self.priority,
            "type": self.type,
            "unPreemptable": self.unpreemptable,
        }


@dataclass(frozen=True)
class ConsumerSpec:
    """A consumer: an id and one request per tree it uses (a forest consumer names several)."""

    id: str
    trees: Mapping[str, TreeRequest] = field(default_factory=dict)

    def document(self) -> dict[str, Any]:
        return {
            "kind": CONSUMER_KIND,
            "spec": {
                "id": self.id,
                "trees": [
                    {"treeName": name, **request.as_dict()} for name, request in self.trees.items()
                ],
            },
        }


# --- trees -----------------------------------------------------------------------------------


def check_tree(doc: Any) -> list[dict[str, str]]:
    """Every problem of a ``QuotaTree`` document; ``[]`` when ``parse_tree`` would accept it."""
    return _read_tree(doc, strict=True)[1]


def parse_tree(doc: Any) -> TreeSpec:
    """The tree of a valid document; ``DocumentError`` with every problem otherwise."""
    spec, errors = _read_tree(doc, strict=True)
    if errors or spec is None:
        raise DocumentError(errors)
    return spec


def build_tree(doc: Any) -> tuple[TreeSpec, list[dict[str, str]]]:
    """The library's lenient reading: the tree it would build, and the problems it logged.

    Only a document that is not a ``QuotaTree`` object at all raises ``DocumentError``. Nodes
    are taken in name order, as the library does, so of two roots the first by name wins.
    """
    spec, errors = _read_tree(doc, strict=False)
    if spec is None:
        raise DocumentError(errors)
    return spec, errors


def _read_tree(doc: Any, *, strict: bool) -> tuple[TreeSpec | None, list[dict[str, str]]]:
    report = Report()
    if not isinstance(doc, Mapping):
        report.add(m.CODE_DOCUMENT, "", "", m.ERR_NOT_OBJECT.format(what="a tree document"))
        return None, report.errors
    kind = doc.get("kind")
    if kind != TREE_KIND:
        report.add(m.CODE_KIND, "", "kind", m.INVALID_KIND.format(kind=kind))
        return None, report.errors
    metadata = doc.get("metadata")
    raw_name = metadata.get("name") if isinstance(metadata, Mapping) else None
    name = raw_name if isinstance(raw_name, str) else ""
    if not TREE_NAME.match(name):
        if strict or name:
            report.add(m.CODE_TREE_NAME, name, "metadata.name", m.ERR_TREE_NAME)
        if not strict:
            name = name or DEFAULT_TREE_NAME
    body = doc.get("spec")
    if not isinstance(body, Mapping):
        report.add(m.CODE_DOCUMENT, name, "spec", m.ERR_NOT_OBJECT.format(what="spec"))
        return None, report.errors
    resources = _read_resources(body.get("resourceNames"), name, report, strict=strict)
    raw_nodes = body.get("nodes")
    if not isinstance(raw_nodes, Mapping):
        report.add(m.CODE_DOCUMENT, name, "spec.nodes", m.ERR_NOT_OBJECT.format(what="spec.nodes"))
        return None, report.errors
    nodes: dict[str, NodeSpec] = {}
    # The library reads nodes in name order; the strict reading keeps the document's order.
    names = list(raw_nodes) if strict else sorted(str(n) for n in raw_nodes)
    for node_name in names:
        node = _read_node(node_name, raw_nodes[node_name], resources, report, strict=strict)
        if node is not None:
            nodes[node.name] = node
    spec = (
        _connect_strict(name, resources, nodes, report)
        if strict
        else _connect_lenient(name, resources, nodes, list(raw_nodes))
    )
    if strict and report.errors:
        return None, report.errors
    return spec, report.errors


def _read_resources(
    raw: Any, tree: str, report: Report, *, strict: bool
) -> tuple[str, ...]:
    field_name = "spec.resourceNames"
    if raw is None or (isinstance(raw, list) and not raw):
        if strict:
            report.add(
                m.CODE_RESOURCE_NAME, tree, field_name,
                m.ERR_RESOURCE_NAME.format(value=raw) + " (the list is empty)",
            )
            return ()
        return DEFAULT_RESOURCES
    if not isinstance(raw, list):
        report.add(m.CODE_DOCUMENT, tree, field_name, m.ERR_NOT_LIST.format(what=field_name))
        return () if strict else DEFAULT_RESOURCES
    seen: set[str] = set()
    for index, value in enumerate(raw):
        where = f"{field_name}[{index}]"
        if not isinstance(value, str) or not value:
            report.add(m.CODE_RESOURCE_NAME, tree, where, m.ERR_RESOURCE_NAME.format(value=value))
        elif value in seen:
            if strict:
                report.add(m.CODE_DUPLICATE_RESOURCE, tree, where,
                           m.ERR_DUPLICATE_RESOURCE.format(name=value))
        else:
            seen.add(value)
    return tuple(sorted(seen))


def _read_node(
    name: str, raw: Any, resources: tuple[str, ...], report: Report, *, strict: bool
) -> NodeSpec | None:
    base = f"spec.nodes.{name}"
    if not name or name == "nil":
        report.add(m.CODE_NODE, name, base, m.ERR_NODE_NAME)
        return None
    if not isinstance(raw, Mapping):
        report.add(m.CODE_NODE, name, base, m.ERR_NOT_OBJECT.format(what=f"node {name}"))
        return None
    parent_raw = raw.get("parent")
    parent: str | None
    if parent_raw is None or parent_raw in ROOT_PARENTS:
        parent = None
    elif isinstance(parent_raw, str):
        parent = parent_raw
    else:
        report.add(m.CODE_NODE, name, f"{base}.parent",
                   m.ERR_PARENT.format(node=name, value=parent_raw))
        return None
    hard = _read_hard(raw.get("hard", False), name, base, report, strict=strict)
    raw_quota = raw.get("quota")
    quota = dict.fromkeys(resources, 0)
    if not isinstance(raw_quota, Mapping):
        if strict or raw_quota is not None:
            report.add(m.CODE_NODE, name, f"{base}.quota",
                       m.ERR_NOT_OBJECT.format(what=f"quota of node {name}"))
        if strict:
            return None
        raw_quota = {}
    for resource, value in raw_quota.items():
        where = f"{base}.quota.{resource}"
        amount = _integer(value)
        if resource not in quota:
            if strict:
                report.add(m.CODE_UNKNOWN_RESOURCE, name, where,
                           m.ERR_QUOTA_RESOURCE.format(resource=resource, node=name))
            continue
        if amount is None:
            report.add(m.CODE_QUOTA, name, where,
                       m.ERR_QUOTA.format(resource=resource, node=name, value=value))
            continue
        quota[resource] = amount
    return NodeSpec(name, parent, hard, quota)


def _read_hard(raw: Any, node: str, base: str, report: Report, *, strict: bool) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.lower() in ("true", "false"):
        return raw.lower() == "true"
    # The library reads anything else as false (after logging it); quotaweb refuses it.
    report.add(m.CODE_HARD, node, f"{base}.hard", m.ERR_HARD.format(node=node, value=raw))
    return False


def _integer(value: Any) -> int | None:
    """An integer from 0 to 2^63-1 from an int or an integer string; None for anything else
    (``"1000m"``, ``-1``, ``1.5``, ``True``, ``2**63``)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and INTEGER.match(value):
        value = int(value)
    if isinstance(value, int):
        # Bounded as every resource amount of the API is (64 bits, docs/api.md).
        return value if 0 <= value <= INT64_MAX else None
    return None


def _connect_strict(
    tree: str, resources: tuple[str, ...], nodes: dict[str, NodeSpec], report: Report
) -> TreeSpec | None:
    roots = [spec.name for spec in nodes.values() if spec.parent is None]
    if not roots:
        report.add(m.CODE_NO_ROOT, tree, "spec.nodes", m.ERR_NO_ROOT)
    for extra in roots[1:]:
        report.add(m.CODE_TWO_ROOTS, extra, f"spec.nodes.{extra}.parent",
                   m.ERR_TWO_ROOTS.format(node=extra, root=roots[0]))
    for spec in nodes.values():
        if spec.parent is not None and spec.parent not in nodes:
            report.add(m.CODE_DANGLING, spec.name, f"spec.nodes.{spec.name}.parent",
                       m.ERR_DANGLING.format(node=spec.name, parent=spec.parent))
    for cycle in _cycles(nodes):
        text = " -> ".join([*cycle, cycle[0]])
        for member in cycle:
            report.add(m.CODE_CYCLE, member, f"spec.nodes.{member}.parent",
                       m.ERR_CYCLE.format(node=member, cycle=text))
    if report.errors or not roots:
        return None
    return TreeSpec(tree, resources, _parents_first(roots[0], nodes), roots[0])


def _cycles(nodes: Mapping[str, NodeSpec]) -> list[list[str]]:
    """Each parent cycle once, starting at its first node in document order."""
    state: dict[str, int] = {}  # 1 = on the current walk, 2 = done
    found: list[list[str]] = []
    for start in nodes:
        walk: list[str] = []
        name: str | None = start
        while name is not None and name in nodes and name not in state:
            state[name] = 1
            walk.append(name)
            name = nodes[name].parent
        if name is not None and state.get(name) == 1:
            cycle = walk[walk.index(name):]
            first = min(cycle, key=list(nodes).index)
            at = cycle.index(first)
            found.append(cycle[at:] + cycle[:at])
        for visited in walk:
            state[visited] = 2
    return found


def _parents_first(root: str, nodes: Mapping[str, NodeSpec]) -> dict[str, NodeSpec]:
    """The nodes reachable from ``root``, each after its parent, siblings in document order."""
    children: dict[str, list[str]] = {}
    for spec in nodes.values():
        if spec.parent is not None:
            children.setdefault(spec.parent, []).append(spec.name)
    ordered: dict[str, NodeSpec] = {}
    stack = [root]
    while stack:
        name = stack.pop()
        ordered[name] = nodes[name]
        stack.extend(reversed(children.get(name, [])))
    return ordered


def _connect_lenient(
    tree: str, resources: tuple[str, ...], nodes: dict[str, NodeSpec], every_name: list[Any]
) -> TreeSpec:
    root = next((spec.name for spec in nodes.values() if spec.parent is None), None)
    kept = _parents_first(root, nodes) if root is not None else {}
    dangling = tuple(sorted(str(name) for name in every_name if name not in kept))
    return TreeSpec(tree, resources, kept, root, dangling)


# --- consumers -------------------------------------------------------------------------------


def check_consumer(doc: Any, trees: Mapping[str, TreeSpec] | None = None) -> list[dict[str, str]]:
    """Every problem of a ``Consumer`` document. With ``trees`` (name -> spec) the tree names,
    groups (leaves) and request resources are checked against them too."""
    return _read_consumer(doc, trees)[1]


def parse_consumer(doc: Any, trees: Mapping[str, TreeSpec] | None = None) -> ConsumerSpec:
    """The consumer of a valid document; ``DocumentError`` with every problem otherwise.

    A request resource that is not one of the tree's is an error unless its amount is 0 (MCAD
    sends ``gpu: 0`` to trees without gpus, spec M7): it is then dropped. A request given as a
    list is turned into a map in the tree's resource order.
    """
    spec, errors = _read_consumer(doc, trees)
    if errors or spec is None:
        raise DocumentError(errors)
    return spec


def allocation_consumer(
    body: Any, tree: str, trees: Mapping[str, TreeSpec] | None = None
) -> ConsumerSpec:
    """The consumer of an allocation body ``{id, groupID, request, priority, type,
    unPreemptable}`` for one tree, checked like a ``Consumer`` document naming that tree."""
    if not isinstance(body, Mapping):
        report = Report()
        report.add(m.CODE_DOCUMENT, "", "", m.ERR_NOT_OBJECT.format(what="an allocation"))
        raise DocumentError(report.errors)
    entry = {key: value for key, value in body.items() if key != "id"}
    entry["treeName"] = tree
    return parse_consumer(
        {"kind": CONSUMER_KIND, "spec": {"id": body.get("id"), "trees": [entry]}}, trees
    )


def _read_consumer(
    doc: Any, trees: Mapping[str, TreeSpec] | None
) -> tuple[ConsumerSpec | None, list[dict[str, str]]]:
    report = Report()
    if not isinstance(doc, Mapping):
        report.add(m.CODE_DOCUMENT, "", "", m.ERR_NOT_OBJECT.format(what="a consumer document"))
        return None, report.errors
    if doc.get("kind") != CONSUMER_KIND:
        report.add(m.CODE_KIND, "", "kind", m.INVALID_KIND.format(kind=doc.get("kind")))
        return None, report.errors
    body = doc.get("spec")
    if not isinstance(body, Mapping):
        report.add(m.CODE_DOCUMENT, "", "spec", m.ERR_NOT_OBJECT.format(what="spec"))
        return None, report.errors
    consumer_id = body.get("id")
    if not isinstance(consumer_id, str) or not consumer_id:
        report.add(m.CODE_CONSUMER_ID, "", "spec.id", m.ERR_CONSUMER_ID)
        consumer_id = ""
    entries = body.get("trees")
    if not isinstance(entries, list) or not entries:
        report.add(m.CODE_DOCUMENT, consumer_id, "spec.trees",
                   m.ERR_NO_TREES.format(id=consumer_id))
        return None, report.errors
    requests: dict[str, TreeRequest] = {}
    for index, entry in enumerate(entries):
        base = f"spec.trees[{index}]"
        read = _read_entry(entry, base, consumer_id, trees, report)
        if read is None:
            continue
        tree, request = read
        if tree in requests:
            report.add(m.CODE_DUPLICATE_TREE, consumer_id, f"{base}.treeName",
                       m.ERR_DUPLICATE_TREE.format(id=consumer_id, tree=tree))
            continue
        requests[tree] = request
    if report.errors:
        return None, report.errors
    return ConsumerSpec(consumer_id, requests), []


def _read_entry(
    entry: Any, base: str, cid: str, trees: Mapping[str, TreeSpec] | None, report: Report
) -> tuple[str, TreeRequest] | None:
    if not isinstance(entry, Mapping):
        report.add(m.CODE_DOCUMENT, cid, base, m.ERR_NOT_OBJECT.format(what=base))
        return None
    tree = entry.get("treeName")
    if not isinstance(tree, str) or not tree:
        report.add(m.CODE_UNKNOWN_TREE, cid, f"{base}.treeName",
                   m.INVALID_TREE_NAME.format(tree=tree))
        return None
    spec = trees.get(tree) if trees is not None else None
    if trees is not None and spec is None:
        report.add(m.CODE_UNKNOWN_TREE, cid, f"{base}.treeName",
                   m.ERR_UNKNOWN_TREE.format(id=cid, tree=tree))
    errors_before = len(report.errors)
    group = entry.get("groupID")
    if not isinstance(group, str) or not group:
        report.add(m.CODE_GROUP, cid, f"{base}.groupID", m.NO_DESIGNATION.format(tree=tree))
    elif spec is not None:
        if group not in spec.nodes:
            report.add(m.CODE_GROUP, cid, f"{base}.groupID",
                       m.ERR_UNKNOWN_GROUP.format(group=group, tree=tree))
        elif group not in spec.leaves():
            report.add(m.CODE_GROUP, cid, f"{base}.groupID",
                       m.ERR_GROUP_NOT_LEAF.format(group=group, tree=tree))
    request = _read_request(entry.get("request", {}), f"{base}.request", cid, tree, spec, report)
    numbers = {}
    for key, default in (("priority", 0), ("type", 0)):
        value = entry.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            report.add(m.CODE_FIELD, cid, f"{base}.{key}",
                       m.ERR_INTEGER_FIELD.format(field=key, value=value))
            value = default
        numbers[key] = value
    unpreemptable = entry.get("unPreemptable", False)
    if not isinstance(unpreemptable, bool):
        report.add(m.CODE_FIELD, cid, f"{base}.unPreemptable",
                   m.ERR_BOOLEAN_FIELD.format(field="unPreemptable", value=unpreemptable))
    if len(report.errors) > errors_before or request is None:
        return None
    return tree, TreeRequest(
        str(group), request, numbers["priority"], numbers["type"], bool(unpreemptable)
    )


def _read_request(
    raw: Any, base: str, cid: str, tree: str, spec: TreeSpec | None, report: Report
) -> dict[str, int] | None:
    if isinstance(raw, list):
        if spec is None:
            # Without the tree its order is unknown: a list only makes sense against a tree.
            report.add(m.CODE_REQUEST, cid, base, m.ERR_NOT_OBJECT.format(what=base))
            return None
        if len(raw) != len(spec.resources):
            report.add(m.CODE_REQUEST_LENGTH, cid, base, m.WRONG_LENGTH.format(
                expected=len(spec.resources), tree=tree, received=len(raw)))
            return None
        raw = dict(zip(spec.resources, raw, strict=True))
    if not isinstance(raw, Mapping):
        report.add(m.CODE_REQUEST, cid, base, m.ERR_NOT_OBJECT.format(what=base))
        return None
    request: dict[str, int] = {}
    ok = True
    for resource, value in raw.items():
        amount = _integer(value)
        if amount is None:
            report.add(m.CODE_REQUEST, cid, f"{base}.{resource}",
                       m.ERR_REQUEST.format(resource=resource, value=value))
            ok = False
        elif spec is not None and resource not in spec.resources:
            if amount:
                report.add(m.CODE_UNKNOWN_RESOURCE, cid, f"{base}.{resource}",
                           m.ERR_REQUEST_RESOURCE.format(resource=resource, tree=tree))
                ok = False
        else:
            request[str(resource)] = amount
    return request if ok else None


def make_tree(
    name: str,
    resources: Sequence[str],
    nodes: Sequence[tuple[str, str | None, int | Sequence[int] | Mapping[str, int], bool]],
) -> TreeSpec:
    """A tree from Python values, checked like a document: ``nodes`` are
    ``(name, parent, quota, hard)`` with the quota an int (one resource), a list in sorted
    resource order, or a map. Handy in tests and benchmarks."""
    ordered = sorted(resources)
    body: dict[str, Any] = {}
    for node, parent, quota, hard in nodes:
        if isinstance(quota, int):
            values: Mapping[str, int] = {ordered[0]: quota}
        elif isinstance(quota, Mapping):
            values = quota
        else:
            values = dict(zip(ordered, quota, strict=True))
        body[node] = {"parent": parent or "nil", "hard": hard, "quota": dict(values)}
    return parse_tree({
        "kind": TREE_KIND,
        "metadata": {"name": name},
        "spec": {"resourceNames": list(resources), "nodes": body},
    })


def tree_consumer(
    cid: str,
    tree: str,
    group: str,
    request: Mapping[str, int] | Sequence[int],
    *,
    priority: int = 0,
    type: int = 0,
    unpreemptable: bool = False,
) -> ConsumerSpec:
    """A consumer of one tree, from Python values (not checked: the manager checks it)."""
    return ConsumerSpec(cid, {tree: TreeRequest(group, request, priority, type, unpreemptable)})
