"""Values in base units shown to people: bytes in SI units, vcore in cores, counts as numbers."""

import pytest

from trackers.resources import format_quantity, format_resource


@pytest.mark.parametrize(
    ("kind", "value", "text"),
    [
        ("memory", 9_500_000_000, "9.5 GB"),
        ("memory", 10_000_000_000, "10 GB"),
        ("memory", 0, "0 B"),
        ("memory", 999, "999 B"),
        ("memory", 1000, "1 kB"),
        ("memory", 1536, "1.5 kB"),
        ("memory", 1_048_576, "1 MB"),
        ("memory", 268_435_456_000, "268.4 GB"),
        ("memory", 999_960_000, "1 GB"),
        ("memory", 2 * 10**12, "2 TB"),
        ("memory", 3 * 10**15, "3 PB"),
        ("memory", 9 * 10**18, "9 EB"),
        ("memory", -9_500_000_000, "-9.5 GB"),
        ("ephemeral-storage", 5_000_000, "5 MB"),
        ("hugepages-memory", 2_000, "2 kB"),
        ("vcore", 2500, "2.5 vcore"),
        ("vcore", 500, "0.5 vcore"),
        ("vcore", 1000, "1 vcore"),
        ("vcore", 0, "0 vcore"),
        ("vcore", 1, "0.001 vcore"),
        ("vcore", 1234, "1.234 vcore"),
        ("vcore", -1500, "-1.5 vcore"),
        ("nvidia.com/gpu", 2, "2"),
        ("pods", 1_000_000, "1000000"),
        ("cpu", -3, "-3"),
    ],
)
def test_format_quantity(kind, value, text):
    assert format_quantity(kind, value) == text


def test_format_resource_names_types_in_order():
    assert format_resource({"vcore": 2500, "memory": 9_500_000_000, "nvidia.com/gpu": 2}) == (
        "memory 9.5 GB, nvidia.com/gpu 2, 2.5 vcore"
    )


def test_format_resource_single_and_empty():
    assert format_resource({"memory": 1000}) == "memory 1 kB"
    assert format_resource({"vcore": 500}) == "0.5 vcore"
    assert format_resource({}) == "nothing"
