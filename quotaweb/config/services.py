"""Writes of the configuration: every change becomes a validated, versioned, applied document.

One path for everything (a YAML upload, a rollback, one form edit, a staged draft of several):
build the candidate document, validate it with ``trackers``, compile the engines' new limits,
then in one transaction move the active pointer by compare-and-set, store the new
``ConfigVersion`` and rewrite the rows of the partitions that changed, and once that has
committed, install the compiled limits in the engines (which cannot fail). A failure before the
commit changes nothing anywhere. Invalid: nothing is written or applied. Why in this order: the
lock order in ``quotaweb.engine.gateway``.

Idempotence: a candidate equal to the active configuration (same normalised model) creates no
version; the active version is answered, whatever base the caller started from, since the result
is exactly what was asked for. The engines themselves skip a version they already run.

Engines are switched only in a process that owns them (the server); a management command in
another process changes the database, and the server picks the active version up when it starts.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import Max

from quotaweb import metrics
from quotaweb.config import edits
from quotaweb.config.documents import (
    config_document,
    limit_values,
    partition_settings,
    queue_values,
)
from quotaweb.config.edits import Edit
from quotaweb.config.models import (
    ActiveConfig,
    ConfigVersion,
    Draft,
    LimitEntry,
    Partition,
    Queue,
)
from quotaweb.config.roundtrip import document_read
from quotaweb.config.selectors import (
    ERR_NO_VERSION,
    active_version,
    active_version_number,
    config_changes,
    model_remember,
    text_key,
    version_get,
    version_model,
)
from quotaweb.engine.gateway import engines_get, engines_loaded
from trackers import ConfigError, parse_config, parse_document
from trackers.config import read_config, write_yaml
from trackers.config.model import Config
from trackers.config.model import Partition as PartitionModel
from trackers.config.model import Queue as QueueModel
from trackers.gcpause import long_lived_build, paused_gc

ERR_EMPTY = "the configuration has no partitions: it needs at least one partition with queues"
ERR_CONFLICT = (
    "the configuration changed since version {base}: version {active} is active now; "
    "review what changed and start again from it"
)
ROLLBACK_COMMENT = "rollback to version {number}"

Author = AbstractBaseUser | None


class ConfigRejected(Exception):
    """The candidate is not a valid configuration; ``errors`` lists every problem found as
    ``{code, path, field, message}`` (the ``trackers`` shape), and nothing was written."""

    def __init__(self, errors: list[dict[str, str]]) -> None:
        super().__init__("; ".join(error["message"] for error in errors))
        self.errors = errors


class ConfigConflict(Exception):
    """Another change was applied after ``base_version``; ``changes`` says what it changed
    (``selectors.config_changes`` entries from the base to the active version)."""

    def __init__(
        self, *, base_version: int | None, active_version: int | None, changes: list[dict]
    ) -> None:
        super().__init__(ERR_CONFLICT.format(base=base_version, active=active_version))
        self.base_version = base_version
        self.active_version = active_version
        self.changes = changes


class VersionNotFound(LookupError):
    pass


# -- validation --------------------------------------------------------------------------------


def elastic_partitions() -> tuple[str, ...]:
    """The partitions whose elastic quota is on: a configuration must keep the elastic rules
    there too. (Elastic quota lives with the engines; without them it is on nowhere.)"""
    if not engines_loaded():
        return ()
    gateway = engines_get()
    return tuple(name for name in gateway.partitions() if gateway.elastic_enabled(name))


def config_validate(*, yaml_text: str | bytes) -> Config:
    """The normalised candidate model, or ``ConfigRejected`` with every problem."""
    try:
        config = parse_config(yaml_text, elastic=elastic_partitions())
    except ConfigError as exc:
        raise ConfigRejected(exc.errors) from None
    return _usable(config)


def _usable(config: Config) -> Config:
    if not config.partitions:
        raise ConfigRejected(
            [{"code": "EMPTY", "path": "", "field": "partitions", "message": ERR_EMPTY}]
        )
    # The document's own ``checksum`` key is bookkeeping of the config map, not configuration.
    return dataclasses.replace(config, checksum=None)


# -- the one write path ------------------------------------------------------------------------


def config_apply(
    *, yaml_text: str, author: Author, comment: str = "", base_version: int | None
) -> ConfigVersion:
    """Validate a whole document and make it the active version (stored as written)."""
    with long_lived_build():
        candidate = config_validate(yaml_text=yaml_text)
        return _config_store(
            candidate=candidate, yaml_text=yaml_text, author=author, comment=comment,
            base_version=base_version,
        )


def config_rollback(
    *, version: int, author: Author, comment: str = "", base_version: int | None
) -> ConfigVersion:
    """A new version whose content is that of ``version``, validated and applied like any change."""
    try:
        old = version_get(number=version)
    except ConfigVersion.DoesNotExist:
        raise VersionNotFound(ERR_NO_VERSION.format(number=version)) from None
    return config_apply(
        yaml_text=old.yaml, author=author,
        comment=comment or ROLLBACK_COMMENT.format(number=version), base_version=base_version,
    )


def config_edit(
    *, edits: Sequence[Edit], author: Author, comment: str = "", base_version: int | None
) -> ConfigVersion:
    """Apply edits (``quotaweb.config.edits``) to the active configuration as ONE new version.

    A staged draft is several edits; a form is one. ``edits.NotFound``/``edits.EditRefused`` when
    an edit cannot be made, ``ConfigRejected`` when the result is not valid.
    """
    with long_lived_build():
        candidate, yaml_text = config_candidate(edits=edits)
        return _config_store(
            candidate=candidate, yaml_text=yaml_text, author=author, comment=comment,
            base_version=base_version,
        )


def config_candidate(*, edits: Sequence[Edit]) -> tuple[Config, str]:
    """The active configuration with ``edits`` made: its validated model and its YAML; nothing
    is stored. ``ConfigRejected`` with every problem when it is not valid."""
    state = config_state(edits=edits)
    if state.errors or state.model is None:
        raise ConfigRejected(state.errors)
    model_remember(text_key(state.yaml_text), state.model)
    return state.model, state.yaml_text


@dataclasses.dataclass(frozen=True)
class Candidate:
    """A configuration with edits made, valid or not: its YAML, its model (None only when the
    document cannot be built at all) and every problem it has (``[]`` when valid)."""

    yaml_text: str
    model: Config | None
    errors: list[dict[str, str]]
    # Made in the admin's own document (so its YAML diffs against the active version's text).
    roundtrip: bool


def config_state(*, edits: Sequence[Edit]) -> Candidate:
    """The active configuration with ``edits`` made, judged but never refused: a draft may pass
    through invalid states. ``edits.NotFound``/``edits.EditRefused`` when an edit cannot be made.

    The edits are made in the admin's own document, read round-trip, so the YAML differs from
    the active version only where they change something. A document edits cannot address as
    written (an implicit root, anchors, a large generated one) is made afresh from the model,
    ``dump_config``'s way.
    """
    current = active_version()
    editable = document_read(current.yaml) if current is not None else None
    if editable is not None:
        for edit in edits:
            edit(editable.document)
        yaml_text = editable.text()
        model, errors = read_config(yaml_text, elastic=elastic_partitions())
    else:
        # The rows hold exactly the active version, so its model gives the same document.
        document = (
            config_document(version_model(current)) if current is not None
            else {"partitions": []}
        )
        for edit in edits:
            edit(document)
        try:
            model, yaml_text = parse_document(document, elastic=elastic_partitions())
            errors = []
        except ConfigError:
            yaml_text = write_yaml(document)
            model, errors = read_config(yaml_text, elastic=elastic_partitions())
    if model is not None and not errors:
        try:
            model = _usable(model)
        except ConfigRejected as rejected:
            errors = rejected.errors
    return Candidate(
        yaml_text=yaml_text, model=model, errors=errors, roundtrip=editable is not None
    )


def _config_store(
    *, candidate: Config, yaml_text: str, author: Author, comment: str, base_version: int | None,
    also: Callable[[], Any] | None = None,
) -> ConfigVersion:
    """Store and apply ``candidate``; ``also`` runs in the same transaction (dropping a draft).

    In the lock order of ``quotaweb.engine.gateway``: the transaction commits before any
    partition lock is taken, so allocations never wait on this write, nor this write on them.
    """
    current_version = active_version()
    current = version_model(current_version) if current_version is not None else None
    if current is not None and current == candidate:
        if also is not None:
            also()
        return current_version

    version: ConfigVersion | None = None

    def commit() -> int:
        nonlocal version
        with transaction.atomic():
            version = _version_create(
                yaml_text=yaml_text, author=author, comment=comment, base_version=base_version
            )
            _rows_write(candidate=candidate, current=current)
            if also is not None:
                also()
        return version.number

    started = time.perf_counter()
    if engines_loaded():
        engines_get().switch_config(candidate, commit=commit)
    else:
        commit()
    assert version is not None  # commit() stored it or raised
    model_remember(version.checksum, candidate)
    _page_cache_release()
    metrics.observe("quotaweb_config_apply_seconds", time.perf_counter() - started)
    return version


def _page_cache_release() -> None:
    """On SQLite, let this connection's page cache go once a version is stored. The cache (64 MiB
    a connection, for the ledger's index) kept the pages of every version text it wrote and read,
    6 MB a version at 10,111 queues: the server's memory rose by 3 MB an edit until each
    connection's cache was full. The ledger's pages come back from the operating system's cache
    on their next use."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA shrink_memory")


