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
from quotaweb.config import edits, roundtrip
from quotaweb.config.changes import config_changes
from quotaweb.config.documents import (
    config_document,
)
from quotaweb.config.edits import Edit
from quotaweb.config.localised import edit_localised, put_localised
from quotaweb.config.models import (
    ActiveConfig,
    ConfigVersion,
    Draft,
)
from quotaweb.config.roundtrip import document_read
from quotaweb.config.rows import rows_write
from quotaweb.config.selectors import (
    ERR_NO_VERSION,
    active_version,
    active_version_number,
    model_remember,
    text_key,
    version_get,
    version_model,
)
from quotaweb.engine.gateway import engines_get, engines_loaded
from trackers import ConfigError, parse_config, parse_document
from trackers.config import read_config, write_yaml
from trackers.config.localised import read_config_beside
from trackers.config.model import Config
from trackers.gcpause import long_lived_build

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
    (``changes.config_changes`` entries from the base to the active version)."""

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
    """The normalised candidate model, or ``ConfigRejected`` with every problem.

    A document that differs from the active version's text inside one queue's own lines is
    read there only (``localised.put_localised``); one that differs more (a PUT that changes a
    few values, a rollback to a near version) is read whole and judged by what differs
    (``trackers.config.localised.read_config_beside``): the same verdict and errors."""
    elastic = elastic_partitions()
    current = active_version()
    if current is not None and not elastic:
        active = version_model(current)
        if isinstance(yaml_text, str):
            found = put_localised(old_text=current.yaml, new_text=yaml_text, model=active)
            if found is not None:
                return found
        config, errors = read_config_beside(yaml_text, active=active)
        if errors or config is None:
            raise ConfigRejected(errors)
        return _usable(config)
    try:
        config = parse_config(yaml_text, elastic=elastic)
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


def config_edit_record(
    *, record: edits.Record, author: Author, comment: str = "", base_version: int | None
) -> ConfigVersion:
    """``config_edit`` of the one edit ``record`` describes, made where it lands
    (``quotaweb.config.localised``) when it can be: the same version, text and verdict."""
    with long_lived_build():
        current = active_version()
        found = _edit_localised(record, current)
        if found is None:
            candidate, yaml_text = config_candidate(edits=[edits.edit_from_record(record)])
        else:
            candidate, yaml_text = found
            model_remember(text_key(yaml_text), candidate)
        return _config_store(
            candidate=candidate, yaml_text=yaml_text, author=author, comment=comment,
            base_version=base_version, current_version=current if found else None,
        )


def _edit_localised(
    record: edits.Record, current: ConfigVersion | None,
    edited: tuple[Config, str] | None = None,
) -> tuple[Config, str] | None:
    """``localised.edit_localised`` of the active version, or of ``edited`` (the active version
    with edits made before this one)."""
    # A document small enough is edited round-trip (``config_state``), its comments kept.
    if current is None or len(current.yaml) <= roundtrip.MAX_ROUNDTRIP_BYTES:
        return None
    model, text = edited if edited is not None else (version_model(current), current.yaml)
    return edit_localised(text=text, model=model, record=record, elastic=elastic_partitions())


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
        model, yaml_text, errors = model_edited(
            model=version_model(current) if current is not None else None, edits=edits,
            elastic=elastic_partitions(),
        )
    if model is not None and not errors:
        try:
            model = _usable(model)
        except ConfigRejected as rejected:
            errors = rejected.errors
    return Candidate(
        yaml_text=yaml_text, model=model, errors=errors, roundtrip=editable is not None
    )


def model_edited(
    *, model: Config | None, edits: Sequence[Edit], elastic: tuple[str, ...]
) -> tuple[Config | None, str, list[dict[str, str]]]:
    """``edits`` made in the document of ``model`` (None: no configuration yet), written anew
    and judged whole: the model (None only when it cannot be built), the text and every
    problem. What ``localised.edit_localised`` must agree with."""
    document = config_document(model) if model is not None else {"partitions": []}
    for edit in edits:
        edit(document)
    try:
        edited, yaml_text = parse_document(document, elastic=elastic)
    except ConfigError:
        yaml_text = write_yaml(document)
        found, errors = read_config(yaml_text, elastic=elastic)
        return found, yaml_text, errors
    return edited, yaml_text, []


def _config_store(
    *, candidate: Config, yaml_text: str, author: Author, comment: str, base_version: int | None,
    also: Callable[[], Any] | None = None, current_version: ConfigVersion | None = None,
) -> ConfigVersion:
    """Store and apply ``candidate``; ``also`` runs in the same transaction (dropping a draft).
    ``current_version``: the active version when the caller has just read it.

    In the lock order of ``quotaweb.engine.gateway``: the transaction commits before any
    partition lock is taken, so allocations never wait on this write, nor this write on them.
    """
    if current_version is None:
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
            rows_write(candidate=candidate, current=current)
            if also is not None:
                also()
            _version_fence_close()
        return version.number

    started = time.perf_counter()
    if engines_loaded():
        gateway = engines_get()
        gateway.switch_config(candidate, commit=commit)
        assert version is not None  # commit() stored it or raised
        gateway.version_everywhere(version.number)
    else:
        commit()
    assert version is not None  # commit() stored it or raised
    model_remember(version.checksum, candidate)
    _page_cache_release()
    metrics.observe("quotaweb_config_apply_seconds", time.perf_counter() - started)
    return version


# The advisory lock of the configuration's fence (``quotaweb_version_fence``, leases.0002): its
# ledger writes take it shared, an apply exclusively.
VERSION_FENCE_LOCK = (0x7176, 1)


def _version_fence_close() -> None:
    """On PostgreSQL, the last step of an apply's transaction: wait for the ledger writes that
    read the version before (they commit first), and make those that come after wait for this
    commit and then read the new version. Taken last, so writes wait only for the commit."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", list(VERSION_FENCE_LOCK))


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


