"""Where an error's key path (``partitions[0].queues[1].limits[0].maxresources``) is in the text.

Errors name fields by key path, which a person pasting YAML cannot see; the line lets a page mark
the line itself. Only called on documents the loader has already read within its limits, so
composing the node tree (aliases stay shared nodes, never expanded) is bounded too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import yaml

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")

try:  # the C loader when PyYAML was built with it: ten times faster on large documents
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was installed
    _Loader = yaml.SafeLoader


def field_lines(text: str, fields: Iterable[str]) -> dict[str, int]:
    """1-based line of each key path, as deep as the path can be followed (a key that is not in
    the text, such as a missing ``maxapplications``, gets the line of the nearest enclosing
    value). Paths that cannot be placed at all are left out; so is everything when the text is
    not YAML."""
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return {}
    if root is None:
        return {}
    out = {}
    for field in fields:
        line = _line(root, field)
        if line is not None:
            out[field] = line
    return out


def _line(node: yaml.Node, field: str) -> int | None:
    line = None
    for key, index in _STEP.findall(field):
        if key:
            if not isinstance(node, yaml.MappingNode):
                break
            found = next(
                (
                    (k, v) for k, v in node.value
                    if isinstance(k, yaml.ScalarNode) and str(k.value).lower() == key.lower()
                ),
                None,
            )
            if found is None:
                break
            line = found[0].start_mark.line + 1
            node = found[1]
        else:
            if not isinstance(node, yaml.SequenceNode) or int(index) >= len(node.value):
                break
            node = node.value[int(index)]
            line = node.start_mark.line + 1
    return line
