"""Writes of the configuration: every change becomes a validated, versioned, applied document.

One path for everything (a YAML upload, a rollback, one form edit, a staged draft of several):
build the candidate document, validate it with ``trackers``, then in one transaction move the
active pointer by compare-and-set, store the new ``ConfigVersion``, rewrite the rows of the
partitions that changed and, last, switch the engines. An engine failure rolls the transaction
back; a failed commit switches the engines back. Invalid: nothing is written or applied.

Idempotence: a candidate equal to the active configuration (same normalised model) creates no
version; the active version is answered, whatever base the caller started from, since the result
is exactly what was asked for. The engines themselves skip a version they already run.

Engines are switched only in a process that owns them (the server); a management command in
another process changes the database, and the server picks the active version up when it starts.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max

from quotaweb.config import edits
from quotaweb.config.documents import document_yaml, limit_values, partition_settings, queue_values
from quotaweb.config.edits import Edit
from quotaweb.config.models import ActiveConfig, ConfigVersion, LimitEntry, Partition, Queue
from quotaweb.config.selectors import (
    active_version,
    config_changes,
    config_document_from_rows,
    version_get,
)
from quotaweb.engine.gateway import engines_get, engines_loaded
from trackers import ConfigError, parse_config
from trackers.config.model import Config
from trackers.config.model import Partition as PartitionModel

ERR_EMPTY = "the configuration has no partitions: it needs at least one partition with queues"
ERR_CONFLICT = (
    "the configuration changed since version {base}: version {active} is active now; "
    "review what changed and start again from it"
)
ERR_VERSION_NOT_FOUND = "there is no configuration version {number}"
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


def config_validate(*, yaml_text: str | bytes) -> Config:
    """The normalised candidate model, or ``ConfigRejected`` with every problem."""
    try:
        config = parse_config(yaml_text)
    except ConfigError as exc:
        raise ConfigRejected(exc.errors) from None
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
        raise VersionNotFound(ERR_VERSION_NOT_FOUND.format(number=version)) from None
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
    candidate, yaml_text = config_candidate(edits=edits)
    return _config_store(
        candidate=candidate, yaml_text=yaml_text, author=author, comment=comment,
        base_version=base_version,
    )


def config_candidate(*, edits: Sequence[Edit]) -> tuple[Config, str]:
    """The active configuration with ``edits`` made: its validated model and its YAML (written
    like ``dump_config`` would, root included); nothing is stored."""
    document = config_document_from_rows()
    for edit in edits:
        edit(document)
    yaml_text = document_yaml(document)
    return config_validate(yaml_text=yaml_text), yaml_text


def _config_store(
    *, candidate: Config, yaml_text: str, author: Author, comment: str, base_version: int | None
) -> ConfigVersion:
    current_version = active_version()
    current = parse_config(current_version.yaml) if current_version is not None else None
    if current is not None and dataclasses.replace(current, checksum=None) == candidate:
        return current_version

    undo = None
    try:
        with transaction.atomic():
            version = _version_create(
                yaml_text=yaml_text, author=author, comment=comment, base_version=base_version
            )
            _rows_write(candidate=candidate, current=current)
            # Last, so that an engine that refuses the config rolls the database back with it.
            if engines_loaded():
                undo = engines_get().switch_config(candidate, version=version.number)
    except BaseException:
        # The commit itself failed after the engines switched: put them back.
        if undo is not None:
            undo()
        raise
    return version


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
        checksum=hashlib.sha256(yaml_text.encode("utf-8")).hexdigest(),
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
        new=parse_config(active.yaml) if active is not None else Config(),
    )
    return ConfigConflict(
        base_version=base_version,
        active_version=active.number if active is not None else None,
        changes=changes,
    )


# -- rows --------------------------------------------------------------------------------------


def _rows_write(*, candidate: Config, current: Config | None) -> None:
    """Make the rows equal to ``candidate``: partitions that did not change keep their rows."""
    unchanged = {
        partition.name
        for partition in candidate.partitions
        if current is not None and current.partition(partition.name) == partition
    }
    Partition.objects.exclude(name__in=unchanged).delete()
    kept = {row.name: row for row in Partition.objects.all()}
    for order, partition in enumerate(candidate.partitions):
        if partition.name in kept:
            row = kept[partition.name]
            if row.order != order:
                row.order = order
                row.save(update_fields=["order"])
        else:
            _partition_rows_create(partition=partition, order=order)


def _partition_rows_create(*, partition: PartitionModel, order: int) -> None:
    row = Partition.objects.create(
        name=partition.name,
        order=order,
        settings=partition_settings(partition),
        limits=[limit_values(limit) for limit in partition.limits],
    )
    # One level of the tree at a time, so every parent has its id before its children are made.
    level: list[tuple[Queue | None, Any, int]] = [(None, partition.root, 0)]
    while level:
        queues = Queue.objects.bulk_create(
            Queue(partition=row, parent=parent, path=queue.path, order=index, **queue_values(queue))
            for parent, queue, index in level
        )
        LimitEntry.objects.bulk_create(
            LimitEntry(queue=queue_row, order=index, **limit_values(limit))
            for queue_row, (_, queue, _) in zip(queues, level, strict=True)
            for index, limit in enumerate(queue.limits)
        )
        level = [
            (queue_row, child, index)
            for queue_row, (_, queue, _) in zip(queues, level, strict=True)
            for index, child in enumerate(queue.children)
        ]


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


def limit_move(
    *, partition: str, queue_path: str, index: int, to_index: int, author: Author,
    comment: str = "", base_version: int | None,
) -> ConfigVersion:
    return config_edit(
        edits=[edits.limit_move(
            partition=partition, queue_path=queue_path, index=index, to_index=to_index
        )],
        author=author, comment=comment, base_version=base_version,
    )
