"""Quantities and resource vectors (spec 1.3).

A resource is a sparse ``dict[str, int]`` in base units: memory in bytes, ``vcore`` in millicores,
other types unit-less. In a max or a limit a missing type means "unlimited"; a type present with 0
means "none of it". Config text such as ``10Gi`` or ``500m`` becomes base units here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from trackers.errors import QuantityError

INT64_MAX = 2**63 - 1

INVALID_QUANTITY = "invalid quantity"
INVALID_SUFFIX = "invalid suffix"
OVERFLOW = "invalid quantity: overflow"

VCORE = "vcore"

# Go's regexp ``\s`` is ASCII-only; spelling the class out keeps Python's Unicode \s and \d out.
_QUANTITY_RE = re.compile(r"([0-9]+)[ \t\n\f\r]*([mkKMGTPE]i?)?")
_MULTIPLIERS = {
    "": 1,
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "E": 10**18,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
    "Ei": 2**60,
}
_INT64_DIGITS = len(str(INT64_MAX))


def parse_quantity(text: str | int, resource_type: str) -> int:
    """Read one config quantity in base units, or raise ``QuantityError`` with the spec 1.3 text."""
    if isinstance(text, bool) or not isinstance(text, str | int):
        raise QuantityError(INVALID_QUANTITY)
    return _parse(str(text), resource_type == VCORE)


# Configs repeat the same few quantities thousands of times; caching makes big loads cheap.
# Only successful parses are cached (an exception is never stored by lru_cache).
@lru_cache(maxsize=16384)
def _parse(text: str, is_vcore: bool) -> int:
    match = _QUANTITY_RE.fullmatch(text.strip())
    if match is None:
        raise QuantityError(INVALID_QUANTITY)
    digits, suffix = match.group(1), match.group(2) or ""
    # Decide overflow on the digit count first: int() refuses very long digit strings.
    significant = digits.lstrip("0")
    if len(significant) > _INT64_DIGITS:
        raise QuantityError(OVERFLOW)
    value = int(digits)
    if value > INT64_MAX:
        raise QuantityError(OVERFLOW)
    if suffix == "m":
        if not is_vcore:
            raise QuantityError(INVALID_SUFFIX)
        return value  # already millicores
    multiplier = _MULTIPLIERS.get(suffix)
    if multiplier is None:
        raise QuantityError(INVALID_SUFFIX)
    value *= multiplier
    if is_vcore:
        value *= 1000
    if value > INT64_MAX:
        raise QuantityError(OVERFLOW)
    return value


def parse_resource_map(raw: Mapping[str, str]) -> dict[str, int]:
    """Parse every quantity of a ``type -> text`` map; the first bad one raises QuantityError."""
    return {kind: parse_quantity(text, kind) for kind, text in raw.items()}


# -- vector helpers -------------------------------------------------------------------------------


def fits_within(request: Mapping[str, int], limit: Mapping[str, int]) -> bool:
    """True when every type of ``request`` is at most the same type of ``limit``.

    Types the limit does not name are unlimited, so only shared types are compared.
    """
    for kind, amount in request.items():
        cap = limit.get(kind)
        if cap is not None and amount > cap:
            return False
    return True


def above_limit(
    request: Mapping[str, int], limit: Mapping[str, int]
) -> tuple[dict[str, int], dict[str, int]]:
    """The types where ``request`` goes above ``limit`` (what ``fits_within`` refuses): their
    amounts in ``request`` and in ``limit``, so a refusal can name only the resources at fault."""
    over = {
        kind: amount for kind, amount in request.items()
        if (cap := limit.get(kind)) is not None and amount > cap
    }
    return over, {kind: limit[kind] for kind in over}


def fits_headroom(request: Mapping[str, int], headroom: Mapping[str, int] | None) -> bool:
    """The allocation fit test of spec 2.5: ``None`` headroom is unlimited; a negative headroom
    (usage above a lowered cap) counts as zero room, not as a reason to refuse zero requests."""
    if headroom is None:
        return True
    for kind, amount in request.items():
        room = headroom.get(kind)
        if room is not None and amount > max(0, room):
            return False
    return True


def component_min(
    a: Mapping[str, int] | None, b: Mapping[str, int] | None
) -> dict[str, int] | None:
    """The tighter of two caps per type; a type only one side names keeps that side's value."""
    if a is None:
        return None if b is None else dict(b)
    if b is None:
        return dict(a)
    out = dict(a)
    for kind, value in b.items():
        mine = out.get(kind)
        out[kind] = value if mine is None or value < mine else mine
    return out


