"""Human units for resource maps kept in base units (memory bytes, vcore millicores)."""

from __future__ import annotations

from django import template

register = template.Library()

BINARY = (
    ("EiB", 2**60),
    ("PiB", 2**50),
    ("TiB", 2**40),
    ("GiB", 2**30),
    ("MiB", 2**20),
    ("KiB", 2**10),
)
DECIMAL = (
    ("EB", 10**18),
    ("PB", 10**15),
    ("TB", 10**12),
    ("GB", 10**9),
    ("MB", 10**6),
    ("kB", 10**3),
)


def _trim(number: float) -> str:
    text = f"{number:.2f}".rstrip("0").rstrip(".")
    return text or "0"


def human_bytes(value: int) -> str:
    magnitude = abs(value)
    for unit, size in BINARY:
        if magnitude >= size and magnitude % size == 0:
            return f"{value // size} {unit}"
    for unit, size in DECIMAL:
        if magnitude >= size:
            return f"{_trim(value / size)} {unit}"
    return f"{value} B"


def human_quantity(kind: str, value: int) -> str:
    if kind == "memory":
        return human_bytes(value)
    if kind == "vcore":
        return f"{_trim(value / 1000)} vcore"
    return f"{value} {kind}"


@register.filter
def resources(value) -> str:
    """``{"memory": 2**30, "vcore": 2500}`` -> ``"1 GiB, 2.5 vcore"``; empty or None -> ``""``."""
    if not value:
        return ""
    return ", ".join(human_quantity(kind, amount) for kind, amount in sorted(value.items()))


@register.filter
def leaf_name(path: str) -> str:
    """``root.research.nlp`` -> ``nlp``."""
    return path.rpartition(".")[2]