def _version_create(
    *, yaml_text: str, author: Author, comment: str, base_version: int | None
) -> ConfigVersion:
    ActiveConfig.objects.get_or_create(pk=1)
    number = (ConfigVersion.objects.aggregate(last=Max("number"))["last"] or 0) + 1
    # Compare-and-set first: a concurrent apply from the same base waits on this row and then
    # finds it moved (no row updated), before either writes anything else.
    moved = ActiveConfig.objects.filter(pk=1, version_id=base_version).update(version_id=number)
    if moved != 1:
        raise _conflict(base_version)
    return ConfigVersion.objects.create(
        number=number,
        yaml=yaml_text,
        checksum=text_key(yaml_text),
        author=author,
        comment=comment,
        based_on_id=base_version,
    )


def _conflict(base_version: int | None) -> ConfigConflict:
    active = active_version()
    base = (
        ConfigVersion.objects.filter(number=base_version).values_list("yaml", flat=True).first()
        if base_version is not None
        else None
    )
    changes = config_changes(
        old=parse_config(base) if base is not None else Config(),
        new=version_model(active) if active is not None else Config(),
    )
    return ConfigConflict(
        base_version=base_version,
        active_version=active.number if active is not None else None,
        changes=changes,
    )


# -- rows --------------------------------------------------------------------------------------


