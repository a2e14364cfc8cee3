"""Conversions between the ``trackers`` model, database rows and the YAML document as a dict.

The document dict uses the spellings of ``trackers.dump_config`` (``maxapplications``,
``resources.max`` ...), so edits can work on it and ``yaml`` can write it for the validator.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import yaml

from trackers import dump_config
from trackers.config.loader import MAX_DEPTH, MAX_NODES, Quoted
from trackers.config.model import ChildTemplate, Config, Limit, Partition, Queue, Resources

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def document_yaml(document: Mapping[str, Any]) -> str:
    """The document as block-style YAML that reads back as the same data (for config documents,
    the same text ``yaml.dump`` writes)."""
    try:
        return _fast_yaml(document)
    except _Unusual:
        pass
    return yaml.dump(
        document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False,
        width=1000,
    )


# -- YAML out, fast ----------------------------------------------------------------------------
# PyYAML's representer is pure Python and costs seconds on a 10,000-queue document even with the
# C emitter. The documents written here are plain block-style data (mappings, lists, short text,
# whole numbers, booleans), so they are written directly; text is quoted exactly as ``yaml.dump``
# quotes it; anything else (floats, long or unusual text, nested lists ...) falls back to
# ``yaml.dump`` for the whole document. tests/config/test_yaml_writer.py holds it to that.


class _Unusual(Exception):
    """The document holds something the fast writer leaves to ``yaml.dump``."""


_resolver = yaml.resolver.Resolver()
_STR_TAG = "tag:yaml.org,2002:str"
_PLAIN_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./@ -]*")
_MAX_FAST_TEXT = 100
_scalar_cache: dict[str, str] = {}


def plain_is_text(text: str) -> bool:
    """Whether ``text`` written plain reads back as text (not a number, bool, null ...)."""
    return _resolver.resolve(yaml.ScalarNode, text, (True, False)) == _STR_TAG


def _text(text: str) -> str:
    written = _scalar_cache.get(text)
    if written is not None:
        return written
    if len(text) > _MAX_FAST_TEXT:
        raise _Unusual
    if _PLAIN_RE.fullmatch(text) and text[-1] != " " and "  " not in text and plain_is_text(text):
        written = text
    else:
        # Whatever style yaml.dump picks for this text on its own (plain, quoted), as long as it
        # fits on one line: the choice does not depend on where the text stands in a block.
        dumped = yaml.dump(
            text, Dumper=_Dumper, allow_unicode=True, default_flow_style=False, width=1000
        )
        written = dumped.removesuffix("\n...\n").removesuffix("\n")
        if not written or "\n" in written:
            raise _Unusual
    if len(_scalar_cache) < 100_000:
        _scalar_cache[text] = written
    return written


def _scalar(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return _text(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if value is None:
        return "null"
    raise _Unusual


def _write_mapping(out: list[str], mapping: Mapping, indent: str, first_prefix: str) -> None:
    """A non-empty mapping; its first key follows ``first_prefix`` (``"- "`` in a list item)."""
    prefix = first_prefix
    for key, value in mapping.items():
        if type(key) is not str:
            raise _Unusual
        head = f"{prefix}{_text(key)}:"
        prefix = indent
        kind = type(value)
        if kind is dict:
            if value:
                out.append(head + "\n")
                _write_mapping(out, value, indent + "  ", indent + "  ")
            else:
                out.append(head + " {}\n")
        elif kind is list:
            if value:
                out.append(head + "\n")
                _write_list(out, value, indent)
            else:
                out.append(head + " []\n")
        else:
            out.append(f"{head} {_scalar(value)}\n")


def _write_list(out: list[str], items: list, indent: str) -> None:
    for item in items:
        kind = type(item)
        if kind is dict:
            if item:
                _write_mapping(out, item, indent + "  ", indent + "- ")
            else:
                out.append(f"{indent}- {{}}\n")
        elif kind is list:
            raise _Unusual
        else:
            out.append(f"{indent}- {_scalar(item)}\n")


def _fast_yaml(document: Mapping[str, Any]) -> str:
    if type(document) is not dict or not document:
        raise _Unusual
    out: list[str] = []
    _write_mapping(out, document, "", "")
    return "".join(out)


# -- model -> row values ----------------------------------------------------------------------


def limit_values(limit: Limit) -> dict[str, Any]:
    """A limit entry as ``LimitEntry`` field values."""
    return {
        "description": limit.description,
        "users": list(limit.users),
        "groups": list(limit.groups),
        "max_resources": dict(limit.max_resources),
        "max_applications": limit.max_applications,
    }


def queue_values(queue: Queue) -> dict[str, Any]:
    """A queue's own settings (no children, no limits) as ``Queue`` field values."""
    return {
        "name": queue.name,
        "has_resources": queue.resources is not None,
        "guaranteed": dict(queue.guaranteed),
        "max": dict(queue.max),
        "max_applications": queue.max_applications,
        "properties": dict(queue.properties),
        "admin_acl": queue.admin_acl,
        "submit_acl": queue.submit_acl,
        "is_parent": queue.parent,
        "child_template": template_document(queue.child_template),
    }


