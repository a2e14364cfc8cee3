"""What changed between two configurations: the structured changes (partitions, queues and limit
entries added, removed or changed) and, with the texts, a unified diff of them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from quotaweb.config.documents import limit_values, partition_settings, queue_values
from quotaweb.config.text_diff import unified_diff
from trackers import parse_config
from trackers.config.model import Config
from trackers.config.model import Partition as PartitionModel
from trackers.config.model import Queue as QueueModel


@dataclass(frozen=True)
class ConfigDiff:
    """``unified``: a unified diff of the YAML texts; ``changes``: what changed, by queue/limit."""

    unified: str
    changes: list[dict[str, Any]]


def config_diff(
    *, old: str, new: str, old_label: str = "old", new_label: str = "new"
) -> ConfigDiff:
    """Compare two valid YAML documents (two versions' ``yaml``, or a version and a candidate)."""
    unified = "".join(unified_diff(old, new, fromfile=old_label, tofile=new_label))
    return ConfigDiff(
        unified=unified, changes=config_changes(old=parse_config(old), new=parse_config(new))
    )


def config_changes(*, old: Config, new: Config) -> list[dict[str, Any]]:
    """Partitions, queues and limit entries that were added, removed or changed.

    Each entry: ``{"kind": "partition"|"queue"|"limit", "change": "added"|"removed"|"changed",
    "partition", "queuePath" (queues, limits), "index" (limits), "old", "new"}`` where old/new
    are the values in the rows' spelling (``None`` for the side where it does not exist).
    """
    changes: list[dict[str, Any]] = []
    old_partitions = {p.name: p for p in old.partitions}
    new_partitions = {p.name: p for p in new.partitions}
    for name in _union(old_partitions, new_partitions):
        before, after = old_partitions.get(name), new_partitions.get(name)
        old_values = _partition_values(before) if before else None
        new_values = _partition_values(after) if after else None
        if old_values != new_values:
            changes.append(
                _change("partition", old_values, new_values, partition=name)
            )
        changes.extend(_queue_changes(name, before, after))
    return changes


def _union(first: dict, second: dict) -> list:
    # New order first, then what disappeared, so a diff reads like the new document.
    return list(second) + [key for key in first if key not in second]


def _change(kind: str, old: Any, new: Any, **where: Any) -> dict[str, Any]:
    change = "added" if old is None else "removed" if new is None else "changed"
    return {"kind": kind, "change": change, **where, "old": old, "new": new}


def _partition_values(partition: PartitionModel) -> dict[str, Any]:
    return {
        "settings": partition_settings(partition),
        "limits": [limit_values(limit) for limit in partition.limits],
    }


def _queue_changes(
    partition: str, old: PartitionModel | None, new: PartitionModel | None
) -> Iterable[dict[str, Any]]:
    for path, before, after in _queue_pairs(old, new):
        old_values = queue_values(before) if before else None
        new_values = queue_values(after) if after else None
        if old_values != new_values:
            yield _change("queue", old_values, new_values, partition=partition, queuePath=path)
        old_limits = before.limits if before else ()
        new_limits = after.limits if after else ()
        for index in range(max(len(old_limits), len(new_limits))):
            old_limit = limit_values(old_limits[index]) if index < len(old_limits) else None
            new_limit = limit_values(new_limits[index]) if index < len(new_limits) else None
            if old_limit != new_limit:
                yield _change(
                    "limit", old_limit, new_limit, partition=partition, queuePath=path,
                    index=index,
                )


def _queue_pairs(
    old: PartitionModel | None, new: PartitionModel | None
) -> Iterator[tuple[str, QueueModel | None, QueueModel | None]]:
    """Each queue's old and new self by path, the new document's order first, then the queues
    that are gone in the old one's. A subtree both share (the very objects, as an edit made where
    it lands leaves them) holds no change and is not walked: at 10,000 queues, walking them all
    was most of a one-change draft's review."""
    gone: set[str] = set()
    stack: list[tuple[QueueModel | None, QueueModel]] = (
        [(old.root if old else None, new.root)] if new else []
    )
    if old is not None and new is None:
        gone.add(old.root.path)
    while stack:
        before, after = stack.pop()
        if before is after:
            continue
        yield after.path, before, after
        was = {child.path: child for child in before.children} if before else {}
        stack.extend((was.pop(child.path, None), child) for child in reversed(after.children))
        gone.update(was)
    if gone:
        # Below a queue gone, every queue is gone too.
        for queue in old.queues() if old else ():
            if queue.path in gone or queue.path.rpartition(".")[0] in gone:
                gone.add(queue.path)
                yield queue.path, queue, None
