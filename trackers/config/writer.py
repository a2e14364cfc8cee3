"""Config documents out as YAML, fast, and the plain data the loader would read back from them.

PyYAML's representer is pure Python and costs seconds on a 10,000-queue document even with the C
emitter. Config documents are plain block-style data (mappings, lists, short text, whole numbers,
booleans), so ``write_yaml`` writes them directly, quoting text exactly as ``yaml.dump`` quotes it;
anything else (floats, long or unusual text, nested lists ...) falls back to ``yaml.dump`` for the
whole document. ``loaded_form`` gives what ``loader.load_document`` would return for that text
without writing or reading it, so a caller that builds a document in memory can skip the round
trip.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import yaml

from trackers.config.loader import MAX_DEPTH, MAX_NODES, Quoted

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def write_yaml(document: Mapping[str, Any]) -> str:
    """The document as block-style YAML that reads back as the same data (for config documents,
    the same text ``yaml.dump`` writes)."""
    try:
        return _fast_yaml(document)
    except Unusual:
        pass
    return yaml.dump(
        document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False,
        width=1000,
    )


class Unusual(Exception):
    """The document holds something the fast writer leaves to ``yaml.dump``."""


_resolver = yaml.resolver.Resolver()
_STR_TAG = "tag:yaml.org,2002:str"
_PLAIN_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./@ -]*")
_MAX_FAST_TEXT = 100
_scalar_cache: dict[str, str] = {}


def plain_is_text(text: str) -> bool:
    """Whether ``text`` written plain reads back as text (not a number, bool, null ...)."""
    # types-PyYAML leaves Resolver.resolve unannotated; it answers the tag, a str.
    tag: str = _resolver.resolve(  # type: ignore[no-untyped-call]
        yaml.ScalarNode, text, (True, False)
    )
    return tag == _STR_TAG


def _text(text: str) -> str:
    written = _scalar_cache.get(text)
    if written is not None:
        return written
    if len(text) > _MAX_FAST_TEXT:
        raise Unusual
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
            raise Unusual
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
    raise Unusual


def _write_mapping(
    out: list[str], mapping: Mapping[Any, Any], indent: str, first_prefix: str
) -> None:
    """A non-empty mapping; its first key follows ``first_prefix`` (``"- "`` in a list item)."""
    prefix = first_prefix
    for key, value in mapping.items():
        if type(key) is not str:
            raise Unusual
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


def _write_list(out: list[str], items: list[Any], indent: str) -> None:
    for item in items:
        kind = type(item)
        if kind is dict:
            if item:
                _write_mapping(out, item, indent + "  ", indent + "- ")
            else:
                out.append(f"{indent}- {{}}\n")
        elif kind is list:
            raise Unusual
        else:
            out.append(f"{indent}- {_scalar(item)}\n")


def write_item(item: Mapping[str, Any], *, indent: int) -> str:
    """A mapping as ``write_yaml`` writes it as an item of a list whose dashes stand
    ``indent`` columns in: the very lines it takes inside the whole document. ``Unusual`` when
    the whole document would be left to ``yaml.dump``."""
    if type(item) is not dict or not item:
        raise Unusual
    out: list[str] = []
    _write_list(out, [item], " " * indent)
    return "".join(out)


def _fast_yaml(document: Mapping[str, Any]) -> str:
    if type(document) is not dict or not document:
        raise Unusual
    out: list[str] = []
    _write_mapping(out, document, "", "")
    return "".join(out)



def loaded_form(document: Mapping[str, Any]) -> Any:
    """The plain data ``trackers``' loader would read from ``write_yaml(document)``, without
    writing or reading YAML: text written plain stays ``str``, quoted text becomes ``Quoted``,
    numbers become their text. ``Unusual`` when unsure (the caller then goes through YAML)."""
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
                raise Unusual
            if kind is list:
                return [convert(item, depth + 1) for item in value]
            out = {}
            for key, item in value.items():
                if type(key) is not str:
                    raise Unusual
                nodes += 1
                out[text(key)] = convert(item, depth + 1)
            return out
        if kind is bool or value is None:
            return value
        if kind is int:
            return str(value)
        raise Unusual

    return convert(document, 0)
