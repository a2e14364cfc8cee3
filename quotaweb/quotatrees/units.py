"""Quota tree quantities in the product's units. A tree's resources are free names; the ones
the rest of quotaweb knows are read and written the same way here: ``cpu`` counts millicores
(shown as vcore: ``2`` and ``500m`` are typed for 2 and half a core), memory and storage count
bytes (``64Gi``), any other resource is a plain count. Parsing and formatting are those of
``trackers.resources`` (the configuration's): this module only says which type a tree resource
is, so both read alike everywhere. ``static/js/quotatree.js`` (treeType) maps the same way."""

from __future__ import annotations

from collections.abc import Mapping

from trackers import QuantityError
from trackers.resources import (
    VCORE,
    format_quantity,
    is_bytes_type,
    parse_quantity,
    quantity_input,
)

# Tree resource names that are a product resource type under another name.
TREE_TYPES = {"cpu": VCORE}

ERR_QUANTITY = (
    "{value!r} is not an amount of {resource}: give a whole number, or one with a unit, "
    "like {example}"
)
EXAMPLE_CPU = "2 (cores) or 500m (half a core)"
EXAMPLE_BYTES = "64Gi, 512Mi or 2Ti"
EXAMPLE_COUNT = "4"


def tree_type(resource: str) -> str:
    """The product resource type a tree resource is counted as."""
    return TREE_TYPES.get(resource, resource)


def tree_quantity(resource: str, value: int) -> str:
    """``64 GiB``, ``2.5 vcore``, ``3``: a base-unit amount for people."""
    return format_quantity(tree_type(resource), value)


def tree_resource_text(values: Mapping[str, int] | None) -> str:
    """``cpu 2 vcore, memory 64 GiB``; ``nothing`` for an empty map."""
    if not values:
        return "nothing"
    return ", ".join(f"{key} {tree_quantity(key, values[key])}" for key in sorted(values))


def tree_quantity_input(resource: str, value: int) -> str:
    """An amount as an input shows it, read back to the same value: ``64Gi``, ``2``, ``500m``."""
    return quantity_input(tree_type(resource), value)


def example_of(resource: str) -> str:
    kind = tree_type(resource)
    if kind == VCORE:
        return EXAMPLE_CPU
    return EXAMPLE_BYTES if is_bytes_type(kind) else EXAMPLE_COUNT


def tree_quantity_parse(text: str | int, resource: str) -> int:
    """An amount typed by a person in base units; ``ValueError`` with ``ERR_QUANTITY``."""
    try:
        return parse_quantity(text.strip() if isinstance(text, str) else text, tree_type(resource))
    except QuantityError:
        raise ValueError(ERR_QUANTITY.format(
            value=text, resource=resource, example=example_of(resource)
        )) from None
