"""Template filters for resource maps kept in base units (memory bytes, vcore millicores)."""

from __future__ import annotations

from django import template

from trackers.names import shown_name as _shown_name
from trackers.resources import format_resource, format_resource_raw

register = template.Library()


@register.filter
def resources(value) -> str:
    """``{"memory": 19 * 2**29, "vcore": 2500}`` -> ``"memory 9.5 GiB, 2.5 vcore"``."""
    if not value:
        return ""
    return format_resource(value)


@register.filter
def resources_raw(value) -> str:
    """The exact base-unit values of ``resources``, for a title: people read binary units, and
    hovering gives the bytes and millicores behind them."""
    if not value:
        return ""
    return format_resource_raw(value)


@register.filter
def leaf_name(path: str) -> str:
    """``root.research.nlp`` -> ``nlp``."""
    return path.rpartition(".")[2]


@register.filter
def shown_name(name: str) -> str:
    """A user or group name, the wildcard ``*`` as "everyone (*)" (never a bare group name)."""
    return _shown_name(name)
