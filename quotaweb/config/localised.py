"""One queue's or one limit entry's edit made where it lands: in the model, in the stored text
and in the judgement, not in the whole document.

The whole path (``services.config_state`` for a document too large to edit round-trip) makes
the document from the active model, edits it, writes all of it and parses, judges and compiles
all of it again, for one value. Here, for the edits of one existing queue's own keys or limit
entries (``SUPPORTED``):

* the queue's node is made as the whole path makes it (``documents``), and the very edit
  function (``edits``) changes it inside a document that holds only the queue's ancestors;
* the new queue is built from that node by the builder the whole document goes through
  (``trackers.config.build.build_queue``), and the new model shares every other queue with the
  active one (``trackers.config.localised.queue_replace``);
* the stored text is patched: the queue's own lines (its keys and limit entries, up to its
  children) are found, checked to be exactly what ``write_yaml`` writes for the old node, and
  replaced by what it writes for the new one; the rest of the text is kept byte for byte;
* it is judged by what the change can affect (``trackers.config.localised.locally_valid``).

``edit_localised`` answers None whenever any of that does not hold (another kind of edit, a
rename, the root, an elastic partition, a text not laid out as ``write_yaml`` lays it out, a
value the builder or the rules refuse): the caller then takes the whole path, which gives the
same result, or the refusal with every error.
"""

from __future__ import annotations

import dataclasses
import re
from functools import lru_cache
from typing import Any

from quotaweb.config import edits
from quotaweb.config.documents import limit_document, limit_values, queue_document, queue_values
from trackers.config import normalise_partition_name
from trackers.config.build import build_queue
from trackers.config.loader import MAX_BYTES, MAX_DEPTH, DocumentError, load_document
from trackers.config.localised import chain, locally_valid, partition_changes, queue_replace
from trackers.config.model import Config, Queue
from trackers.config.writer import Unusual, loaded_form, write_item

SUPPORTED = frozenset(
    {"queue_update", "limit_create", "limit_update", "limit_delete", "limit_move"}
)
# write_yaml's layout: partitions' dashes at column 0, the root's at 2, each level 2 deeper.
_ROOT_DASH = 2
_STEP = 2


def node_of(queue: Queue) -> dict[str, Any]:
    """A queue's own keys and limit entries as ``documents.config_document`` writes them."""
    node = queue_document(queue_values(queue), is_root=False)
    if queue.limits:
        node["limits"] = [limit_document(limit_values(limit)) for limit in queue.limits]
    return node


def edit_localised(
    *, text: str, model: Config, record: edits.Record, elastic: tuple[str, ...]
) -> tuple[Config, str] | None:
    """The valid model and stored text of ``model`` (whose text is ``text``) with the edit of
    ``record`` made, or None when this edit is to be made the whole way. ``edits.NotFound``
    and the other refusals of the edit itself are raised as the whole path raises them."""
    kind, args = record["kind"], record["args"]
    if kind not in SUPPORTED or (kind == "queue_update" and "name" in args["values"]):
        return None
    name = normalise_partition_name(args["partition"])
    partition = model.partition(name)
    if partition is None or name in elastic:
        return None
    found = chain(partition.root, str(args["queue_path"]).lower())
    if found is None or len(found) == 1:
        return None
    queue = found[-1]
    dash = _ROOT_DASH + _STEP * (len(found) - 1)
    node = node_of(queue)
    try:
        before = write_item(node, indent=dash)
    except Unusual:
        return None
    span = _own_lines(text, partition.name, found)
    if span is None or text[span[0]:span[1]] != before:
        return None

    # The edit itself, on a document of the queue's ancestors (they hold nothing else).
    document = node
    for ancestor in reversed(found[:-1]):
        document = {"name": ancestor.name, "queues": [document]}
    edits.edit_from_record(record)({"partitions": [{"name": partition.name, "queues": [document]}]})

    try:
        after = write_item(node, indent=dash)
        raw = loaded_form(node)
    except Unusual:
        return None
    new_text = text[:span[0]] + after + text[span[1]:]
    if len(new_text.encode("utf-8")) > MAX_BYTES:
        return None
    built, errors = build_queue(raw, parent_path=found[-2].path)
    if errors or built.path != queue.path:
        return None
    new_partition = queue_replace(
        partition, queue.path, dataclasses.replace(built, children=queue.children)
    )
    changes = partition_changes(partition, new_partition)
    index = model.partitions.index(partition)
    if changes is None or not locally_valid(partition, new_partition, changes, index=index):
        return None
    partitions = tuple(new_partition if p is partition else p for p in model.partitions)
    return dataclasses.replace(model, partitions=partitions), new_text


# -- the queue's lines in the text ---------------------------------------------------------------


@lru_cache(maxsize=64)
def _block_end_at(dash: int) -> re.Pattern[str]:
    # The next line that starts at or left of the item's dash ends the item.
    return re.compile(rf"\n {{0,{dash}}}[^ \n]")


def _block_end(text: str, start: int, dash: int, end: int) -> int:
    found = _block_end_at(dash).search(text, start, end)
    return found.start() + 1 if found else end


def _line(text: str, line: str, start: int, end: int) -> int:
    """Where ``line`` stands as a whole line in ``text[start:end]``, or -1."""
    at = text.find(line, start, end)
    while at > 0 and text[at - 1] != "\n":
        at = text.find(line, at + 1, end)
    return at


