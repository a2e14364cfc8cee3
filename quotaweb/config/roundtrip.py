"""The admin's own YAML document, read and written round-trip, so an edit changes only what it
changes.

Admins keep ``queues.yaml`` in git: rewriting the whole document for one form edit (the
``dump_config`` way) deleted their comments, turned flow style into block style and quoted their
numbers, so a one-value edit showed as a diff of hundreds of lines. ruamel.yaml's round-trip mode
keeps comments, key order, flow style and quoting of everything an edit leaves alone; ``merge``
makes an edit leave alone everything whose value it does not change.

Only text that ``trackers`` already accepted is read here (the stored active version): the safe
loader's size, depth and alias limits ran when it was stored, and the candidate written back is
validated by ``trackers`` again like any other document.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

Document = dict[str, Any]

# Wide enough that no line the admin wrote is folded anew.
_WIDTH = 4096
# ruamel's round trip is pure Python, some 30-40 times slower than the validator's read: on a
# loaded 2-core machine 0.1 s for the 8 KB sample, 1.2 s for 57 KB, 3 s for 115 KB and 165 s for a
# generated 6 MB, 10,000-queue document (benchmarks/roundtrip_yaml.py). Hand-kept documents, whose
# comments are worth keeping, are far below this; larger ones (generated) are made from the model
# as before, so that an edit of them stays quick.
MAX_ROUNDTRIP_BYTES = 64 * 1024
_KEY_LINE = re.compile(r"^( *)(- +)?[^\s#][^#]*:\s*(#.*)?$")
_UINT = re.compile(r"[1-9][0-9]*|0")


def _indents(text: str) -> tuple[int, int, int]:
    """``(mapping, sequence, offset)`` as the document is indented, so untouched lines stay
    byte for byte (ruamel writes one indentation everywhere and does not guess it itself)."""
    mapping = sequence = offset = None
    lines = [
        line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    for line, following in pairwise(lines):
        found = _KEY_LINE.match(line)
        if found is None:
            continue
        # The key's own column: after a "- " that opens a sequence item on the same line.
        column = len(found.group(1)) + len(found.group(2) or "")
        stripped = following.lstrip(" ")
        inner = len(following) - len(stripped)
        if inner <= column:
            continue
        if stripped.startswith("- ") and sequence is None:
            dash = len(stripped) - len(stripped[1:].lstrip(" "))
            offset, sequence = inner - column, inner - column + dash
        elif not stripped.startswith("- ") and mapping is None:
            mapping = inner - column
        if mapping is not None and sequence is not None:
            break
    return mapping or 2, sequence or 2, offset or 0


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = _WIDTH
    return yaml


@dataclass
class Editable:
    """A document read round-trip, with the indentation to write it back in."""

    document: Document
    indents: tuple[int, int, int]

    def text(self) -> str:
        mapping, sequence, offset = self.indents
        yaml = _yaml()
        yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
        stream = io.StringIO()
        yaml.dump(_numbers_plain(self.document), stream)
        return stream.getvalue()


def _numbers_plain(node: Any) -> Any:
    """Whole numbers that forms and the API hand over as text, written plain as admins write
    them (``vcore: 256``, not ``vcore: '256'``); the loader reads both as the same text. Text
    the admin quoted is a ruamel subclass of ``str`` and keeps its quotes."""
    if type(node) is str and _UINT.fullmatch(node):
        return int(node)
    if isinstance(node, Mapping):
        for key, value in node.items():
            changed = _numbers_plain(value)
            if changed is not value:
                node[key] = changed
    elif isinstance(node, list):
        for index, value in enumerate(node):
            changed = _numbers_plain(value)
            if changed is not value:
                node[index] = changed
    return node


def document_read(yaml_text: str) -> Editable | None:
    """The document to edit, or None when edits cannot address it as written: a partition
    whose queues are not one explicit ``root`` (the root was left implicit), or a document that
    shares nodes through anchors (an edit of one place would change the others), or one larger
    than ``MAX_ROUNDTRIP_BYTES``."""
    if len(yaml_text) > MAX_ROUNDTRIP_BYTES:
        return None
    if "&" in yaml_text and _has_anchors(yaml_text):
        return None
    try:
        document = _yaml().load(yaml_text)
    except (YAMLError, IndexError, ValueError):
        # ruamel.yaml (0.19) fails inside its integer reader on plain scalars such as ``-_``,
        # ``+_`` or ``0x_`` (text to the loader that judges the document): such a document is
        # edited through its model instead.
        return None
    if not isinstance(document, CommentedMap):
        return None
    for partition in document.get("partitions") or []:
        queues = partition.get("queues") if isinstance(partition, Mapping) else None
        if not (
            isinstance(queues, list) and len(queues) == 1 and isinstance(queues[0], Mapping)
            and str(queues[0].get("name", "")).lower() == "root"
        ):
            return None
    return Editable(document=document, indents=_indents(yaml_text))


def _has_anchors(yaml_text: str) -> bool:
    try:
        return any(getattr(event, "anchor", None) for event in YAML(typ="rt").parse(yaml_text))
    except YAMLError:
        return False


# -- changing a document in place, keeping what does not change ----------------------------------


def _plain(value: Any) -> Any:
    """A value as the comparison of ``merge`` sees it: ``256`` and ``"256"`` are one value (the
    loader reads plain scalars as text either way), whatever their style or quoting."""
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if value is None or isinstance(value, bool):
        return value
    return str(value)


def _flow(like: Any) -> bool:
    return isinstance(like, CommentedMap | CommentedSeq) and bool(like.fa.flow_style())


def fresh(value: Any, *, like: Any = None) -> Any:
    """``value`` (plain data) to go into a round-trip document, styled like ``like`` (the node
    it replaces, or a sibling): flow style where that was flow, at every depth."""
    if not isinstance(like, CommentedMap | CommentedSeq):
        return value
    if isinstance(value, Mapping):
        out = CommentedMap()
        for key, item in value.items():
            out[key] = fresh(item, like=like.get(key) if isinstance(like, Mapping) else None)
    elif isinstance(value, list | tuple):
        out = CommentedSeq()
        first = like[0] if isinstance(like, list) and like else None
        out.extend(fresh(item, like=first) for item in value)
    else:
        return value
    if _flow(like):
        out.fa.set_flow_style()
    return out


def merge(old: Any, new: Any) -> Any:
    """What to store where ``old`` was so that it reads as ``new``: ``old`` itself (its
    comments, order, style and quoting kept) for every part whose value is unchanged. Mappings
    are changed in place, a new key going after the key that precedes it in ``new``."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        if not isinstance(old, CommentedMap):
            # A document made from scratch has no style to keep: laid out in ``new``'s order.
            merged = {key: merge(old[key], value) if key in old else value
                      for key, value in new.items()}
            old.clear()
            old.update(merged)
            return old
        for key in [key for key in old if key not in new]:
            del old[key]
        position = -1
        for key, value in new.items():
            if key in old:
                merged = merge(old[key], value)
                if merged is not old[key]:
                    old[key] = merged
                position = list(old).index(key)
            else:
                position += 1
                old.insert(position, key, value)
        return old
    if _plain(old) == _plain(new):
        return old
    return fresh(new, like=old)

