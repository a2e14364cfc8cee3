"""The editable rows of the configuration (partitions, queues and limit entries) kept equal to
the active version: written in the version's own transaction, touching only the rows that
differ (an edit of one value writes one row), so that the pages read rows, not the document."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from quotaweb.config.documents import limit_values, partition_settings, queue_values
from quotaweb.config.models import LimitEntry, Partition, Queue
from trackers.config.localised import Locator, own_settings, queue_changes
from trackers.config.model import Config
from trackers.config.model import Partition as PartitionModel
from trackers.config.model import Queue as QueueModel
from trackers.gcpause import paused_gc

_BATCH = 500
# Orders out of the way while siblings move (unique per parent), before their final values.
_ORDER_PARKED = 1_000_000_000
_QUEUE_UPDATE_FIELDS = [
    "order", "has_resources", "guaranteed", "max", "max_applications", "properties", "admin_acl",
    "submit_acl", "is_parent", "child_template",
]
_LIMIT_UPDATE_FIELDS = ["description", "users", "groups", "max_resources", "max_applications"]


def rows_write(*, candidate: Config, current: Config | None) -> None:
    """Make the rows equal to ``candidate``, writing only the rows that differ from ``current``
    (the model the rows hold now): changed queues and limit entries are updated, new ones created,
    removed ones deleted; a partition is matched by name, a queue by path, an entry by position."""
    before = {partition.name: partition for partition in current.partitions} if current else {}
    wanted = [partition.name for partition in candidate.partitions]
    if current is None:
        Partition.objects.all().delete()
    else:
        Partition.objects.exclude(name__in=wanted).delete()
    rows = {row.name: row for row in Partition.objects.all()}
    for order, partition in enumerate(candidate.partitions):
        row, old = rows.get(partition.name), before.get(partition.name)
        if row is not None and old is None:
            row.delete()
            row = None
        if row is None:
            _partition_rows_create(partition=partition, order=order)
            continue
        if old == partition and row.order == order:
            continue
        _partition_row_update(row=row, old=old, new=partition, order=order)


def _partition_settings_key(partition: PartitionModel) -> tuple:
    return (
        partition.placement_rules, partition.preemption, partition.node_sort_policy,
        partition.user_group_resolver,
    )


def _partition_row_update(
    *, row: Partition, old: PartitionModel, new: PartitionModel, order: int
) -> None:
    fields = []
    if row.order != order:
        row.order, fields = order, [*fields, "order"]
    if _partition_settings_key(old) != _partition_settings_key(new):
        row.settings, fields = partition_settings(new), [*fields, "settings"]
    if old.limits != new.limits:
        row.limits = [limit_values(limit) for limit in new.limits]
        fields.append("limits")
    if fields:
        row.save(update_fields=fields)
    if old.root != new.root:
        _queue_rows_update(row=row, old=old.root, new=new.root)


def _placed(root: QueueModel) -> dict[str, tuple[QueueModel, int]]:
    """Every queue of a tree by path, with its position among its siblings."""
    out = {root.path: (root, 0)}
    for queue in root.walk():
        for index, child in enumerate(queue.children):
            out[child.path] = (child, index)
    return out


def _placed_at(
    root: QueueModel, paths: set[str], below: frozenset[str], beside: frozenset[str]
) -> dict[str, tuple[QueueModel, int]]:
    """``_placed`` of the queues at ``paths``, of every queue in the subtrees at ``below`` and
    of every child of the queues at ``beside`` (those of them that are in this tree)."""
    out: dict[str, tuple[QueueModel, int]] = {}
    locator = Locator(root)
    positions: dict[str, dict[str, int]] = {}
    for path in paths | below:
        found = locator.chain(path)
        if found is None:
            continue
        queue = found[-1]
        index = 0
        if len(found) > 1:
            parent = found[-2]
            if parent.path not in positions:
                positions[parent.path] = {c.path: n for n, c in enumerate(parent.children)}
            index = positions[parent.path][path]
        if path in below:
            out.update(_placed(queue))
        out[path] = (queue, index)
    for path in beside:
        found = locator.chain(path)
        if found is not None:
            for index, child in enumerate(found[-1].children):
                out[child.path] = (child, index)
    return out


def _queue_rows_update(*, row: Partition, old: QueueModel, new: QueueModel) -> None:
    # Only the paths the change touches are read and compared: a one-value edit of a
    # 10,000-queue partition reads one queue's id, not every queue's.
    changes = queue_changes(old, new)
    touched = set(changes.own | changes.limits)
    gone = set(_placed_at(old, set(), changes.removed, frozenset()))
    old_queues = _placed_at(old, touched, changes.removed, changes.parents)
    new_queues = _placed_at(new, touched, changes.added, changes.parents)
    parents = {path.rpartition(".")[0] for path in changes.added}
    wanted = [*{*old_queues, *parents}]
    ids: dict[str, int] = {}
    for start in range(0, len(wanted), _BATCH):
        ids.update(
            Queue.objects.filter(partition=row, path__in=wanted[start:start + _BATCH])
            .values_list("path", "id")
        )

    removed = [ids[path] for path in gone]
    for start in range(0, len(removed), _BATCH):
        Queue.objects.filter(pk__in=removed[start:start + _BATCH]).delete()

    changed: list[Queue] = []
    moved: list[Queue] = []
    limits_changed: list[tuple[int, tuple, tuple]] = []
    created: list[tuple[str, QueueModel, int]] = []
    for path, (queue, index) in new_queues.items():
        found = old_queues.get(path)
        if found is None:
            created.append((path, queue, index))
            continue
        was, was_index = found
        if was is queue:
            continue
        if own_settings(was) != own_settings(queue) or was_index != index:
            values = queue_values(queue)
            del values["name"]
            update = Queue(pk=ids[path], order=index, **values)
            changed.append(update)
            if was_index != index:
                moved.append(Queue(pk=ids[path], order=_ORDER_PARKED + len(moved)))
        if was.limits != queue.limits:
            limits_changed.append((ids[path], was.limits, queue.limits))

    if moved:
        Queue.objects.bulk_update(moved, ["order"], batch_size=_BATCH)
    if changed:
        Queue.objects.bulk_update(changed, _QUEUE_UPDATE_FIELDS, batch_size=_BATCH)
    _limit_rows_update(limits_changed)
    _queue_rows_create(row=row, created=created, ids=ids)


def _limit_rows_update(changes: list[tuple[int, tuple, tuple]]) -> None:
    """Entries compared by position: changed ones updated in place, the rest created/deleted."""
    if not changes:
        return
    rows = {
        (queue_id, order): pk
        for pk, queue_id, order in LimitEntry.objects.filter(
            queue_id__in=[queue_id for queue_id, _, _ in changes]
        ).values_list("pk", "queue_id", "order")
    }
    updates, creates, deletes = [], [], []
    for queue_id, old, new in changes:
        for index in range(max(len(old), len(new))):
            if index >= len(new):
                deletes.append(rows[(queue_id, index)])
            elif index >= len(old):
                creates.append(
                    LimitEntry(queue_id=queue_id, order=index, **limit_values(new[index]))
                )
            elif old[index] != new[index]:
                updates.append(
                    LimitEntry(pk=rows[(queue_id, index)], order=index, **limit_values(new[index]))
                )
    for start in range(0, len(deletes), _BATCH):
        LimitEntry.objects.filter(pk__in=deletes[start:start + _BATCH]).delete()
    if updates:
        LimitEntry.objects.bulk_update(updates, _LIMIT_UPDATE_FIELDS, batch_size=_BATCH)
    if creates:
        LimitEntry.objects.bulk_create(creates, batch_size=_BATCH)


def _queue_rows_create(
    *, row: Partition, created: list[tuple[str, QueueModel, int]], ids: dict[str, int]
) -> None:
    """New queues, shallowest first, so that every parent has its id before its children.

    One ``executemany`` of a plain INSERT per level and table rather than ``bulk_create``: for a
    whole 10,000-queue partition, a model instance per row and the SQL compiler's preparation of
    each of its values took two thirds of an import. Only JSON values need their field's
    preparation; the others already are the int, str, bool or None that ``bulk_create`` sends.
    A level's ids are read back by path (a unique index), for the next level and the entries.
    """
    connection = transaction.get_connection()
    quote = connection.ops.quote_name

    def rows_insert(model: type[Queue] | type[LimitEntry], rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        fields = [model._meta.get_field(name) for name in rows[0]]
        adapted = [
            (at, field) for at, field in enumerate(fields)
            if field.get_internal_type() == "JSONField"
        ]
        # Most JSON values repeat (``[]``, ``["*"]``, ``{}``, the caps of one depth) and equal
        # reprs of JSON data are equal values, so each distinct value of a column is encoded once.
        encoded: list[dict[str, Any]] = [{} for _ in adapted]
        params: list[list[Any]] = []
        for values in rows:
            row_params = list(values.values())
            for (at, field), seen in zip(adapted, encoded, strict=True):
                value = row_params[at]
                key = repr(value)
                if key not in seen:
                    seen[key] = field.get_db_prep_save(value, connection)
                row_params[at] = seen[key]
            params.append(row_params)
        sql = (
            f"INSERT INTO {quote(model._meta.db_table)} "
            f"({', '.join(quote(field.column) for field in fields)}) "
            f"VALUES ({', '.join(['%s'] * len(fields))})"
        )
        with connection.cursor() as cursor:
            cursor.executemany(sql, params)

    by_depth: dict[int, list[tuple[str, QueueModel, int]]] = {}
    for item in created:
        by_depth.setdefault(item[0].count("."), []).append(item)
    # Every row's dict and parameters stay alive until its level is written; see trackers.gcpause.
    with paused_gc():
        for depth in sorted(by_depth):
            level = by_depth[depth]
            # A new partition's root (a path without a dot) is the one queue without a parent.
            rows_insert(Queue, [
                {
                    "partition_id": row.pk,
                    "parent_id": ids[parent] if (parent := path.rpartition(".")[0]) else None,
                    "path": path,
                    "order": index,
                    **queue_values(queue),
                }
                for path, queue, index in level
            ])
            paths = [path for path, _, _ in level]
            for start in range(0, len(paths), _BATCH):
                ids.update(
                    Queue.objects.filter(partition=row, path__in=paths[start:start + _BATCH])
                    .values_list("path", "id")
                )
            rows_insert(LimitEntry, [
                {"queue_id": ids[path], "order": index, **limit_values(limit)}
                for path, queue, _ in level
                for index, limit in enumerate(queue.limits)
            ])


def _partition_rows_create(*, partition: PartitionModel, order: int) -> None:
    row = Partition.objects.create(
        name=partition.name,
        order=order,
        settings=partition_settings(partition),
        limits=[limit_values(limit) for limit in partition.limits],
    )
    created = [(path, queue, index) for path, (queue, index) in _placed(partition.root).items()]
    _queue_rows_create(row=row, created=created, ids={})
