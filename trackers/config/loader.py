"""YAML text to plain Python data, safely and strictly.

PyYAML's own composer recurses (so a deeply nested document can exhaust the stack), expands
aliases into shared objects without any budget, and resolves scalars by YAML 1.1 rules that turn
``010`` into 8 and ``1_000`` into 1000. It is also slow: resolving every scalar through Python
regexes costs seconds on a large config. So this module reads libyaml's event stream itself, in
one loop without recursion, and builds the data with its own small rules:

* plain scalars stay text, except the YAML nulls (-> ``None``) and ``true``/``false`` (-> bool);
  the builder decides what a text means where an int or a float is expected;
* quoted and block scalars (and ``!!str``) become ``Quoted`` text, never a number or a bool;
* other tags are refused; mapping keys must be text; a key may appear once per mapping;
* size, depth, node count and alias count are capped, so hostile input fails fast and small.
"""

from __future__ import annotations

from typing import Any

import yaml

from trackers.config import messages

MAX_BYTES = 8 * 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 1_000_000
MAX_ALIASES = 1000

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_STR_TAGS = frozenset({"!", "tag:yaml.org,2002:str"})
_COLLECTION_TAGS = frozenset({"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"})
# Only the YAML 1.2 spellings are booleans here: a user or queue called "no" or "on" stays text.
_PLAIN_SPECIAL: dict[str, Any] = {
    "": None,
    "~": None,
    "null": None,
    "Null": None,
    "NULL": None,
    "true": True,
    "True": True,
    "TRUE": True,
    "false": False,
    "False": False,
    "FALSE": False,
}


_NO_KEY = object()


class Quoted(str):
    """Text the author quoted (or wrote as a block scalar): it is never read as a number."""

    __slots__ = ()


class DocumentError(Exception):
    """The text is not a YAML document quotaweb will read; ``str(err)`` says why and where."""


def _line(event: Any) -> int:
    mark = event.start_mark
    return mark.line + 1 if mark is not None else 0


