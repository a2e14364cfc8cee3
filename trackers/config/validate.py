"""The validation pipeline: every rule of spec 1.4, every error, in the spec's order."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from trackers.config import partition_rules, queue_rules, resource_rules, tree_rules
from trackers.config.build import Locations, build_config, default_locations
from trackers.config.loader import MAX_BYTES, DocumentError, load_document
from trackers.config.model import Config
from trackers.config.report import Report
from trackers.config.scope import Scope
from trackers.config.writer import Unusual, loaded_form, write_yaml
from trackers.elastic.checks import check_elastic
from trackers.errors import ConfigError
from trackers.gcpause import paused_gc


def check_config(
    config: Config, locations: Locations | None = None, *, elastic: Collection[str] = ()
) -> list[dict[str, str]]:
    """Every rule error of an already-built model; ``[]`` when it is valid. The partitions named
    in ``elastic`` (elastic quota on) are held to the elastic rules too (``E-`` codes).

    Without ``locations`` (a model built from database rows, say) fields name the places
    ``dump_config`` would write things to.
    """
    loc = locations if locations is not None else default_locations(config)
    report = Report()
    seen: set[str] = set()
    for index, partition in enumerate(config.partitions):
        scope = Scope(report, loc, partition, index)
        partition_rules.check_name(scope, seen)
        if partition_rules.check_queues_set(scope):
            partition_rules.check_structure(scope)
            queue_rules.check_queues(scope)
            resource_rules.check_resources(scope)
        partition_rules.check_placement(scope)
        partition_rules.check_node_sort(scope)
        if index not in loc.missing_queues:
            tree_rules.check_max_applications(scope)
            tree_rules.check_hierarchical_limits(scope)
    if elastic:
        report.errors.extend(check_elastic(config, elastic, loc))
    return report.errors


def _load(
    yaml_text: str | bytes, max_bytes: int, elastic: Collection[str]
) -> tuple[Config | None, list[dict[str, str]]]:
    # A big config creates about a million small objects that stay alive until the model is built.
    with paused_gc():
        return _load_and_check(yaml_text, max_bytes, elastic)


def _load_and_check(
    yaml_text: str | bytes, max_bytes: int, elastic: Collection[str]
) -> tuple[Config | None, list[dict[str, str]]]:
    try:
        raw = load_document(yaml_text, max_bytes=max_bytes)
    except DocumentError as err:
        return None, [{"code": "PARSE", "path": "", "field": "", "message": str(err)}]
    config, loc, errors = build_config(raw)
    if errors:
        # Like a strict decoder, a document of the wrong shape is not judged further: rules
        # run on a model with holes would only report follow-on noise.
        return None, errors
    return config, check_config(config, loc, elastic=elastic)


def validate_config(
    yaml_text: str | bytes, *, max_bytes: int = MAX_BYTES, elastic: Collection[str] = ()
) -> list[dict[str, str]]:
    """Every problem of a config document as ``{code, path, field, message}``; ``[]`` if valid.
    Partitions named in ``elastic`` must keep the elastic rules too."""
    return _load(yaml_text, max_bytes, elastic)[1]


def read_config(
    yaml_text: str | bytes, *, max_bytes: int = MAX_BYTES, elastic: Collection[str] = ()
) -> tuple[Config | None, list[dict[str, str]]]:
    """The model as written and every problem it has (``[]`` if valid). The model is None only
    when the document cannot be built at all (not YAML, the wrong shape); one that breaks rules
    still comes back, so a draft can be shown while it passes through invalid states."""
    return _load(yaml_text, max_bytes, elastic)


def parse_config(
    yaml_text: str | bytes, *, max_bytes: int = MAX_BYTES, elastic: Collection[str] = ()
) -> Config:
    """The normalised model of a valid document; raises ``ConfigError`` with every problem.
    Partitions named in ``elastic`` must keep the elastic rules too."""
    config, errors = _load(yaml_text, max_bytes, elastic)
    if errors or config is None:
        raise ConfigError(errors)
    return config


def parse_document(
    document: Mapping[str, Any], *, max_bytes: int = MAX_BYTES, elastic: Collection[str] = ()
) -> tuple[Config, str]:
    """A config document given as data (``{"partitions": [...]}``, as an editor builds it): its
    normalised model and its YAML text, exactly what ``parse_config(write_yaml(document))``
    would answer, without reading the YAML back. ``ConfigError`` with every problem."""
    yaml_text = write_yaml(document)
    try:
        if len(yaml_text.encode("utf-8")) > max_bytes:
            raise Unusual
        raw = loaded_form(document)
    except Unusual:
        return parse_config(yaml_text, max_bytes=max_bytes, elastic=elastic), yaml_text
    with paused_gc():
        config, locations, errors = build_config(raw)
        if not errors:
            errors = check_config(config, locations, elastic=elastic)
    if errors:
        raise ConfigError(errors)
    return config, yaml_text
