"""Plain YAML data to the immutable config model, with the normalisation of spec 1.1-1.4.

Strict like YuniKorn's decoder: an unknown key or a value of the wrong type anywhere is a ``PARSE``
error naming the key path as written. Every such problem is collected, not only the first.
Normalisation: partition ``""``/``Default`` -> ``default``; a ``root`` queue is inserted above the
top-level queues unless there is exactly one called root (S2); partition limits are copied to a
root without limits (S3); queue names are lower-cased (D7) and ``path`` is the full dotted path.

Besides the model, the builder returns ``Locations``: where each queue and limit list was written,
so rule errors can point at the document the admin sees (before root insertion).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from trackers.config import messages
from trackers.config.model import (
    ChildTemplate,
    Config,
    Limit,
    NodeSortPolicy,
    Partition,
    PlacementFilter,
    PlacementRule,
    Preemption,
    Queue,
    Resources,
    frozen_map,
)
from trackers.config.report import Report
from trackers.resources import INT64_MAX

ROOT = "root"
DEFAULT_PARTITION = "default"

_CONFIG_KEYS = frozenset({"partitions", "checksum"})
_PARTITION_KEYS = frozenset(
    {"name", "queues", "limits", "placementrules", "preemption", "nodesortpolicy",
     "usergroupresolver"}
)
_QUEUE_KEYS = frozenset(
    {"name", "parent", "resources", "maxapplications", "properties", "adminacl", "submitacl",
     "childtemplate", "queues", "limits"}
)
_LIMIT_KEYS = frozenset({"limit", "users", "groups", "maxresources", "maxapplications"})
_RESOURCES_KEYS = frozenset({"guaranteed", "max"})
_TEMPLATE_KEYS = frozenset({"maxapplications", "properties", "resources"})
_RULE_KEYS = frozenset({"name", "create", "filter", "parent", "value"})
_FILTER_KEYS = frozenset({"type", "users", "groups"})
_PREEMPTION_KEYS = frozenset({"enabled", "quotapreemptionenabled"})
_NODE_SORT_KEYS = frozenset({"type", "resourceweights"})
_RESOLVER_KEYS = frozenset({"type"})

_UINT_RE = re.compile(r"\+?[0-9]+")
# YAML 1.1 spellings are accepted where a boolean is expected (yaml.v2 reads them the same way).
_BOOLS = {
    word: value
    for value, words in (
        (True, ("y", "yes", "on", "true")),
        (False, ("n", "no", "off", "false")),
    )
    for spelled in words
    for word in (spelled, spelled.capitalize(), spelled.upper())
}


@dataclass
class Locations:
    """Where the parts of a model were written; ids are of the model's own ``Queue`` objects."""

    partitions: list[str] = field(default_factory=list)
    queues: dict[int, str] = field(default_factory=dict)  # queue -> field of the queue
    limits: dict[int, str] = field(default_factory=dict)  # queue -> field of its limits list
    names: dict[int, str] = field(default_factory=dict)  # queue -> name as written
    missing_queues: set[int] = field(default_factory=set)  # partitions without queues (S1)
    # partitions whose written root has guaranteed/max keys: presence alone breaks S2, as in
    # YuniKorn, even when the map is empty.
    root_resource_keys: set[int] = field(default_factory=set)


def normalise_partition_name(name: str | None) -> str:
    if not name or name.lower() == DEFAULT_PARTITION:
        return DEFAULT_PARTITION
    return name


