"""The queues a page's queue picker offers (the list pages' "Uses queue" suggestions, the "will
it fit?" form), bounded so a large tree does not ride along on every page: a datalist of 10,000
queue paths was 600 KB of each users list. Up to ``PICKER_ROWS`` queues every one is listed;
past that, whole levels from the root down as far as fit, and the queues the page is about, and
the page says that any other path may be typed (the filters and the form read typed paths)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from quotaweb.config.queue_tree import partition_queues
from quotaweb.engine.gateway import engines_get
from quotaweb.usage.limits import path_segments, walk_tree

PICKER_ROWS = 200


@dataclass(frozen=True, slots=True)
class QueuePicker:
    """``paths`` in tree order; ``complete`` when they are every queue of the partition."""

    paths: list[str]
    complete: bool
    total: int


def queue_picker_get(*, partition: str, around: Iterable[str] = ()) -> QueuePicker:
    paths = [queue.path for queue in engines_get().config(partition).queues()]
    if len(paths) <= PICKER_ROWS:
        # A small tree's picker lists the queues made on demand too (read with their usage,
        # which a large tree's picker spares itself).
        paths = [node["queuename"] for node in walk_tree(partition_queues(partition=partition))]
    if len(paths) <= PICKER_ROWS:
        return QueuePicker(sorted(paths, key=path_segments), complete=True, total=len(paths))
    per_depth: dict[int, int] = {}
    for path in paths:
        depth = path.count(".")
        per_depth[depth] = per_depth.get(depth, 0) + 1
    deepest, listed = -1, 0
    for depth in sorted(per_depth):
        if listed + per_depth[depth] > PICKER_ROWS:
            break
        deepest, listed = depth, listed + per_depth[depth]
    known = set(paths)
    chosen = {path for path in paths if path.count(".") <= deepest}
    chosen.update(path for path in around if path in known)
    return QueuePicker(sorted(chosen, key=path_segments), complete=False, total=len(paths))
