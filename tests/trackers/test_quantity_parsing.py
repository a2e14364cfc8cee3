"""Quantity strings of spec 1.3: every example, every suffix, every error text."""

import pytest

from trackers.errors import QuantityError
from trackers.resources import (
    INT64_MAX,
    INVALID_QUANTITY,
    INVALID_SUFFIX,
    OVERFLOW,
    parse_quantity,
    parse_resource_map,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10G", 10_000_000_000),
        ("250Gi", 268_435_456_000),
        ("4Ki", 4096),
        ("1Mi", 1_048_576),
        ("0", 0),
        ("10000", 10000),
        ("1k", 1000),
        ("1M", 10**6),
        ("1G", 10**9),
        ("1T", 10**12),
        ("1P", 10**15),
        ("1E", 10**18),
        ("1Ki", 2**10),
        ("1Gi", 2**30),
        ("1Ti", 2**40),
        ("1Pi", 2**50),
        ("1Ei", 2**60),
        ("7Ei", 7 * 2**60),
        ("9E", 9 * 10**18),
        (" 25k ", 25_000),
        (" 25  k ", 25_000),
        ("25\tk", 25_000),
        ("007", 7),
        ("9223372036854775807", INT64_MAX),
        ("0009223372036854775807", INT64_MAX),
    ],
)
def test_memory_like_types_have_no_implied_unit(text, expected):
    assert parse_quantity(text, "memory") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10", 10_000),
        ("100m", 100),
        ("500m", 500),
        ("2k", 2_000_000),
        ("1Ki", 1_024_000),
        ("0", 0),
        ("0m", 0),
        (" 25  k ", 25_000_000),
        ("9223372036854775", 9_223_372_036_854_775_000),
        ("9223372036854775807m", INT64_MAX),
    ],
)
def test_vcore_is_counted_in_millicores(text, expected):
    assert parse_quantity(text, "vcore") == expected


@pytest.mark.parametrize("kind", ["cpu", "vcores", "VCORE", "Vcore", "nvidia.com/gpu", "pods"])
def test_only_the_type_named_exactly_vcore_is_special(kind):
    assert parse_quantity("10", kind) == 10
    with pytest.raises(QuantityError, match=f"^{INVALID_SUFFIX}$"):
        parse_quantity("10m", kind)


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "-1",
        "+1",
        "1.5",
        "0.5",
        "1e3",
        "ten",
        "5X",
        "1.5G",
        "G",
        "k1",
        "1 0",
        "\u0663",
        "\uff11\uff10",
        "1\u00a0k",
        "0x10",
        "1_000",
        "1 Gi i",
    ],
)
def test_text_outside_the_pattern_is_an_invalid_quantity(text):
    # Unicode digits and non-ASCII spaces are outside the pattern, as in Go's regexp.
    with pytest.raises(QuantityError) as err:
        parse_quantity(text, "memory")
    assert str(err.value) == INVALID_QUANTITY


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("2K", "memory"),
        ("2mi", "memory"),
        ("2ki", "memory"),
        ("10m", "memory"),
        ("2K", "vcore"),
        ("2mi", "vcore"),
        ("2ki", "vcore"),
        ("1m", "cpu"),
        ("3 mi", "vcore"),
    ],
)
def test_suffix_outside_the_table_is_an_invalid_suffix(text, kind):
    with pytest.raises(QuantityError) as err:
        parse_quantity(text, kind)
    assert str(err.value) == INVALID_SUFFIX


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("9223372036854775808", "memory"),
        ("1000E", "memory"),
        ("8Ei", "memory"),
        ("1000P", "vcore"),
        ("7E", "vcore"),
        ("9223372036854776", "vcore"),
        ("9223372036854775808m", "vcore"),
        ("9" * 40, "memory"),
        ("9" * 5000, "memory"),
        ("99999999999999999999K", "memory"),  # digits overflow before the suffix is looked at
    ],
)
def test_values_beyond_int64_overflow(text, kind):
    with pytest.raises(QuantityError) as err:
        parse_quantity(text, kind)
    assert str(err.value) == OVERFLOW


def test_ints_are_read_like_their_text():
    assert parse_quantity(10000, "memory") == 10000
    assert parse_quantity(2, "vcore") == 2000


@pytest.mark.parametrize("value", [True, None, 1.5, -1, ["1"]])
def test_other_python_values_are_invalid_quantities(value):
    with pytest.raises(QuantityError) as err:
        parse_quantity(value, "memory")
    assert str(err.value) == INVALID_QUANTITY


def test_quantity_error_is_a_value_error():
    with pytest.raises(ValueError, match="invalid quantity"):
        parse_quantity("x", "memory")


def test_resource_map_parses_each_type_with_its_own_rules():
    assert parse_resource_map({"memory": "250Gi", "vcore": "500m"}) == {
        "memory": 268_435_456_000,
        "vcore": 500,
    }
    assert parse_resource_map({"memory": "10G", "vcore": "2"}) == {
        "memory": 10_000_000_000,
        "vcore": 2000,
    }
    assert parse_resource_map({}) == {}


def test_resource_map_raises_the_first_bad_quantity():
    with pytest.raises(QuantityError) as err:
        parse_resource_map({"memory": "1", "vcore": "1000P", "gpu": "x"})
    assert str(err.value) == OVERFLOW