def _found(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"'{value}'"


class _Builder:
    def __init__(self) -> None:
        self.report = Report()
        self.loc = Locations()

    # -- typed readers: each reports a PARSE error and returns a harmless value on a mismatch --

    def wrong(self, path: str, where: str, expected: str, value: Any) -> None:
        self.report.add(
            "PARSE", path, where,
            messages.WRONG_TYPE.format(where=where, expected=expected, found=_found(value)),
        )

    def keys(
        self, raw: dict[str, Any], allowed: frozenset[str], what: str, path: str, where: str
    ) -> None:
        if raw.keys() <= allowed:
            return
        for key in raw:
            if key not in allowed:
                self.report.add(
                    "PARSE", path, f"{where}.{key}" if where else key,
                    messages.UNKNOWN_FIELD.format(key=key, what=what, where=where or "the top"),
                )

    def mapping(self, value: Any, path: str, where: str) -> dict[str, Any] | None:
        if value is None or type(value) is dict:
            return value
        self.wrong(path, where, "a mapping", value)
        return None

    def sequence(self, value: Any, path: str, where: str) -> list[Any]:
        if value is None:
            return []
        if type(value) is list:
            return value
        self.wrong(path, where, "a list", value)
        return []

    def text(self, value: Any, path: str, where: str) -> str | None:
        if type(value) is str or value is None:
            return value
        if isinstance(value, str):
            return str.__str__(value)  # drop the loader's Quoted marker
        self.wrong(path, where, "text", value)
        return None

    def uint(self, value: Any, path: str, where: str) -> int:
        if value is None:
            return 0
        if type(value) is str and _UINT_RE.fullmatch(value):
            number = int(value)
            if number <= INT64_MAX:
                return number
        self.wrong(path, where, "a whole number from 0 to 9223372036854775807", value)
        return 0

    def boolean(self, value: Any, path: str, where: str) -> bool | None:
        if value is None or isinstance(value, bool):
            return value
        if type(value) is str and value in _BOOLS:
            return _BOOLS[value]
        self.wrong(path, where, "true or false", value)
        return None

    def number(self, value: Any, path: str, where: str) -> float:
        if type(value) is str:
            try:
                number = float(value)
            except ValueError:
                pass
            else:
                if math.isfinite(number):
                    return number
        self.wrong(path, where, "a number", value)
        return 0.0

    def text_map(self, value: Any, path: str, where: str) -> Mapping[str, str]:
        # Fast path for the usual case: plain text keys and values, taken as they are.
        if type(value) is dict and all(
            type(k) is str and type(v) is str for k, v in value.items()
        ):
            return frozen_map(value)
        raw = self.mapping(value, path, where)
        if not raw:
            return frozen_map(None)
        out = {}
        for key, item in raw.items():
            # A bare ``memory:`` is an empty quantity (rejected later as "invalid quantity").
            text = self.text(item, path, f"{where}.{key}")
            out[str.__str__(key)] = "" if text is None else text
        return frozen_map(out)

    def text_list(self, value: Any, path: str, where: str) -> tuple[str, ...]:
        if type(value) is list and all(type(item) is str for item in value):
            return tuple(value)
        items = self.sequence(value, path, where)
        out = []
        for index, item in enumerate(items):
            text = self.text(item, path, f"{where}[{index}]")
            out.append("" if text is None else text)
        return tuple(out)

    # -- the document -------------------------------------------------------------------------

    def config(self, raw: Any) -> Config:
        if raw is None:
            return Config()
        if type(raw) is not dict:
            self.wrong("", "the document", "a mapping with a partitions list", raw)
            return Config()
        self.keys(raw, _CONFIG_KEYS, "the document", "", "")
        checksum = self.text(raw.get("checksum"), "", "checksum")
        partitions: list[Partition] = []
        for index, item in enumerate(self.sequence(raw.get("partitions"), "", "partitions")):
            where = f"partitions[{index}]"
            body = self.mapping(item, "", where)
            if body is None:
                if item is None:
                    self.wrong("", where, "a mapping", item)
                continue
            partitions.append(self.partition(body, len(partitions), where))
        return Config(partitions=tuple(partitions), checksum=checksum)

    def partition(self, raw: dict[str, Any], index: int, where: str) -> Partition:
        self.loc.partitions.append(where)
        name = normalise_partition_name(self.text(raw.get("name"), "", f"{where}.name"))
        self.keys(raw, _PARTITION_KEYS, "partition", name, where)
        limits = self.limits(raw.get("limits"), name, f"{where}.limits")

        queues_raw = raw.get("queues")
        if queues_raw is None:
            self.loc.missing_queues.add(index)
        items = self.sequence(queues_raw, name, f"{where}.queues")
        single = items[0] if len(items) == 1 and type(items[0]) is dict else None
        if single is not None and str(single.get("name")).lower() == ROOT:
            root = self.queue(single, f"{where}.queues[0]", "", limits, f"{where}.limits", index)
        else:
            # S2: the given queues hang below an inserted root that has nothing else.
            children = self.children(items, ROOT, f"{where}.queues")
            root = Queue(name=ROOT, path=ROOT, parent=True, children=children, limits=limits)
            self.loc.queues[id(root)] = where
            self.loc.limits[id(root)] = f"{where}.limits"
            self.loc.names[id(root)] = ROOT

        return Partition(
            name=name,
            root=root,
            limits=limits,
            placement_rules=self.placement_rules(raw.get("placementrules"), name, where),
            preemption=self.preemption(raw.get("preemption"), name, f"{where}.preemption"),
            node_sort_policy=self.node_sort(raw.get("nodesortpolicy"), name, where),
            user_group_resolver=self.resolver(raw.get("usergroupresolver"), name, where),
        )

    def children(self, items: list[Any], parent_path: str, where: str) -> tuple[Queue, ...]:
        out = []
        for index, item in enumerate(items):
            at = f"{where}[{index}]"
            body = self.mapping(item, parent_path, at)
            if body is None:
                if item is None:
                    self.wrong(parent_path, at, "a mapping", item)
                continue
            out.append(self.queue(body, at, parent_path))
        return tuple(out)

    def queue(
        self,
        raw: dict[str, Any],
        where: str,
        parent_path: str,
        partition_limits: tuple[Limit, ...] = (),
        partition_limits_at: str = "",
        partition_index: int = -1,
    ) -> Queue:
        """Build one queue; an empty ``parent_path`` means this is the written root."""
        written = self.text(raw.get("name"), parent_path, f"{where}.name") or ""
        is_root = not parent_path
        name = written.lower()
        path = ROOT if is_root else f"{parent_path}.{name}"
        self.keys(raw, _QUEUE_KEYS, "queue", path, where)

        resources_raw = raw.get("resources")
        resources = self.resources(resources_raw, path, f"{where}.resources")
        if is_root and type(resources_raw) is dict and (
            resources_raw.get("guaranteed") is not None or resources_raw.get("max") is not None
        ):
            self.loc.root_resource_keys.add(partition_index)

        limits = self.limits(raw.get("limits"), path, f"{where}.limits")
        limits_at = f"{where}.limits"
        if is_root and not limits and partition_limits:
            limits, limits_at = partition_limits, partition_limits_at  # S3: copied to root

        template_raw = self.mapping(raw.get("childtemplate"), path, f"{where}.childtemplate")
        parent = self.boolean(raw.get("parent"), path, f"{where}.parent")
        queue = Queue(
            name=name,
            path=path,
            parent=True if is_root else parent,
            resources=resources,
            max_applications=self.uint(
                raw.get("maxapplications"), path, f"{where}.maxapplications"
            ),
            properties=self.text_map(raw.get("properties"), path, f"{where}.properties"),
            admin_acl=self.text(raw.get("adminacl"), path, f"{where}.adminacl"),
            submit_acl=self.text(raw.get("submitacl"), path, f"{where}.submitacl"),
            child_template=(
                None if template_raw is None
                else self.template(template_raw, path, f"{where}.childtemplate")
            ),
            children=self.children(
                self.sequence(raw.get("queues"), path, f"{where}.queues"), path, f"{where}.queues"
            ),
            limits=limits,
        )
        key = id(queue)
        self.loc.queues[key] = where
        self.loc.limits[key] = limits_at
        self.loc.names[key] = written
        return queue

    def resources(self, value: Any, path: str, where: str) -> Resources | None:
        raw = self.mapping(value, path, where)
        if raw is None:
            return None
        self.keys(raw, _RESOURCES_KEYS, "resources", path, where)
        return Resources(
            guaranteed=self.text_map(raw.get("guaranteed"), path, f"{where}.guaranteed"),
            max=self.text_map(raw.get("max"), path, f"{where}.max"),
        )

    def template(self, raw: dict[str, Any], path: str, where: str) -> ChildTemplate:
        self.keys(raw, _TEMPLATE_KEYS, "childtemplate", path, where)
        return ChildTemplate(
            max_applications=self.uint(
                raw.get("maxapplications"), path, f"{where}.maxapplications"
            ),
            properties=self.text_map(raw.get("properties"), path, f"{where}.properties"),
            resources=self.resources(raw.get("resources"), path, f"{where}.resources"),
        )

    def limits(self, value: Any, path: str, where: str) -> tuple[Limit, ...]:
        out = []
        for index, item in enumerate(self.sequence(value, path, where)):
            at = f"{where}[{index}]"
            if type(item) is not dict:
                self.wrong(path, at, "a mapping", item)
                continue
            if not item.keys() <= _LIMIT_KEYS:
                self.keys(item, _LIMIT_KEYS, "limit", path, at)
            out.append(
                Limit(
                    description=self.text(item.get("limit"), path, f"{at}.limit"),
                    users=self.text_list(item.get("users"), path, f"{at}.users"),
                    groups=self.text_list(item.get("groups"), path, f"{at}.groups"),
                    max_resources=self.text_map(
                        item.get("maxresources"), path, f"{at}.maxresources"
                    ),
                    max_applications=self.uint(
                        item.get("maxapplications"), path, f"{at}.maxapplications"
                    ),
                )
            )
        return tuple(out)

    # -- partition settings -------------------------------------------------------------------

    def placement_rules(self, value: Any, path: str, where: str) -> tuple[PlacementRule, ...]:
        out = []
        for index, item in enumerate(self.sequence(value, path, f"{where}.placementrules")):
            rule = self.placement_rule(item, path, f"{where}.placementrules[{index}]")
            if rule is not None:
                out.append(rule)
        return tuple(out)

    def placement_rule(self, value: Any, path: str, where: str) -> PlacementRule | None:
        raw = self.mapping(value, path, where)
        if raw is None:
            if value is None:
                self.wrong(path, where, "a mapping", value)
            return None
        self.keys(raw, _RULE_KEYS, "placement rule", path, where)
        filter_raw = self.mapping(raw.get("filter"), path, f"{where}.filter")
        rule_filter = None
        if filter_raw is not None:
            self.keys(filter_raw, _FILTER_KEYS, "placement filter", path, f"{where}.filter")
            rule_filter = PlacementFilter(
                type=self.text(filter_raw.get("type"), path, f"{where}.filter.type") or "",
                users=self.text_list(filter_raw.get("users"), path, f"{where}.filter.users"),
                groups=self.text_list(filter_raw.get("groups"), path, f"{where}.filter.groups"),
            )
        parent = None
        if raw.get("parent") is not None:
            parent = self.placement_rule(raw["parent"], path, f"{where}.parent")
        return PlacementRule(
            name=self.text(raw.get("name"), path, f"{where}.name") or "",
            create=bool(self.boolean(raw.get("create"), path, f"{where}.create")),
            filter=rule_filter,
            parent=parent,
            value=self.text(raw.get("value"), path, f"{where}.value") or "",
        )

    def preemption(self, value: Any, path: str, where: str) -> Preemption | None:
        raw = self.mapping(value, path, where)
        if raw is None:
            return None
        self.keys(raw, _PREEMPTION_KEYS, "preemption", path, where)
        return Preemption(
            enabled=self.boolean(raw.get("enabled"), path, f"{where}.enabled"),
            quota_preemption_enabled=self.boolean(
                raw.get("quotapreemptionenabled"), path, f"{where}.quotapreemptionenabled"
            ),
        )

    def node_sort(self, value: Any, path: str, where: str) -> NodeSortPolicy | None:
        where = f"{where}.nodesortpolicy"
        raw = self.mapping(value, path, where)
        if raw is None:
            return None
        self.keys(raw, _NODE_SORT_KEYS, "node sort policy", path, where)
        weights_raw = self.mapping(raw.get("resourceweights"), path, f"{where}.resourceweights")
        weights = {
            str.__str__(kind): self.number(weight, path, f"{where}.resourceweights.{kind}")
            for kind, weight in (weights_raw or {}).items()
        }
        return NodeSortPolicy(
            type=self.text(raw.get("type"), path, f"{where}.type") or "",
            resource_weights=frozen_map(weights),
        )

    def resolver(self, value: Any, path: str, where: str) -> str | None:
        where = f"{where}.usergroupresolver"
        raw = self.mapping(value, path, where)
        if raw is None:
            return None
        self.keys(raw, _RESOLVER_KEYS, "user group resolver", path, where)
        return self.text(raw.get("type"), path, f"{where}.type") or ""


def build_config(raw: Any) -> tuple[Config, Locations, list[dict[str, str]]]:
    """The model for plain data from ``load_document``, where it was written, and PARSE errors."""
    builder = _Builder()
    config = builder.config(raw)
    return config, builder.loc, builder.report.errors


def build_queue(raw: Any, *, parent_path: str) -> tuple[Queue, list[dict[str, str]]]:
    """One queue (not the root) below the queue at ``parent_path``, from plain data as
    ``load_document`` gives it, built as it would be inside a whole document, and its PARSE
    errors. Its ``children`` are those ``raw`` lists."""
    builder = _Builder()
    return builder.queue(raw, "", parent_path), builder.report.errors


def default_locations(config: Config) -> Locations:
    """Locations for a model that did not come from a document: as ``dump_config`` writes it."""
    loc = Locations()
    for index, partition in enumerate(config.partitions):
        where = f"partitions[{index}]"
        loc.partitions.append(where)
        root = partition.root
        stack = [(root, f"{where}.queues[0]")]
        while stack:
            queue, at = stack.pop()
            key = id(queue)
            loc.queues[key] = at
            loc.limits[key] = f"{at}.limits"
            loc.names[key] = queue.name
            stack.extend(
                (child, f"{at}.queues[{n}]") for n, child in enumerate(queue.children)
            )
        if partition.limits and (not root.limits or root.limits == partition.limits):
            loc.limits[id(root)] = f"{where}.limits"
    return loc
