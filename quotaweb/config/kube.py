"""Kubernetes spellings next to quotaweb's: resource quantities, resource names and object names.

Kubernetes writes ``cpu: 500m``, ``memory: 1.5Gi`` or ``cpu: 2e3``; quotaweb keeps integers in
base units (``vcore`` in millicores, bytes, plain counts) and writes YuniKorn text (``500m``,
``1536Mi``). Reading is exact (fractions, never floats): a value that is not a whole number of
base units is refused rather than rounded, so an import never changes a quota by a little.
"""

from __future__ import annotations

import re
from fractions import Fraction

from trackers.resources import INT64_MAX, VCORE, is_bytes_type

# Kubernetes's own name for the resource quotaweb (like YuniKorn) calls ``vcore``.
KUBE_CPU = "cpu"

ERR_QUANTITY_FORM = "{value!r} is not a Kubernetes quantity (like 10, 500m, 40Gi or 1e3)"
ERR_QUANTITY_NEGATIVE = "{value!r} is negative; a quota cannot be"
ERR_QUANTITY_FRACTION = (
    "{value!r} is not a whole number of {unit}; quotaweb keeps {kind} exactly and will not "
    "round it"
)
ERR_QUANTITY_TOO_LARGE = "{value!r} is larger than quotaweb can hold ({limit} {unit})"
ERR_RESOURCE_NAME = (
    "{name!r} is not a resource name quotaweb can hold (a Kubernetes resource name like cpu, "
    "memory or nvidia.com/gpu)"
)
ERR_RESOURCE_VCORE = "{name!r} is quotaweb's spelling; Kubernetes objects call it cpu"