def _own_lines(text: str, partition: str, found: list[Queue]) -> tuple[int, int] | None:
    """``(start, end)`` of the last queue of ``found``'s own lines (its item's first line up to
    its ``queues:`` key), the document laid out as ``write_yaml`` writes it; None when the text
    is laid out otherwise."""
    try:
        start = _line(text, write_item({"name": partition}, indent=0), 0, len(text))
    except Unusual:
        return None
    if start < 0:
        return None
    end = _block_end(text, start, 0, len(text))
    for depth, queue in enumerate(found):
        dash = _ROOT_DASH + _STEP * depth
        key = " " * dash + "queues:\n"
        listed = _line(text, key, start, end)
        if listed < 0:
            return None
        try:
            head = write_item({"name": queue.name}, indent=dash)
        except Unusual:
            return None
        start = _line(text, head, listed + len(key), end)
        if start < 0:
            return None
        end = _block_end(text, start, dash, end)
    children = _line(text, " " * (dash + _STEP) + "queues:\n", start, end)
    return start, children if children >= 0 else end


# -- a whole document that differs from the active one inside one queue's own lines --------------


def put_localised(*, old_text: str, new_text: str, model: Config) -> Config | None:
    """The model of ``new_text`` when it differs from ``old_text`` (the active version's text,
    whose model is ``model``) only inside one queue's own lines (not the root's) and keeps
    every rule: that queue's lines are read and built alone, every other queue is ``model``'s.
    None when it has to be read whole (anything else differs, the lines are not laid out as
    ``write_yaml`` lays them out, they do not read alone, or a rule may be broken)."""
    start = _common_prefix(old_text, new_text)
    if start == len(old_text) == len(new_text):
        return model
    tail = _common_prefix(old_text[::-1], new_text[::-1])
    tail = min(tail, len(old_text) - start, len(new_text) - start)
    located = _queue_at(old_text, model, start)
    if located is None:
        return None
    index, found, (begin, end) = located
    queue = found[-1]
    if len(found) == 1 or len(old_text) - tail > end:
        return None
    dash = _ROOT_DASH + _STEP * (len(found) - 1)
    try:
        if old_text[begin:end] != write_item(node_of(queue), indent=dash):
            return None
    except Unusual:
        return None
    written = new_text[begin:end + len(new_text) - len(old_text)]
    raw = _item_alone(written, dash, levels_above=3 + 2 * (len(found) - 1))
    if raw is None or "queues" in raw:
        return None
    built, errors = build_queue(raw, parent_path=found[-2].path)
    if errors or built.path != queue.path:
        return None
    partition = model.partitions[index]
    new_partition = queue_replace(
        partition, queue.path, dataclasses.replace(built, children=queue.children)
    )
    changes = partition_changes(partition, new_partition)
    if changes is None or not locally_valid(partition, new_partition, changes, index=index):
        return None
    partitions = tuple(new_partition if p is partition else p for p in model.partitions)
    return dataclasses.replace(model, partitions=partitions)


def _common_prefix(first: str, second: str) -> int:
    """The length of the longest common prefix, by halving (each comparison at C speed)."""
    low, high = 0, min(len(first), len(second))
    while low < high:
        middle = (low + high + 1) // 2
        if first[low:middle] == second[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _queue_at(
    text: str, model: Config, offset: int
) -> tuple[int, list[Queue], tuple[int, int]] | None:
    """The partition index, the chain and the own lines of the deepest queue whose own lines
    or subtree hold ``offset``, in ``write_yaml``'s layout; None when it is not in a queue."""
    heads = []
    for index, partition in enumerate(model.partitions):
        at = _line(text, write_item({"name": partition.name}, indent=0), 0, len(text))
        if at < 0:
            return None
        heads.append((at, index))
    heads.sort()
    inside = [(at, index) for at, index in heads if at <= offset]
    if not inside:
        return None
    start, index = inside[-1]
    end = _block_end(text, start, 0, len(text))
    partition = model.partitions[index]
    listed = _line(text, " " * _ROOT_DASH + "queues:\n", start, end)
    if listed < 0:
        return None
    start = _line(text, write_item({"name": partition.root.name}, indent=_ROOT_DASH), listed, end)
    if start < 0 or offset < start:
        return None
    found = [partition.root]
    while True:
        dash = _ROOT_DASH + _STEP * (len(found) - 1)
        end = _block_end(text, start, dash, end)
        if offset >= end:
            return None
        key = " " * (dash + _STEP) + "queues:\n"
        children = _line(text, key, start, end)
        own_end = children if children >= 0 else end
        if offset < own_end:
            return index, found, (start, own_end)
        below = children + len(key)
        chosen = None
        for child in found[-1].children:
            at = _line(text, write_item({"name": child.name}, indent=dash + _STEP), below, end)
            if at < 0:
                return None
            if at > offset:
                break
            chosen, start, below = child, at, at + 1
        if chosen is None:
            return None
        found.append(chosen)


def _item_alone(written: str, dash: int, *, levels_above: int) -> dict[str, Any] | None:
    """The one list item ``written`` holds (its lines ``dash`` columns in), read alone as the
    loader reads it inside the whole document; None when it may read otherwise there."""
    if "&" in written or not written.endswith("\n"):
        return None
    prefix = " " * dash
    lines = written.splitlines(keepends=True)
    if not lines or not lines[0].startswith(prefix + "- "):
        return None
    if any(line.strip() and not line.startswith(prefix) for line in lines):
        return None
    alone = "".join(line[dash:] if line.strip() else line for line in lines)
    try:
        # Two levels short of the cap: near it, the whole document is the judge.
        raw = load_document(alone, max_depth=MAX_DEPTH - levels_above - 2)
    except DocumentError:
        return None
    if type(raw) is not list or len(raw) != 1 or type(raw[0]) is not dict:
        return None
    return raw[0]
