"""Start-up work: create this process's engines from the active configuration version."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from quotaweb.allocations.services import ledger_restore
from quotaweb.config.selectors import active_version
from quotaweb.config.services import ConfigConflict, config_apply
from quotaweb.elastic.services import elastic_restore
from quotaweb.engine.gateway import Gateway, engines_load
from quotaweb.quotatrees.services import trees_restore

INITIAL_IMPORT_COMMENT = "initial import"


def engines_start(*, config_path: Path | str | None = None, leased: bool = False) -> Gateway:
    """Create the engines from the active version (with its number), then put the ledger's live
    allocations and the stored elastic quota settings back into them; rebuild the quota trees.

    With no version stored yet, the YAML at ``config_path`` (default ``settings.QUOTAWEB_CONFIG``)
    is imported first as version 1 (no author, comment "initial import"); later starts ignore the
    file, since the database is where changes live. Raises ``config.services.ConfigRejected`` when
    that file does not validate and ``OSError`` when it cannot be read; nothing is stored or
    replaced in either case.

    With ``leased`` (peers on PostgreSQL), only the configuration is loaded: each partition,
    and the quota trees, are rebuilt by the peer that takes their lease (``core.peers``).
    """
    version = active_version()
    if version is None:
        path = Path(config_path) if config_path is not None else Path(settings.QUOTAWEB_CONFIG)
        try:
            version = config_apply(
                yaml_text=path.read_text(encoding="utf-8"), author=None,
                comment=INITIAL_IMPORT_COMMENT, base_version=None,
            )
        except ConfigConflict:
            # Another peer starting at the same moment imported its file first: that version
            # is the one every peer loads.
            version = active_version()
            if version is None:
                raise
    gateway = engines_load(yaml_text=version.yaml, version=version.number, leased=leased)
    if leased:
        return gateway
    ledger_restore()
    elastic_restore()
    trees_restore()
    return gateway