_BATCH = 500
# Orders out of the way while siblings move (unique per parent), before their final values.
_ORDER_PARKED = 1_000_000_000
_QUEUE_UPDATE_FIELDS = [
    "order", "has_resources", "guaranteed", "max", "max_applications", "properties", "admin_acl",
    "submit_acl", "is_parent", "child_template",
]
_LIMIT_UPDATE_FIELDS = ["description", "users", "groups", "max_resources", "max_applications"]


def _rows_write(*, candidate: Config, current: Config | None) -> None:
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


def _own(queue: QueueModel) -> tuple:
    return (
        queue.name, queue.parent, queue.resources, queue.max_applications, queue.properties,
        queue.admin_acl, queue.submit_acl, queue.child_template,
    )


def _queue_rows_update(*, row: Partition, old: QueueModel, new: QueueModel) -> None:
    old_queues, new_queues = _placed(old), _placed(new)
    ids = dict(Queue.objects.filter(partition=row).values_list("path", "id"))

    removed = [ids[path] for path in old_queues if path not in new_queues]
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
        if _own(was) != _own(queue) or was_index != index:
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


# -- one edit, one version ---------------------------------------------------------------------


def queue_create(
    *, partition: str, parent_path: str, values: Mapping[str, Any], position: int | None = None,
    author: Author, comment: str = "", base_version: int | None,
) -> ConfigVersion:
    return config_edit(
        edits=[edits.queue_create(
            partition=partition, parent_path=parent_path, values=values, position=position
        )],
        author=author, comment=comment, base_version=base_version,
    )


