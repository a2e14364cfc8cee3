"""A partition's queues as elastic quota groups (spec 1.1, mapped onto quotaweb queues).

A queue's ``resources.guaranteed`` is its min and ``resources.max`` its max; the elastic settings
are queue properties, so a config stays valid YuniKorn YAML. Reading is tolerant: a value that
does not parse falls back to its default here, and ``check_elastic`` reports it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from trackers.config.model import Partition, Queue
from trackers.config.scope import parse_quantities
from trackers.elastic import messages
from trackers.errors import QuantityError
from trackers.resources import parse_quantity

PROP_WEIGHT = "elastic.shared-weight"
PROP_ALLOW_LENT = "elastic.allow-lent"
PROP_SYSTEM = "elastic.system"

FLAG_WORDS = frozenset({"true", "false"})


@dataclass(frozen=True, slots=True)
class ElasticQueue:
    """One quota group. ``weight`` is already defaulted and re-keyed to the keys of ``max``."""

    path: str
    parent: str | None
    min: Mapping[str, int]
    max: Mapping[str, int]
    weight: Mapping[str, int]
    allow_lent: bool = True
    system: bool = False


class WeightError(ValueError):
    """A shared weight that cannot be used; ``negative`` names the kinds written below zero."""

    def __init__(self, reason: str, negative: tuple[str, ...] = ()) -> None:
        super().__init__(reason)
        self.negative = negative


def parse_weight(text: str) -> dict[str, int]:
    """``vcore=4,memory=8Gi`` or ``{"vcore": "4", "memory": "8Gi"}`` in base units.

    Raises WeightError. Negative values are refused with the kinds named, because Koordinator has
    a message of its own for them (S3) while parse_quantity only knows "invalid quantity".
    """
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            raw = json.loads(stripped)
        except ValueError as err:
            raise WeightError(messages.WEIGHT_BAD_JSON.format(error=err)) from None
        if not isinstance(raw, dict):
            raise WeightError(messages.WEIGHT_NOT_A_MAP)
        pairs = [(str(kind), value) for kind, value in raw.items()]
    else:
        pairs = []
        for entry in stripped.split(","):
            if not entry.strip():
                continue
            kind, sep, value = entry.partition("=")
            if not sep or not kind.strip():
                raise WeightError(messages.WEIGHT_BAD_ENTRY.format(entry=entry.strip()))
            pairs.append((kind.strip(), value.strip()))
        if not pairs:
            raise WeightError(messages.WEIGHT_NOT_A_MAP)
    negative = tuple(sorted(kind for kind, value in pairs if _is_negative(value)))
    if negative:
        raise WeightError(messages.WEIGHT_NEGATIVE_REASON, negative)
    weight: dict[str, int] = {}
    for kind, value in pairs:
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise WeightError(
                messages.WEIGHT_BAD_QUANTITY.format(kind=kind, error="invalid quantity")
            )
        try:
            weight[kind] = parse_quantity(value, kind)
        except QuantityError as err:
            raise WeightError(messages.WEIGHT_BAD_QUANTITY.format(kind=kind, error=err)) from None
    return weight


def _is_negative(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return value < 0
    return isinstance(value, str) and value.strip().startswith("-")


def weight_for(text: str | None, maximum: Mapping[str, int]) -> dict[str, int]:
    """The weight a queue works with: missing, unreadable or all-zero means its max; then exactly
    the keys of max (Koordinator's webhook re-keys the annotation the same way)."""
    parsed: dict[str, int] = {}
    if text is not None:
        try:
            parsed = parse_weight(text)
        except WeightError:
            parsed = {}
    if not any(parsed.values()):
        return dict(maximum)
    return {kind: parsed.get(kind, limit) for kind, limit in maximum.items()}


def flag(properties: Mapping[str, str], name: str, default: bool) -> bool:
    """A true/false property: only the word opposite to the default (any case) changes it."""
    value = properties.get(name)
    if value is None:
        return default
    word = value.strip().lower()
    return word != "false" if default else word == "true"


def elastic_queue(queue: Queue, parent: str | None) -> ElasticQueue:
    minimum, _ = parse_quantities(queue.guaranteed)
    maximum, _ = parse_quantities(queue.max)
    props = queue.properties
    return ElasticQueue(
        path=queue.path,
        parent=parent,
        min=minimum,
        max=maximum,
        weight=weight_for(props.get(PROP_WEIGHT), maximum),
        allow_lent=flag(props, PROP_ALLOW_LENT, True),
        # The root is the pool itself; it cannot stand aside from its own split.
        system=parent is not None and flag(props, PROP_SYSTEM, False),
    )


def elastic_queues(partition: Partition) -> list[ElasticQueue]:
    """Every queue of a partition, parents first in document order, ready for ElasticTree."""
    out: list[ElasticQueue] = []
    stack: list[tuple[Queue, str | None]] = [(partition.root, None)]
    while stack:
        queue, parent = stack.pop()
        out.append(elastic_queue(queue, parent))
        stack.extend((child, queue.path) for child in reversed(queue.children))
    return out