_QUANTITY_RE = re.compile(
    r"(?P<sign>[+-]?)(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?:[eE](?P<exponent>[+-]?[0-9]+)|(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?"
)
_SUFFIX = {
    "": Fraction(1), "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000),
    "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
    "P": Fraction(10**15), "E": Fraction(10**18),
    "Ki": Fraction(2**10), "Mi": Fraction(2**20), "Gi": Fraction(2**30), "Ti": Fraction(2**40),
    "Pi": Fraction(2**50), "Ei": Fraction(2**60),
}
# Beyond this an exponent is either zero or far over int64 anyway; capping it keeps a hostile
# ``1e999999999`` from building a number of a billion digits.
_MAX_EXPONENT = 40
_BYTE_SUFFIXES = (
    ("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10),
    ("E", 10**18), ("P", 10**15), ("T", 10**12), ("G", 10**9), ("M", 10**6), ("k", 10**3),
)

_DNS_LABEL = r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
_DNS_LABEL_RE = re.compile(_DNS_LABEL)
_DNS_SUBDOMAIN_RE = re.compile(rf"{_DNS_LABEL}(?:\.{_DNS_LABEL})*")
_NAME_PART_RE = re.compile(r"[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?")
_NOT_LABEL_CHARS = re.compile(r"[^a-z0-9]+")
DNS_LABEL_MAX = 63
DNS_SUBDOMAIN_MAX = 253


class KubeValueError(ValueError):
    """A Kubernetes value quotaweb cannot take; ``str()`` says why (one of the texts above)."""


# -- quantities ---------------------------------------------------------------------------------


def quantity_value(value: object) -> Fraction:
    """A Kubernetes quantity (text, or the number YAML made of ``10`` or ``0.5``) exactly."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise KubeValueError(ERR_QUANTITY_FORM.format(value=value))
    text = repr(value) if isinstance(value, float) else str(value)
    found = _QUANTITY_RE.fullmatch(text.strip())
    if found is None:
        raise KubeValueError(ERR_QUANTITY_FORM.format(value=value))
    number = Fraction(found["number"].removesuffix(".") or "0")
    if found["exponent"] is not None:
        exponent = int(found["exponent"])
        if abs(exponent) > _MAX_EXPONENT:
            raise KubeValueError(ERR_QUANTITY_FORM.format(value=value))
        number *= Fraction(10) ** exponent
    else:
        number *= _SUFFIX[found["suffix"] or ""]
    if found["sign"] == "-" and number != 0:
        raise KubeValueError(ERR_QUANTITY_NEGATIVE.format(value=value))
    return number


def unit_of(kind: str) -> str:
    """The base unit of a quotaweb resource type, in words."""
    if kind == VCORE:
        return "millicores"
    return "bytes" if is_bytes_type(kind) else "units"


def quantity_base(value: object, *, kind: str) -> int:
    """A Kubernetes quantity of quotaweb type ``kind`` in quotaweb's base units, exactly:
    ``500m`` of vcore is 500, ``1.5Gi`` of memory 1610612736. ``KubeValueError`` otherwise."""
    amount = quantity_value(value)
    if kind == VCORE:
        amount *= 1000
    unit = unit_of(kind)
    if amount.denominator != 1:
        raise KubeValueError(ERR_QUANTITY_FRACTION.format(value=value, unit=unit, kind=kind))
    if amount > INT64_MAX:
        raise KubeValueError(
            ERR_QUANTITY_TOO_LARGE.format(value=value, limit=INT64_MAX, unit=unit)
        )
    return int(amount)


def quantity_text(kind: str, value: int) -> str:
    """A base-unit amount of quotaweb type ``kind`` as text that both Kubernetes and YuniKorn
    read as exactly that amount: ``500m``/``4`` for vcore, ``40Gi`` for bytes, ``2`` else."""
    if kind == VCORE:
        cores, milli = divmod(value, 1000)
        return str(cores) if milli == 0 else f"{value}m"
    if is_bytes_type(kind) and value:
        # The shortest exact spelling: 40Gi, but 100G rather than 97656250Ki.
        exact = [f"{value // size}{suffix}" for suffix, size in _BYTE_SUFFIXES
                 if value % size == 0]
        return min([*exact, str(value)], key=len)
    return str(value)


# -- names --------------------------------------------------------------------------------------


def is_resource_name(name: str) -> bool:
    """A Kubernetes resource name: ``cpu``, ``memory``, ``nvidia.com/gpu``, ``hugepages-2Mi``."""
    prefix, slash, rest = name.rpartition("/")
    if slash and not (
        len(prefix) <= DNS_SUBDOMAIN_MAX and _DNS_SUBDOMAIN_RE.fullmatch(prefix)
    ):
        return False
    return len(rest) <= DNS_LABEL_MAX and _NAME_PART_RE.fullmatch(rest) is not None


def resource_from_kube(name: object) -> str:
    """The quotaweb resource type of a Kubernetes resource name (``cpu`` is ``vcore``), or
    ``KubeValueError`` for a name quotaweb cannot hold."""
    if not isinstance(name, str) or not is_resource_name(name):
        raise KubeValueError(ERR_RESOURCE_NAME.format(name=name))
    if name == VCORE:
        raise KubeValueError(ERR_RESOURCE_VCORE.format(name=name))
    return VCORE if name == KUBE_CPU else name


def resource_to_kube(kind: str) -> str | None:
    """The Kubernetes name of a quotaweb resource type, or None when Kubernetes has none."""
    if kind == VCORE:
        return KUBE_CPU
    if kind == KUBE_CPU or not is_resource_name(kind):
        return None
    return kind


def is_dns_label(name: str) -> bool:
    """A DNS-1123 label: what Kubernetes takes as an object name and a label value alike."""
    return len(name) <= DNS_LABEL_MAX and _DNS_LABEL_RE.fullmatch(name) is not None


def is_dns_subdomain(name: str) -> bool:
    """A DNS-1123 subdomain: what an ElasticQuota's ``metadata.name`` may be."""
    return len(name) <= DNS_SUBDOMAIN_MAX and _DNS_SUBDOMAIN_RE.fullmatch(name) is not None


def dns_label_of(text: str) -> str:
    """``text`` made a DNS-1123 label: lower case, every run of other characters one ``-``,
    cut to 63 characters; empty when nothing of it is left."""
    label = _NOT_LABEL_CHARS.sub("-", text.lower()).strip("-")
    return label[:DNS_LABEL_MAX].rstrip("-")