def add_pruned(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    """``a + b`` without the types that come out as exactly zero (usage maps stay sparse)."""
    out = dict(a)
    for kind, value in b.items():
        total = out.get(kind, 0) + value
        if total:
            out[kind] = total
        else:
            out.pop(kind, None)
    return out


def subtract_pruned(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    """``a - b`` without the types that come out as exactly zero."""
    out = dict(a)
    for kind, value in b.items():
        total = out.get(kind, 0) - value
        if total:
            out[kind] = total
        else:
            out.pop(kind, None)
    return out


def go_format(res: Mapping[str, int]) -> str:
    """Go's ``%v`` of a map (sorted keys), which validation messages use so they compare exactly."""
    return "map[" + " ".join(f"{kind}:{res[kind]}" for kind in sorted(res)) + "]"


# -- human formatting -----------------------------------------------------------------------------

# Admins write memory as ``512Gi`` and ``1Ti``: pages read it back in the same binary units, so a
# limit looks as it was written (``512 GiB``), not as its decimal size (``549.8 GB``).
BYTE_STEP = 1024
_BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")
# How pages read a limit or max of 0: the type may not be used at all.
NOT_ALLOWED = "not allowed"


def is_bytes_type(resource_type: str) -> bool:
    """Memory and storage are counted in bytes; every other type except vcore is a plain count."""
    return "memory" in resource_type or "storage" in resource_type


def _trim(number: str) -> str:
    if "." in number:
        number = number.rstrip("0").rstrip(".")
    return number


def _bytes(value: int) -> str:
    unit = 0
    scaled = float(value)
    # Compare the rounded figure, so 1023.96 MiB reads 1 GiB rather than 1024 MiB.
    while unit < len(_BYTE_UNITS) - 1 and round(scaled, 1) >= BYTE_STEP:
        scaled /= BYTE_STEP
        unit += 1
    return f"{_trim(f'{scaled:.1f}')} {_BYTE_UNITS[unit]}"


def bytes_unit_power(value: int) -> int:
    """The power of 1024 of the largest binary unit ``value`` reaches (0 for bytes, 3 for GiB)."""
    power = 0
    while power < len(_BYTE_UNITS) - 1 and value >= BYTE_STEP ** (power + 1):
        power += 1
    return power


def format_bytes_in(value: int, power: int) -> str:
    """``value`` bytes in the unit of ``power`` (``0.5 TiB``), whatever unit suits the value
    alone: a chart axis labels every tick in one unit."""
    return f"{_trim(f'{value / BYTE_STEP**power:.2f}')} {_BYTE_UNITS[power]}"


def format_quantity(resource_type: str, value: int) -> str:
    """A base-unit value for people: ``9.5 GiB``, ``2.5 vcore``, ``3``."""
    if value < 0:
        return "-" + format_quantity(resource_type, -value)
    if resource_type == VCORE:
        cores, milli = divmod(value, 1000)
        return f"{_trim(f'{cores}.{milli:03d}')} vcore"
    if is_bytes_type(resource_type):
        return _bytes(value)
    return str(value)


def base_unit(resource_type: str) -> str:
    """The unit a raw value is counted in, with its leading space: `` bytes``, `` millicores``,
    or nothing for a plain count."""
    if resource_type == VCORE:
        return " millicores"
    return " bytes" if is_bytes_type(resource_type) else ""


def format_resource_raw(res: Mapping[str, int]) -> str:
    """The exact values behind ``format_resource``, for hover: ``memory 68719476736 bytes,
    vcore 2500 millicores``."""
    return ", ".join(f"{kind} {res[kind]}{base_unit(kind)}" for kind in sorted(res))


def format_resource(res: Mapping[str, int]) -> str:
    """A resource for people, types sorted: ``memory 9.5 GiB, 2.5 vcore, nvidia.com/gpu 2``."""
    if not res:
        return "nothing"
    parts = []
    for kind in sorted(res):
        text = format_quantity(kind, res[kind])
        parts.append(text if kind == VCORE else f"{kind} {text}")
    return ", ".join(parts)


# The suffixes a base-unit amount is written back with, largest first (binary before decimal).
_BINARY = (("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20),
           ("Ki", 2**10))
_DECIMAL = (("E", 10**18), ("P", 10**15), ("T", 10**12), ("G", 10**9), ("M", 10**6),
            ("k", 10**3))


def quantity_input(kind: str, value: int) -> str:
    """A base-unit amount written back as a quantity ``parse_quantity`` reads to the same value:
    ``400Gi``, ``96`` vcore, ``500m``, ``8``."""
    if kind == VCORE:
        cores, milli = divmod(value, 1000)
        return str(cores) if not milli else f"{value}m"
    if is_bytes_type(kind) and value:
        for suffix, size in (*_BINARY, *_DECIMAL):
            if value % size == 0:
                return f"{value // size}{suffix}"
    return str(value)