def partition_settings(partition: Partition) -> dict[str, Any]:
    """The partition keys that are neither queues nor limits, in document spelling."""
    # dump_config already knows how to spell placement rules, preemption and the rest; writing a
    # copy of that here would be a second place to keep in step with the spec.
    bare = Partition(
        name=partition.name,
        root=Queue(name="root", path="root"),
        placement_rules=partition.placement_rules,
        preemption=partition.preemption,
        node_sort_policy=partition.node_sort_policy,
        user_group_resolver=partition.user_group_resolver,
    )
    written = yaml.safe_load(dump_config(Config(partitions=(bare,))))["partitions"][0]
    return {key: value for key, value in written.items() if key not in ("name", "queues")}


def template_document(template: ChildTemplate | None) -> dict[str, Any] | None:
    if template is None:
        return None
    out: dict[str, Any] = {}
    if template.max_applications:
        out["maxapplications"] = template.max_applications
    if template.properties:
        out["properties"] = dict(template.properties)
    if template.resources is not None:
        out["resources"] = resources_document(template.resources)
    return out


def resources_document(resources: Resources) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if resources.guaranteed:
        out["guaranteed"] = dict(resources.guaranteed)
    if resources.max:
        out["max"] = dict(resources.max)
    return out


# -- row values -> document ---------------------------------------------------------------------


def limit_document(values: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if values.get("description") is not None:
        out["limit"] = values["description"]
    if values.get("users"):
        out["users"] = list(values["users"])
    if values.get("groups"):
        out["groups"] = list(values["groups"])
    if values.get("max_resources"):
        out["maxresources"] = dict(values["max_resources"])
    if values.get("max_applications"):
        out["maxapplications"] = values["max_applications"]
    return out


def queue_document(values: Mapping[str, Any], *, is_root: bool) -> dict[str, Any]:
    """A queue's own keys, without ``queues`` and ``limits`` (the caller adds those)."""
    out: dict[str, Any] = {"name": values["name"]}
    if values.get("is_parent") is not None and not is_root:
        out["parent"] = values["is_parent"]
    if values.get("max_applications"):
        out["maxapplications"] = values["max_applications"]
    if values.get("admin_acl") is not None:
        out["adminacl"] = values["admin_acl"]
    if values.get("submit_acl") is not None:
        out["submitacl"] = values["submit_acl"]
    if values.get("properties"):
        out["properties"] = dict(values["properties"])
    if values.get("has_resources"):
        resources: dict[str, Any] = {}
        if values.get("guaranteed"):
            resources["guaranteed"] = dict(values["guaranteed"])
        if values.get("max"):
            resources["max"] = dict(values["max"])
        out["resources"] = resources
    if values.get("child_template") is not None:
        out["childtemplate"] = values["child_template"]
    return out


def partition_document(
    *, name: str, settings: Mapping[str, Any], limits: list[dict], root: dict[str, Any]
) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, **settings}
    if limits:
        out["limits"] = limits
        # The loader copies partition limits to a root without limits of its own (S3): write them
        # once, like dump_config, so parsing gives back the same model.
        if root.get("limits") == limits:
            del root["limits"]
    out["queues"] = [root]
    return out


def config_document(config: Config) -> dict[str, Any]:
    """A model as a root-explicit document dict, laid out like ``config_document_from_rows``
    (the rows hold exactly the active model, so both give the same document)."""
    partitions = []
    for partition in config.partitions:
        docs: dict[int, dict[str, Any]] = {}
        for queue in partition.queues():
            # Parents come first: a child fills the placeholder its parent already listed.
            doc = docs.setdefault(id(queue), {})
            doc.update(queue_document(queue_values(queue), is_root=queue is partition.root))
            if queue.limits:
                doc["limits"] = [limit_document(limit_values(limit)) for limit in queue.limits]
            if queue.children:
                doc["queues"] = [docs.setdefault(id(child), {}) for child in queue.children]
        partitions.append(
            partition_document(
                name=partition.name, settings=partition_settings(partition),
                limits=[limit_document(limit_values(limit)) for limit in partition.limits],
                root=docs[id(partition.root)],
            )
        )
    return {"partitions": partitions}


def loader_data(document: Mapping[str, Any]) -> Any:
    """The plain data ``trackers``' loader would read from ``document_yaml(document)``, without
    writing or reading YAML: text written plain stays ``str``, quoted text becomes ``Quoted``,
    numbers become their text. ``_Unusual`` when unsure (the caller then goes through YAML)."""
    nodes = 0

    def text(value: str) -> str:
        return value if _text(value) == value else Quoted(value)

    def convert(value: Any, depth: int) -> Any:
        nonlocal nodes
        nodes += 1
        kind = type(value)
        if kind is str:
            return text(value)
        if kind is dict or kind is list:
            if depth >= MAX_DEPTH - 2 or nodes >= MAX_NODES - 2:
                raise _Unusual
            if kind is list:
                return [convert(item, depth + 1) for item in value]
            out = {}
            for key, item in value.items():
                if type(key) is not str:
                    raise _Unusual
                nodes += 1
                out[text(key)] = convert(item, depth + 1)
            return out
        if kind is bool or value is None:
            return value
        if kind is int:
            return str(value)
        raise _Unusual

    return convert(document, 0)


Unusual = _Unusual
