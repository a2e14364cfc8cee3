"""Kubernetes quantities are read exactly into quotaweb's base units, and the text quotaweb
writes for an amount reads back as that very amount, both as Kubernetes reads it and as the
YuniKorn configuration does (so an import or export never moves a quota by a little)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quotaweb.config import kube
from trackers.resources import INT64_MAX, parse_quantity

KINDS = ("vcore", "memory", "ephemeral-storage", "nvidia.com/gpu", "pods")
amounts = st.one_of(
    st.integers(min_value=0, max_value=INT64_MAX),
    # Round amounts, which take a suffix.
    st.builds(lambda n, p: n * p, st.integers(0, 4096),
              st.sampled_from([1, 10**3, 10**6, 10**9, 2**10, 2**20, 2**30, 2**40])),
)


@given(st.sampled_from(KINDS), amounts)
def test_the_written_text_reads_back_as_the_amount(kind, amount):
    text = kube.quantity_text(kind, amount)

    assert kube.quantity_base(text, kind=kind) == amount
    assert parse_quantity(text, kind) == amount


@given(st.integers(0, 10**6), st.integers(0, 999), st.sampled_from(["", "k", "M", "Ki", "Mi"]))
def test_a_decimal_quantity_is_its_exact_value(whole, fraction, suffix):
    text = f"{whole}.{fraction:03d}{suffix}"
    value = kube.quantity_value(text)

    assert value == (whole + Fraction(fraction, 1000)) * kube._SUFFIX[suffix]


@pytest.mark.parametrize(("text", "kind", "base"), [
    ("10", "vcore", 10_000), (10, "vcore", 10_000), ("500m", "vcore", 500), (0.5, "vcore", 500),
    ("1e3", "vcore", 1_000_000), ("2.5E-1", "vcore", 250), ("+4", "pods", 4),
    ("40Gi", "memory", 40 * 2**30), ("1.5Gi", "memory", 3 * 2**29), ("128974848", "memory",
                                                                      128974848),
    ("129e6", "memory", 129 * 10**6), ("123Mi", "memory", 123 * 2**20), ("1k", "pods", 1000),
    ("2M", "pods", 2 * 10**6), ("3G", "memory", 3 * 10**9), ("5000000u", "vcore", 5000),
    (".5", "vcore", 500), ("1.", "pods", 1), ("-0", "pods", 0),
])
def test_every_spelling(text, kind, base):
    assert kube.quantity_base(text, kind=kind) == base


@pytest.mark.parametrize(("text", "kind", "message"), [
    ("1.5", "memory", kube.ERR_QUANTITY_FRACTION.format(value="1.5", unit="bytes",
                                                         kind="memory")),
    ("1u", "vcore", kube.ERR_QUANTITY_FRACTION.format(value="1u", unit="millicores",
                                                       kind="vcore")),
    ("1e999999", "pods", kube.ERR_QUANTITY_FORM.format(value="1e999999")),
    ("10 Gi", "memory", kube.ERR_QUANTITY_FORM.format(value="10 Gi")),
    ("1Gb", "memory", kube.ERR_QUANTITY_FORM.format(value="1Gb")),
    (True, "pods", kube.ERR_QUANTITY_FORM.format(value=True)),
    ("-1", "pods", kube.ERR_QUANTITY_NEGATIVE.format(value="-1")),
    ("9223372036854775808", "pods", kube.ERR_QUANTITY_TOO_LARGE.format(
        value="9223372036854775808", limit=INT64_MAX, unit="units")),
])
def test_what_cannot_be_held_exactly_is_refused(text, kind, message):
    with pytest.raises(kube.KubeValueError) as refused:
        kube.quantity_base(text, kind=kind)
    assert str(refused.value) == message


def test_resource_names_map_cpu_to_vcore_and_keep_the_rest():
    assert kube.resource_from_kube("cpu") == "vcore"
    assert kube.resource_from_kube("nvidia.com/gpu") == "nvidia.com/gpu"
    assert kube.resource_from_kube("hugepages-2Mi") == "hugepages-2Mi"
    assert kube.resource_to_kube("vcore") == "cpu"
    assert kube.resource_to_kube("my gpu") is None
    for bad in ("vcore", "my gpu", "Nvidia.com/gpu", "/gpu", "", 7):
        with pytest.raises(kube.KubeValueError):
            kube.resource_from_kube(bad)