def _describe_key(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return repr(value)


def _check_size(text: str | bytes, max_bytes: int) -> str:
    if isinstance(text, bytes):
        if len(text) > max_bytes:
            raise DocumentError(
                messages.DOCUMENT_TOO_LARGE.format(size=len(text), limit=max_bytes)
            )
        try:
            return text.decode("utf-8")
        except UnicodeDecodeError:
            raise DocumentError(messages.DOCUMENT_NOT_UTF8) from None
    # A character takes one to four bytes: only texts near the cap need the exact count, and a
    # text with more characters than the cap allows bytes is refused without copying it.
    size = len(text)
    if size > max_bytes:
        raise DocumentError(messages.DOCUMENT_AT_LEAST.format(size=size, limit=max_bytes))
    if size * 4 > max_bytes:
        size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise DocumentError(messages.DOCUMENT_TOO_LARGE.format(size=size, limit=max_bytes))
    return text


def load_document(
    text: str | bytes,
    *,
    max_bytes: int = MAX_BYTES,
    max_depth: int = MAX_DEPTH,
    max_nodes: int = MAX_NODES,
    max_aliases: int = MAX_ALIASES,
) -> Any:
    """The first (only) YAML document of ``text`` as dicts, lists, text, bools and ``None``.

    An empty stream gives ``None``. Raises ``DocumentError`` for anything refused.
    """
    text = _check_size(text, max_bytes)
    loader = _Loader(text)
    try:
        return _compose(loader, max_depth, max_nodes, max_aliases)
    except yaml.YAMLError as err:
        detail = " ".join(str(err).split())
        raise DocumentError(messages.DOCUMENT_SYNTAX.format(detail=detail)) from None
    finally:
        loader.dispose()


def _compose(loader: Any, max_depth: int, max_nodes: int, max_aliases: int) -> Any:
    scalar_event = yaml.ScalarEvent
    mapping_start = yaml.MappingStartEvent
    sequence_start = yaml.SequenceStartEvent
    alias_event = yaml.AliasEvent
    mapping_end = yaml.MappingEndEvent
    sequence_end = yaml.SequenceEndEvent
    document_start = yaml.DocumentStartEvent
    stream_end = yaml.StreamEndEvent
    special = _PLAIN_SPECIAL
    no_key = _NO_KEY

    # The open collection lives in locals (this loop runs once per event, about a million times
    # for a large config); enclosing ones wait on the stack as
    # (container, is_mapping, pending key, anchor, node count at its start).
    stack: list[tuple[Any, bool, Any, str | None, int]] = []
    container: Any = None
    is_mapping = False
    key: Any = no_key
    anchor: str | None = None
    started = 0
    depth = 0

    anchors: dict[str, tuple[Any, int]] = {}
    open_anchors: set[str] = set()
    nodes = 0
    aliases = 0
    documents = 0
    result: Any = None
    get_event = loader.get_event

    while True:
        event = get_event()
        cls = event.__class__
        value: Any
        if cls is scalar_event:
            nodes += 1
            tag = event.tag
            if "\x00" in event.value:
                # An escaped \0 in a quoted scalar: no name or quantity needs it, and databases
                # (PostgreSQL text and jsonb) cannot store it.
                raise DocumentError(messages.DOCUMENT_NUL.format(line=_line(event)))
            if tag is None:
                text = event.value
                value = special.get(text, text) if event.implicit[0] else Quoted(text)
            elif tag in _STR_TAGS:
                value = Quoted(event.value)
            else:
                raise DocumentError(messages.DOCUMENT_TAG.format(tag=tag, line=_line(event)))
            if event.anchor is not None:
                anchors[event.anchor] = (value, 1)
        elif cls is mapping_start or cls is sequence_start:
            nodes += 1
            if event.tag is not None and event.tag not in _COLLECTION_TAGS:
                raise DocumentError(messages.DOCUMENT_TAG.format(tag=event.tag, line=_line(event)))
            if is_mapping and key is no_key:
                found = "a mapping" if cls is mapping_start else "a list"
                raise DocumentError(
                    messages.DOCUMENT_KEY_NOT_TEXT.format(found=found, line=_line(event))
                )
            if depth >= max_depth:
                raise DocumentError(
                    messages.DOCUMENT_TOO_DEEP.format(limit=max_depth, line=_line(event))
                )
            if nodes > max_nodes:
                raise DocumentError(
                    messages.DOCUMENT_TOO_MANY_NODES.format(limit=max_nodes, line=_line(event))
                )
            if depth:
                stack.append((container, is_mapping, key, anchor, started))
            depth += 1
            anchor = event.anchor
            if anchor is not None:
                open_anchors.add(anchor)
            is_mapping = cls is mapping_start
            container = {} if is_mapping else []
            key = no_key
            started = nodes
            continue
        elif cls is mapping_end or cls is sequence_end:
            value = container
            if anchor is not None:
                open_anchors.discard(anchor)
                anchors[anchor] = (value, nodes - started + 1)
            depth -= 1
            if not depth:
                result = value
                continue
            container, is_mapping, key, anchor, started = stack.pop()
        elif cls is alias_event:
            name = event.anchor
            if name in open_anchors:
                raise DocumentError(
                    messages.DOCUMENT_RECURSIVE_ALIAS.format(name=name, line=_line(event))
                )
            if name not in anchors:
                raise DocumentError(
                    messages.DOCUMENT_UNKNOWN_ALIAS.format(name=name, line=_line(event))
                )
            aliases += 1
            if aliases > max_aliases:
                raise DocumentError(
                    messages.DOCUMENT_TOO_MANY_ALIASES.format(limit=max_aliases, line=_line(event))
                )
            value, size = anchors[name]
            # Count what the alias would expand to: this is what stops "billion laughs".
            nodes += size
        elif cls is document_start:
            documents += 1
            if documents > 1:
                raise DocumentError(messages.DOCUMENT_MANY.format(line=_line(event)))
            continue
        elif cls is stream_end:
            return result
        else:
            continue  # stream start, document end

        if nodes > max_nodes:
            raise DocumentError(
                messages.DOCUMENT_TOO_MANY_NODES.format(limit=max_nodes, line=_line(event))
            )
        if not depth:
            result = value
        elif not is_mapping:
            container.append(value)
        elif key is no_key:
            if not isinstance(value, str):
                raise DocumentError(
                    messages.DOCUMENT_KEY_NOT_TEXT.format(
                        found=_describe_key(value), line=_line(event)
                    )
                )
            key = value
        else:
            if key in container:
                raise DocumentError(
                    messages.DOCUMENT_DUPLICATE_KEY.format(key=key, line=_line(event))
                )
            container[key] = value
            key = no_key