def queue_update(
    *, partition: str, queue_path: str, values: Mapping[str, Any],
    author: Author, comment: str = "", base_version: int | None,
) -> ConfigVersion:
    return config_edit(
        edits=[edits.queue_update(partition=partition, queue_path=queue_path, values=values)],
        author=author, comment=comment, base_version=base_version,
    )


def queue_delete(
    *, partition: str, queue_path: str, author: Author, comment: str = "",
    base_version: int | None,
) -> ConfigVersion:
    return config_edit(
        edits=[edits.queue_delete(partition=partition, queue_path=queue_path)],
        author=author, comment=comment, base_version=base_version,
    )


def limit_create(
    *, partition: str, queue_path: str, values: Mapping[str, Any], position: int | None = None,
    author: Author, comment: str = "", base_version: int | None,
) -> ConfigVersion:
    return config_edit(
        edits=[edits.limit_create(
            partition=partition, queue_path=queue_path, values=values, position=position
        )],
        author=author, comment=comment, base_version=base_version,
    )


def limit_update(
    *, partition: str, queue_path: str, index: int, values: Mapping[str, Any],
    author: Author, comment: str = "", base_version: int | None,
) -> ConfigVersion:
    return config_edit(
        edits=[edits.limit_update(
            partition=partition, queue_path=queue_path, index=index, values=values
        )],
        author=author, comment=comment, base_version=base_version,
    )


def limit_delete(
    *, partition: str, queue_path: str, index: int, author: Author, comment: str = "",
    base_version: int | None,
) -> ConfigVersion:
    return config_edit(
        edits=[edits.limit_delete(partition=partition, queue_path=queue_path, index=index)],
        author=author, comment=comment, base_version=base_version,
    )


# -- drafts: several edits staged, applied as one version ----------------------------------------

ERR_DRAFT_EMPTY = "there is nothing staged to apply"
ERR_UNSTAGE_BREAKS = (
    "removing change {position} would leave the later changes unusable ({reason}); remove "
    "those first"
)
ERR_NO_CHANGE = "no staged change at position {position}"

# (active checksum, records) -> the draft's candidate: a page of a draft's queue would otherwise
# replay and judge the whole draft again on every request.
_CANDIDATES: dict[tuple[str, str, tuple[str, ...]], Candidate] = {}
_CANDIDATES_KEPT = 8


def draft_state(*, records: Sequence[edits.Record]) -> Candidate:
    """``config_state`` for a draft's records, remembered per active version and records."""
    current = active_version()
    key = (
        current.checksum if current else "", json.dumps(list(records), sort_keys=True),
        elastic_partitions(),
    )
    found = _CANDIDATES.get(key)
    if found is None:
        found = config_state(edits=[edits.edit_from_record(record) for record in records])
        while len(_CANDIDATES) >= _CANDIDATES_KEPT:
            del _CANDIDATES[next(iter(_CANDIDATES))]
        _CANDIDATES[key] = found
    return found


