"""Values in base units shown to people: bytes in binary units (as admins write them), vcore in
cores, counts as numbers."""

import pytest

from trackers.resources import format_quantity, format_resource, format_resource_raw

GiB = 2**30


@pytest.mark.parametrize(
    ("kind", "value", "text"),
    [
        # As admins write them: 512Gi, 1Ti, 1.5Ti (1536Gi), 64Gi, 100Gi.
        ("memory", 512 * GiB, "512 GiB"),
        ("memory", 2**40, "1 TiB"),
        ("memory", 1536 * GiB, "1.5 TiB"),
        ("memory", 64 * GiB, "64 GiB"),
        ("memory", 100 * GiB, "100 GiB"),
        ("memory", 1000 * GiB, "1000 GiB"),
        # Decimal amounts (10G) read in binary units too.
        ("memory", 10_000_000_000, "9.3 GiB"),
        ("memory", 0, "0 B"),
        ("memory", 1000, "1000 B"),
        ("memory", 1023, "1023 B"),
        ("memory", 1024, "1 KiB"),
        ("memory", 1536, "1.5 KiB"),
        ("memory", 2**20, "1 MiB"),
        # The unit steps up when the rounded figure reaches 1024: no "1024 KiB".
        ("memory", 1_048_524, "1023.9 KiB"),
        ("memory", 1_048_525, "1 MiB"),
        ("memory", 3 * 2**50, "3 PiB"),
        ("memory", 7 * 2**60, "7 EiB"),
        ("memory", -9 * GiB // 2, "-4.5 GiB"),
        ("ephemeral-storage", 5 * 2**20, "5 MiB"),
        ("hugepages-memory", 2048, "2 KiB"),
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
    assert format_resource({"vcore": 2500, "memory": 19 * GiB // 2, "nvidia.com/gpu": 2}) == (
        "memory 9.5 GiB, nvidia.com/gpu 2, 2.5 vcore"
    )


def test_format_resource_single_and_empty():
    assert format_resource({"memory": 1024}) == "memory 1 KiB"
    assert format_resource({"vcore": 500}) == "0.5 vcore"
    assert format_resource({}) == "nothing"


def test_the_raw_values_behind_a_resource_for_hover():
    assert format_resource_raw({"vcore": 2500, "memory": 64 * GiB, "nvidia.com/gpu": 2}) == (
        f"memory {64 * GiB} bytes, nvidia.com/gpu 2, vcore 2500 millicores"
    )