# -- one edit, one version ---------------------------------------------------------------------


def queue_create(
    *, partition: str, parent_path: str, values: Mapping[str, Any], position: int | None = None,
    author: Author, comment: str = "", base_version: int | None,
) -> ConfigVersion:
    return config_edit_record(
        record=edits.edit_record(
            "queue_create",
            partition=partition, parent_path=parent_path, values=values, position=position
        ),
        author=author, comment=comment, base_version=base_version,
    )


def queue_update(
    *, partition: str, queue_path: str, values: Mapping[str, Any],
    author: Author, comment: str = "", base_version: int | None,
) -> ConfigVersion:
    return config_edit_record(
        record=edits.edit_record(
            "queue_update",
            partition=partition, queue_path=queue_path, values=values
        ),
        author=author, comment=comment, base_version=base_version,
    )


def queue_delete(
    *, partition: str, queue_path: str, author: Author, comment: str = "",
    base_version: int | None,
) -> ConfigVersion:
    return config_edit_record(
        record=edits.edit_record(
            "queue_delete",
            partition=partition, queue_path=queue_path
        ),
        author=author, comment=comment, base_version=base_version,
    )


def limit_create(
    *, partition: str, queue_path: str, values: Mapping[str, Any], position: int | None = None,
    author: Author, comment: str = "", base_version: int | None,
) -> ConfigVersion:
    return config_edit_record(
        record=edits.edit_record(
            "limit_create",
            partition=partition, queue_path=queue_path, values=values, position=position
        ),
        author=author, comment=comment, base_version=base_version,
    )


def limit_update(
    *, partition: str, queue_path: str, index: int, values: Mapping[str, Any],
    author: Author, comment: str = "", base_version: int | None,
) -> ConfigVersion:
    return config_edit_record(
        record=edits.edit_record(
            "limit_update",
            partition=partition, queue_path=queue_path, index=index, values=values
        ),
        author=author, comment=comment, base_version=base_version,
    )


def limit_delete(
    *, partition: str, queue_path: str, index: int, author: Author, comment: str = "",
    base_version: int | None,
) -> ConfigVersion:
    return config_edit_record(
        record=edits.edit_record(
            "limit_delete",
            partition=partition, queue_path=queue_path, index=index
        ),
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
        found = _draft_localised(records, current) or config_state(
            edits=[edits.edit_from_record(record) for record in records]
        )
        while len(_CANDIDATES) >= _CANDIDATES_KEPT:
            del _CANDIDATES[next(iter(_CANDIDATES))]
        _CANDIDATES[key] = found
    return found


def _draft_localised(
    records: Sequence[edits.Record], current: ConfigVersion | None
) -> Candidate | None:
    """The draft's edits made one after the other where they land, each result valid; None
    when one of them is to be made the whole way (the whole draft then is)."""
    found = None
    for record in records:
        found = _edit_localised(record, current, found)
        if found is None:
            return None
    if found is None:
        return None
    model, yaml_text = found
    # Patched into the active text, so it diffs against it like a round-trip draft.
    return Candidate(yaml_text=yaml_text, model=model, errors=[], roundtrip=True)


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