def draft_candidate(*, records: Sequence[edits.Record]) -> tuple[Config, str]:
    """The draft's valid model and YAML; ``ConfigRejected`` while it has problems."""
    state = draft_state(records=records)
    if state.errors or state.model is None:
        raise ConfigRejected(state.errors)
    model_remember(text_key(state.yaml_text), state.model)
    return state.model, state.yaml_text


def draft_stage(*, author: AbstractBaseUser, record: edits.Record) -> Candidate:
    """Add one edit to the author's draft, even when the draft is invalid with it (a parent's
    limit may be tightened before its children are): the draft's candidate with its problems
    is answered, and the draft is applied only once it has none.

    ``edits.NotFound`` or ``edits.EditRefused`` (an edit no document can express): the draft
    is left as it was.
    """
    with transaction.atomic():
        draft = Draft.objects.select_for_update().filter(author=author).first()
        records = [*(draft.edits if draft else []), record]
        state = draft_state(records=records)
        if draft is None:
            Draft.objects.create(
                author=author, base_version=active_version_number(), edits=records
            )
        else:
            draft.edits = records
            draft.save(update_fields=["edits", "updated"])
        return state


def draft_check(*, author: AbstractBaseUser, record: edits.Record) -> None:
    """What the draft with ``record`` would be, without staging it (checks while the admin
    types): ``ConfigRejected`` with its problems when it would have any."""
    records = Draft.objects.filter(author=author).values_list("edits", flat=True).first() or []
    draft_candidate(records=[*records, record])


def draft_unstage(*, author: AbstractBaseUser, position: int) -> Draft | None:
    """Remove staged change ``position`` (1-based); the draft goes when it is empty.
    ``edits.EditRefused`` when the changes after it cannot be made without it (nothing is
    removed then); a draft left invalid is kept, like any draft in progress."""
    with transaction.atomic():
        draft = Draft.objects.select_for_update().filter(author=author).first()
        if draft is None or not 1 <= position <= len(draft.edits):
            raise edits.NotFound(ERR_NO_CHANGE.format(position=position))
        records = [r for index, r in enumerate(draft.edits, start=1) if index != position]
        if not records:
            draft.delete()
            return None
        try:
            draft_state(records=records)
        except (edits.NotFound, edits.EditRefused) as error:
            raise edits.EditRefused(
                ERR_UNSTAGE_BREAKS.format(position=position, reason=error)
            ) from None
        draft.edits = records
        draft.save(update_fields=["edits", "updated"])
        return draft


def draft_discard(*, author: AbstractBaseUser) -> None:
    Draft.objects.filter(author=author).delete()


def draft_rebase(*, author: AbstractBaseUser) -> Draft:
    """Start the draft again from the active version (after a conflict): its edits are replayed
    on it and must still be possible (``edits.NotFound``/``edits.EditRefused`` otherwise, and
    the draft is unchanged); problems they leave are shown like any draft's."""
    with transaction.atomic():
        draft = Draft.objects.select_for_update().get(author=author)
        draft_state(records=draft.edits)
        draft.base_version = active_version_number()
        draft.save(update_fields=["base_version", "updated"])
        return draft


def draft_apply(*, author: AbstractBaseUser, comment: str = "") -> ConfigVersion:
    """Apply the author's draft as one new version and drop the draft.

    ``ConfigConflict`` when another version was applied since the draft's base (the draft is
    kept, to be rebased); ``ConfigRejected`` when it is no longer valid (kept too).
    """
    draft = Draft.objects.filter(author=author).first()
    if draft is None or not draft.edits:
        raise edits.NotFound(ERR_DRAFT_EMPTY)
    with long_lived_build():
        candidate, yaml_text = draft_candidate(records=draft.edits)
        return _config_store(
            candidate=candidate, yaml_text=yaml_text, author=author, comment=comment,
            base_version=draft.base_version,
            also=lambda: Draft.objects.filter(pk=draft.pk).delete(),
        )
