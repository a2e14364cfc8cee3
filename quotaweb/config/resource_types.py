"""Resource types nothing knows. YuniKorn accepts any type, so a misspelt ``memroy: 3Gi`` is a
valid configuration: it would be stored and applied without a word. Every path that writes
resource types (the queue form, the YAML page, the API's whole document and its queue and limit
writes) warns with the same words, computed from the models the write has parsed already."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from quotaweb.config.selectors import version_get, version_model
from trackers.config.model import Config, Queue
from trackers.resources import VCORE

WARN_UNKNOWN_RESOURCE_TYPE = (
    "“{kind}” is not a resource type the active configuration or the trackers know{suggestion}: "
    "YuniKorn accepts any type, so check its spelling."
)
WARN_RESOURCE_SUGGESTION = " (did you mean “{known}”?)"

# The types the trackers themselves give a meaning to (cores, and bytes for memory).
TRACKER_RESOURCE_TYPES = frozenset({"memory", VCORE})
# The queue and limit values that map resource types to quantities (the form's and the API's).
RESOURCE_VALUES = ("guaranteed", "max", "max_resources")


def resource_types_known(*, config: Config) -> set[str]:
    """Every resource type a configuration names and the ones the trackers know."""
    return resource_types_named(config=config) | TRACKER_RESOURCE_TYPES


def resource_types_named(*, config: Config) -> set[str]:
    """Every resource type a configuration names (queues' guaranteed and max, limit entries,
    child templates)."""
    known: set[str] = set()
    for partition in config.partitions:
        for limit in partition.limits:
            known.update(limit.max_resources)
        for queue in partition.queues():
            known |= queue_resource_types(queue)
            for limit in queue.limits:
                known.update(limit.max_resources)
    return known


def resource_types_of_values(values: Mapping[str, Any]) -> set[str]:
    """The types a queue or limit edit's values name (``guaranteed``, ``max``,
    ``max_resources``)."""
    return {kind for key in RESOURCE_VALUES for kind in values.get(key) or {}}


def resource_types_unknown(*, config: Config, types: Iterable[str]) -> list[tuple[str, str]]:
    """The types of ``types`` neither ``config`` nor the trackers know, each with the closest
    known type, or ``""`` when none is close."""
    # Most writes name only memory and vcore: then ``config`` need not be walked at all.
    strangers = set(types) - TRACKER_RESOURCE_TYPES
    if not strangers:
        return []
    known = resource_types_known(config=config)
    return [
        (kind, next(iter(difflib.get_close_matches(kind, sorted(known), n=1)), ""))
        for kind in sorted(strangers - known)
    ]


def resource_type_warnings(
    *, config: Config, types: Iterable[str], text: str = WARN_UNKNOWN_RESOURCE_TYPE
) -> list[str]:
    """One warning (``text``) per type of ``types`` that ``config`` (the active configuration
    the write starts from) and the trackers do not know, naming the closest known type."""
    return [
        text.format(
            kind=kind, suggestion=WARN_RESOURCE_SUGGESTION.format(known=known) if known else ""
        )
        for kind, known in resource_types_unknown(config=config, types=types)
    ]


def document_resource_type_warnings(*, active: Config, candidate: Config) -> list[str]:
    """The warnings of a whole document: the types ``candidate`` names that ``active`` and the
    trackers do not know."""
    return resource_type_warnings(config=active, types=resource_types_named(config=candidate))


def write_resource_type_warnings(*, base_version: int | None, types: Iterable[str]) -> list[str]:
    """The warnings of a write that started from version ``base_version`` (the one active
    then; None before any) and wrote ``types``. That version's model is only read when a type
    is neither memory nor vcore, and comes from the cache of parsed models, not parsed again."""
    if not set(types) - TRACKER_RESOURCE_TYPES:
        return []
    base = (
        version_model(version_get(number=base_version)) if base_version is not None else Config()
    )
    return resource_type_warnings(config=base, types=types)


def queue_resource_types(queue: Queue) -> set[str]:
    """The types a queue's own settings name: guaranteed, max and its child template's."""
    types = {*queue.guaranteed, *queue.max}
    template = queue.child_template
    if template is not None and template.resources is not None:
        types.update(template.resources.guaranteed, template.resources.max)
    return types
